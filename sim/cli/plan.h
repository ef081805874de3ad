/* plan.h - `dmlsim plan`: the fastest layouts of a hybrid scenario that fit, found by enumerating
 * them, ranking them by a first-order estimate and simulating the best few.
 *
 * The scenario gives the cluster, the model, the global batch (dp x microbatches x batch-per-gpu
 * sequences) and everything else (dtype, optimizer, algorithm, level, faults); plan_space.h
 * enumerates the layouts and sets aside those that do not divide or fit, counted by reason;
 * plan_est.h ranks the rest; the best --top K (default 8) are simulated in child processes, -j at
 * a time, as a sweep's points (each a `dmlsim run` of the scenario with the layout's --set
 * overrides: sweep.h), and ranked by their simulated step. With --under FILE (a file holding a
 * <faults> element) the K are simulated again with those faults and ranked by that step, so
 * the choice holds up under a crash or a straggler. Written to -o DIR (default plan-NAME): each
 * ranked layout's scenario (DIR/rank-K.xml: the scenario with its <parallel> and batch-per-gpu
 * set), the table (DIR/plan.txt), the plot's data (DIR/plan.csv, a header row) and, when gnuplot is on the
 * PATH, DIR/plan.png drawn by plots/plan.gp.
 */
#ifndef DMLSIM_PLAN_H
#define DMLSIM_PLAN_H

struct cli_args;

/* dmlsim plan FILE.xml [options]; `self` is argv[0]. Returns the exit status. */
int plan_main(const char *self, const struct cli_args *a);

#endif
