/* progress.h - the simulation's own watchdog: every run ends (issue 28).
 *
 * Every wait of a run has a deadline, but a protocol can still go round without progressing: a
 * worker retrying a store it can never reach, a loader re-reading from a host cut off for good,
 * a shard closing empty versions one deadline after another. Simulated time then grows without
 * bound and the run never ends. The watchdog is a daemon actor that watches the record's
 * progress_s (set when a step is committed, run_step_add, or training progresses, strategies
 * through inject_progress); if nothing progresses for `limit_s` of simulated time after the
 * later of the last progress and `quiet_until_s` (the fault plan's last timed event: a restart
 * scheduled for later is not a stall), it fails the job with a reason naming the live actors and
 * where they run, and kills them, so simgrid_run returns and the strategy's report follows. The
 * limit is ten times the largest deadline of the run (job_watch): no legitimate wait is that
 * long. Once the record's progress_step reached the planned steps the job's work is done and
 * the actors still waiting are stopped without failing it (the verdict is run_verdict's).
 */
#ifndef DMLSIM_PROGRESS_H
#define DMLSIM_PROGRESS_H

#include "run.h"

#include <simgrid/forward.h>

/* Starts the watchdog on `host` (one a run: process-wide state). */
void progress_watch(struct run_record *rec, sg_host_t host, double limit_s, double quiet_until_s);

/* Did the watchdog stop the run? (Strategies need not ask: the job has failed with the reason.) */
bool progress_stalled(void);

#endif
