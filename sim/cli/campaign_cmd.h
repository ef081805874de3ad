/* campaign_cmd.h - `dmlsim campaign`: a scenario's <campaign> played over days to months.
 *
 * First the costs (campaign_probe.h: dmlsim runs of the scenario, each distinct configuration
 * once), then `replications` replications of the campaign (campaign.h) over them, each seeded
 * from the scenario's seed and its index. Prints the configuration, the costs, a table of the
 * failure causes (rate, what each did on average: failures, lost work, down time, fail-slow
 * time) and the summary over replications: wall time (to the steps, else the duration), steps
 * and tokens trained, effective training time ratio (ETTR: productive step time / wall time),
 * goodput, where the time went, restarts, GPU-hours, energy and cost, with means, 95%
 * confidence intervals, medians and 90th percentiles; and the checkpoint interval beside
 * Young's and Daly's optima for the job's MTBF and the checkpoint's block.
 * --every LIST and --spares LIST sweep the interval (steps) and the spare nodes over the same
 * replications (common random numbers), print ETTR for each and the best interval per spare
 * count, and write DIR/campaign.csv (a header row) and the plot DIR/campaign.png (plots/campaign.gp).
 * --json FILE writes the summary as JSON (schemas/campaign.schema.json).
 */
#ifndef DMLSIM_CAMPAIGN_CMD_H
#define DMLSIM_CAMPAIGN_CMD_H

struct cli_args;

/* The campaign command; `self` is argv[0]. Returns the exit status. */
int campaign_main(const char *self, const struct cli_args *a);

#endif
