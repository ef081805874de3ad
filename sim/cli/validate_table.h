/* validate_table.h - validate's tables: the header, and per job its rows of measured, simulated
 * and calibrated times with their errors and the job's summary lines (internal to validate*.c).
 *
 * nccl-tests style: `#` lines first (the profile, what was read of each run, the machine), then
 * one fixed-width row per size, units on a second `#` line. A collective job is simulated
 * uncalibrated at every size, then fitted on every other size (even positions, marked fit) and
 * simulated calibrated on the others (held-out), so its calibrated error is out of sample; the
 * summary gives the geometric-mean errors (the table ASTRA-sim publishes for its NCCL
 * validation), NCCL's plan and the level per size range, and the host's launch floor. The
 * textbook algorithms and all-to-all are not calibrated (the calibration dilates NCCL's calls);
 * copy jobs are compared uncalibrated.
 */
#ifndef DMLSIM_VALIDATE_TABLE_H
#define DMLSIM_VALIDATE_TABLE_H

#include "validate_sim.h"

/* The header: the profile, what was read of each run, the machine and how it runs. */
void validate_table_header(const char *path, const struct calib *c,
                           const struct validate_machine *mc);

/* One collective job: uncalibrated simulation of every size, then a fit on every other size
 * (even positions) and a calibrated simulation whose errors are reported on the others. Prints
 * its rows and summary; 0, or 1 if a simulation failed (said in a `#` line). */
int validate_table_coll(const struct validate_job *j, const struct validate_machine *mc,
                        const struct calib *c);

/* One copy job: its uncalibrated rows and geometric-mean error; 0, or 1 if the simulation
 * failed. */
int validate_table_copy(const struct validate_job *j, const struct validate_machine *mc);

#endif
