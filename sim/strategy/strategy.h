/* strategy.h - the training strategies, as a table.
 *
 * A row is the whole contract of a strategy: its name, its check (the one validation pass of a
 * job, before any output), its description (the "# training" lines) and its run, which fills
 * the run record (run.h) that the report module prints, and its own metric rows (NAME_metrics.c,
 * merged with the common ones by metrics.h). main.c looks the scenario's strategy up and calls
 * it; adding a strategy is one file (strategy/NAME.c), its metrics and one row in strategy.c.
 */
#ifndef DMLSIM_STRATEGY_H
#define DMLSIM_STRATEGY_H

#include "job.h"

#include <stdio.h>

struct metric_table;

struct strategy {
    enum strategy_id id; /* as the scenario names it (scenario.h) */
    const char *name; /* in the run record and the JSON: "allreduce", "ps" */
    enum dmlsim_err (*check)(const struct job *j, struct dmlsim_error *err);
    void (*describe)(const struct job *j, FILE *out);
    void (*run)(const struct job *j, struct run_record *rec);
    const struct metric_table *metrics; /* its own metric rows (NAME_metrics.h), or NULL */
};

/* The row of `id`, or NULL (STRAT_NONE). */
const struct strategy *strategy_get(enum strategy_id id);

#endif
