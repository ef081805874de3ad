/* campaign_probe.h - the costs a campaign plays, from dmlsim's own simulation of its scenario.
 *
 * Each distinct configuration is simulated once, as a `dmlsim run` in a child process (SimGrid
 * allows one engine a process), from the scenario's document with the --set overrides applied
 * and these changes:
 *  - the recovery run: one node added to the cluster as the spare (<training gpus> keeps the job
 *    on the first nodes), <checkpoint every="2 steps">, a <recovery> when the scenario has none,
 *    and the job's last node crashed as step 3 starts (sync; step 4 when asynchronous, so the
 *    checkpoint of step 2 has counted): its step rows give the step (row 1) and the
 *    checkpoint's block (row 2 less row 1), and its events the watchdog's detection (the crash
 *    to "failure detected"), the restart (to "restart") and the reload (to "reloaded"); an
 *    asynchronous checkpoint's commit is "checkpoint of step 2 counts" less row 2's end;
 *  - policy shrink: one fault-free step at each data-parallel size the job may fall back to (the
 *    divisors dp' of the global batch's microbatches with dp/2 <= dp' < dp, at most
 *    CAMP_MAX_SHRUNK, largest first: Megatron-LM keeps the global batch, hybrid_recover.h);
 *  - each fail-slow cause: one fault-free step with node0.gpu0 slower by its factor (a
 *    <straggler>).
 * The costs are measured on the job as simulated; nothing is scaled. A run that fails is an
 * error naming its scenario and message.
 */
#ifndef DMLSIM_CAMPAIGN_PROBE_H
#define DMLSIM_CAMPAIGN_PROBE_H

#include "campaign.h"
#include "scenario.h"

#include <stdio.h>

struct camp_probe_opts {
    const char *self;                   /* this program (argv[0]) */
    const char *file;                   /* the scenario */
    const struct scenario_override *ov; /* --set overrides, applied to every run */
    size_t nov;
    const char *calib; /* --calib, or NULL */
    int jobs;          /* runs at a time */
    const char *keep;  /* a folder to keep the runs' files in, or NULL */
};

/* Simulates what sc's campaign needs and fills *costs (its power figures too: the recovery
 * run's gpu_power_w when its JSON has it, else 0). Prints one "# costs" line per run to log.
 * Returns 0, or 1 with the message printed. */
int campaign_probe(const struct camp_probe_opts *o, const struct scenario *sc,
                   struct camp_costs *costs, double *cpu_s, FILE *log);

/* Zoom: one campaign failure as full runs. The scenario as the recovery run has it (a spare
 * node, a <recovery>), `steps` steps with its own checkpoint interval, the job's last node
 * crashed once crash_step steps are done (as the recovery run's crash: at a step's start, so
 * its peers find out by the watchdog, as the campaign's "watchdog" detection has it); and the
 * same without the crash. *cost_s: the first's run time less the second's (what the failure
 * cost in the detailed simulation). Returns 0, or 1 with the message printed. */
int campaign_probe_zoom(const struct camp_probe_opts *o, const struct scenario *sc, int steps,
                        int crash_step, double *cost_s, double *cpu_s);

#endif
