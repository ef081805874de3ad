/* hybrid_check.h - what the hybrid strategy accepts: its shape rules and its parts' checks.
 *
 * tp x pp x dp against the workers, a transformer preset, its stages, divisible heads and
 * key/value heads, expert parallelism's rules, the memory per rank (parallel.h), the collective
 * algorithm's groups (hygroup.h), and the checks of the strategy's parts: who reads the batches
 * (hybrid_input.h), the restart (hybrid_recover.h) and the split numerics (hybrid_num.h).
 */
#ifndef DMLSIM_HYBRID_CHECK_H
#define DMLSIM_HYBRID_CHECK_H

#include "job.h"

/* The layout's rules alone, against `workers` GPUs: a transformer preset, tp x pp x dp the
 * workers, the stages (par_stages.h), the heads, expert parallelism; no platform needed
 * (`dmlsim run --memory-only`). DMLSIM_OK, or a FILE:LINE error in err. */
enum dmlsim_err hybrid_check_layout(const struct scenario *sc, int workers,
                                    struct dmlsim_error *err);

/* The strategy row's check: DMLSIM_OK, or a FILE:LINE error in err. */
enum dmlsim_err hybrid_check(const struct job *j, struct dmlsim_error *err);

#endif
