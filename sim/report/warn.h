/* warn.h - a run's warnings: what the report's figures say that a reader could miss.
 *
 * Each warning is one line, printed twice: in the text summary as "# warning  ..." and on stderr
 * as "FILE:LINE: warning: ..." (the element it is about), so that a CI log shows it as well as
 * the report. A warning changes no figure and no exit status.
 *
 * Detection dominates: the longest time from a fault to its first report (max_detect_s) is
 * longer than the run's time outside its longest recovery (time_s - max_recover_s, the recovery
 * counted from the fault to training progressing again): the job waited longer to notice a
 * failure than it trained. Detection waits on the collectives' watchdog (<training timeout>, by
 * default PyTorch's NCCL process group's 10 minutes, scenario_types.h): a crashed peer is found
 * when a wait on it times out, and the survivors' rendezvous waits one more period for it. Such a
 * run measures the timeout more than the job, so the line names the timeout in force and the
 * attribute that sets it. Rejected: detection (or detection plus recovery) above half the run
 * time: a short CI run with a 20 ms watchdog and one crash crosses it (ring-crash-elastic, 59%),
 * while the default's 600 s detection in a 1200 s run sits at exactly half.
 */
#ifndef DMLSIM_WARN_H
#define DMLSIM_WARN_H

#include "run.h"
#include "scenario.h"

#include <stdbool.h>
#include <stdio.h>

/* Does detection dominate rec's run time (the rule above)? */
bool warn_detect_dominates(const struct run_record *rec);

/* Prints rec's warnings: "# warning ..." lines on `out` (the text report), and the same text
 * as "FILE:LINE: warning: ..." on `err`. */
void warn_print(const struct scenario *sc, const struct run_record *rec, FILE *out, FILE *err);

#endif
