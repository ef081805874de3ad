/* cmd_run.h - `dmlsim run`: one scenario simulated, its configuration and results printed, its
 * output files written.
 *
 * A run loads the scenario (with --set and --unset), checks every output file against the
 * inputs before any work, loads the calibration (--calib, else the scenario's <calib>, else the
 * spec default) and fits its network part, which forks simulations and so comes before
 * simgrid_init; then builds the platform and the fault plan and runs what the scenario holds: the
 * fault plan alone (--fault-plan), a p2p or collective benchmark, or a training (its strategy's
 * one check, then the run, the report, <expect> and the outputs). Every table follows its `#`
 * configuration lines; nothing is printed before the checks pass. On a terminal a run longer
 * than two seconds shows its progress on stderr (never in files or pipes).
 */
#ifndef DMLSIM_CMD_RUN_H
#define DMLSIM_CMD_RUN_H

struct cli_args;

/* dmlsim run FILE [options]: returns the exit status (error.h): 0, 1 bad input, 3 a failed
 * <expect>, 4 a simulated job that failed (unless an <expect> names job_failed). */
int cmd_run_main(const struct cli_args *a);

#endif
