/* strategy.h - the training strategies, as a table.
 *
 * A row is the whole contract of a strategy: its name, the shared services its runs use
 * (runkit.h), its check (the one validation pass of a job, before any output), its description
 * (the "# training" lines), the head of its record (begin: run_init and its configuration
 * lines), its run (its own state and actors), which fills the run record (run.h) that the report
 * module prints, and its own metric rows (NAME_metrics.c, merged with the common ones by
 * metrics.h). The CLI looks the scenario's strategy up and runs it with strategy_run, which sets
 * the services up and tears them down around the row's run; adding a strategy is one file
 * (strategy/NAME.c), its metric rows and one row in strategy.c.
 */
#ifndef DMLSIM_STRATEGY_H
#define DMLSIM_STRATEGY_H

#include "job.h"
#include "runkit.h"

#include <stdio.h>

struct metric_table;

struct strategy {
    enum strategy_id id; /* as the scenario names it (scenario.h) */
    const char *name;    /* in the run record and the JSON: "allreduce", "ps" */
    enum dmlsim_err (*check)(const struct job *j, struct dmlsim_error *err);
    void (*describe)(const struct job *j, FILE *out);
    unsigned uses;                                              /* its services (enum runkit_use) */
    void (*begin)(const struct job *j, struct run_record *rec); /* run_init, configuration */
    void (*run)(struct runkit *kit); /* its state and actors, runkit_simulate, its results */
    const struct metric_table *metrics; /* its own metric rows (NAME_metrics.h), or NULL */
};

/* The row of `id`, or NULL (STRAT_NONE). */
const struct strategy *strategy_get(enum strategy_id id);

/* Runs job j (checked by st->check) with strategy st into rec: st's begin, its services set up
 * (runkit_open), st's run, its services torn down. */
void strategy_run(const struct strategy *st, const struct job *j, struct run_record *rec);

#endif
