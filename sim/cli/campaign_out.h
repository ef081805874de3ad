/* campaign_out.h - what `dmlsim campaign` prints and writes: its header, the cause table, the
 * summary over replications, the JSON, and the sweep of intervals and spares with its plot
 * (internal to campaign*.c; campaign_cmd.h says what each holds). */
#ifndef DMLSIM_CAMPAIGN_OUT_H
#define DMLSIM_CAMPAIGN_OUT_H

#include "campaign.h"
#include "campaign_stats.h"
#include "scenario.h"

#include <stdio.h>

#define CAMP_OUT_MAX_AXIS 64 /* values of --every or --spares */

struct camp_opts {
    const char *file;             /* the scenario */
    struct scenario_override *ov; /* --set overrides */
    char **keys;                  /* their ELEM.ATTR parts (owned) */
    const char **sets;            /* the options as given */
    size_t nov;
    const char *calib; /* --calib, or NULL */
    const char *json;  /* --json FILE, or NULL */
    const char *keep;  /* --keep-runs DIR, or NULL */
    const char *costs; /* --costs FILE: an earlier campaign's --json, or NULL */
    int jobs;          /* runs at a time */
    int replications;  /* --replications (0: the scenario's) */
    int zoom;          /* --zoom K: replay failure K of replication 1 (0: none) */
    double price;      /* --price: currency per GPU-hour (0: none) */
    double pue;        /* --pue: facility / IT power (default 1) */
    int every[CAMP_OUT_MAX_AXIS], nevery;   /* --every: intervals (steps) to sweep */
    int spares[CAMP_OUT_MAX_AXIS], nspares; /* --spares: spare nodes to sweep */
    char out[1024];                         /* -o: the sweep's folder (default campaign-NAME) */
};

/* The "# campaign", "# job" and "# failures" lines. */
void campaign_out_header(FILE *out, const struct camp_opts *o, const struct scenario *sc,
                         const struct camp_config *cfg);

/* Sets costs' idle power from the GPU's catalog row and prints the "# power" line. */
void campaign_out_power(FILE *out, const struct scenario *sc, struct camp_costs *costs);

/* Plays the replications, prints the cause table and the summary, writes --json, and runs and
 * prints the sweep when asked. Returns the exit status (1: an output could not be written). */
int campaign_out_all(FILE *out, const struct camp_opts *o, const struct scenario *sc,
                     const struct camp_config *cfg, const struct camp_costs *costs);

/* Runs cfg's replications into reps (cfg->replications of them) and aggregates them. */
void campaign_play(const struct camp_config *cfg, const struct camp_costs *costs,
                   struct camp_rep *reps, struct camp_agg *agg);

#endif
