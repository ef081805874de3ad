/* warn.h - a run's warnings: what the report's figures say that a reader could miss.
 *
 * Each warning is one line, printed twice: in the text summary as "# warning  ..." and on stderr
 * as "FILE:LINE: warning: ..." (the element it is about), so that a CI log shows it as well as
 * the report. A warning changes no figure and no exit status.
 *
 * Detection dominates: the longest time from a fault to its first report (max_detect_s) plus the
 * longest time from a fault to training progressing again (max_recover_s) is more than half the
 * run time (time_s). Both wait on the collectives' watchdog (<training timeout>, by default
 * PyTorch's NCCL process group's 10 minutes, attr.h): a crashed peer is found when a wait on it
 * times out, and the survivors' rendezvous waits one more period for it. So a run whose time is
 * mostly these waits measures the timeout, not the job, and the line names the timeout in force
 * and the attribute that sets it.
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
