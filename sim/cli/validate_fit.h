/* validate_fit.h - the network calibration's fit: per size, the dilation factor whose calibrated
 * simulation comes closest to the measured time (internal to validate*.c).
 *
 * The calibration (netcal.h) dilates NCCL's calls by a curve of factors over sizes. A size's
 * calibrated simulation depends on its own factor alone (the curve passes through its fitted
 * points), so each size is fitted on its own by repeated simulations of the sizes still open: the
 * first uncalibrated, then a proportional step, then secant steps, within a clamped range, for
 * FIT_ROUNDS rounds (validate_fit.c). Every measured row may be simulated that many times and
 * once more by validate, so a log with too many rows is refused before any simulation.
 */
#ifndef DMLSIM_VALIDATE_FIT_H
#define DMLSIM_VALIDATE_FIT_H

#include "validate_sim.h"

#include <stdbool.h>

/* Refuses (DMLSIM_EVALUE, naming `path` and the largest job) more measured rows over
 * jobs[0 .. njobs) than one validate or fit may simulate (VALIDATE_MAX_ROWS, validate_fit.c). */
enum dmlsim_err validate_fit_check_rows(const struct validate_job *jobs, size_t njobs,
                                        const char *path, struct dmlsim_error *err);

/* Fits the curve of job j on the sizes selected by `use` (NULL: all): for each size the factor
 * whose calibrated simulation comes closest to the measured time over FIT_ROUNDS simulations,
 * the first of them uncalibrated (`uncal`, the job's uncalibrated times when the caller has them,
 * else NULL). A size's calibrated simulation depends on its own factor alone (the curve passes
 * through its fitted points), so each round simulates only the sizes still open. Adds the curve
 * to nc, and gives each fitted size's calibrated simulation in best_sim (when not NULL); false if
 * a simulation failed. */
bool validate_fit_job(const struct validate_job *j, const struct validate_machine *mc,
                      const bool *use, const double *uncal, const struct calib *c,
                      struct netcal *nc, double *best_sim);

#endif
