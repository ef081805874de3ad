/* nccl_log.h - the nccl-tests log reader: a log, as posted, into a calibration profile's
 * collective records (calib_load reads calibration files itself and hands it anything else).
 *
 * nccl-tests logs are read as they are posted, not as nccl-tests writes them: a launcher prefix
 * on every line, NCCL_DEBUG output between the rows, two column layouts, several tests in one
 * file. Each line is classified once: nccl-tests' own "#" lines and the dmlsim annotations
 * (metadata), NCCL's lines (mined for its version and network), a command line naming the test,
 * a result row, a comment or a blank; anything else is counted in c->skipped and left behind.
 * A "run" is one nccl-tests invocation. Its operation, GPU count and node count are decided when
 * it ends, from every source that speaks of them (run_op, run_ranks, run_nodes): the test's name,
 * the rows' own columns, the "# Rank" lines, the dmlsim annotations, the options, nccl-tests'
 * busbw/algbw ratio. Sources that disagree are an error naming both; what was decided, and from
 * what, is kept in c->run for the user to read.
 * The formats it accepts are described with calib_load (calib.h); what a run was is decided by
 * nccl_log_run.h.
 */
#ifndef DMLSIM_NCCL_LOG_H
#define DMLSIM_NCCL_LOG_H

#include "calib_types.h"
#include "error.h"

#include <stdio.h>

/* Reads the nccl-tests log `f` (named `path` in messages), from its start, into `c` (zeroed by
 * the caller) with the user's statements `opt` (NULL: none). Returns DMLSIM_OK, or the first
 * error ("FILE:LINE: ..."; a log without result rows is one), after which the caller releases
 * `c` (calib_release). */
enum dmlsim_err nccl_log_load(const char *path, FILE *f, const struct calib_opts *opt,
                              struct calib *c, struct dmlsim_error *err);

#endif
