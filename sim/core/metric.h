/* metric.h - the one table of a run's metrics: name, unit, meaning, and where each is shown.
 *
 * Every figure a run reports is a row here. The text summary prints the rows that have a text
 * label (lines are made of consecutive rows with the same label, each adding its fragment), the
 * sweep summary the rows that have a column; the JSON summary and <expect> take every row. So a
 * metric in the text output is always in the JSON and in <expect> (check_report tests it), and a
 * scenario naming an unknown metric fails at load. Values are read off the run record (run.h)
 * after run_finish.
 */
#ifndef DMLSIM_METRIC_H
#define DMLSIM_METRIC_H

#include "run.h"

#include <stdbool.h>
#include <stddef.h>

/* Strategies whose text summary shows a row: one bit per strategy id (scenario.h). */
#define METRIC_FOR(id)   (1u << (id))
#define METRIC_ALLREDUCE METRIC_FOR(STRAT_ALLREDUCE)
#define METRIC_PS        METRIC_FOR(STRAT_PS)
#define METRIC_HYBRID    METRIC_FOR(STRAT_HYBRID)
#define METRIC_DATA_PARALLEL (METRIC_ALLREDUCE | METRIC_PS) /* every GPU a whole replica */
#define METRIC_ALL       (~0u)

struct metric {
    const char *name;    /* as in <expect metric>, JSON "summary" keys */
    const char *unit;    /* "s", "samples/s", "B", "1" (a count or ratio), ... */
    const char *meaning; /* one line */
    unsigned text_for;   /* METRIC_* strategies whose text summary shows it; 0: none */
    const char *label;   /* text: the line it belongs to ("throughput") */
    const char *text;    /* text: printf fragment for value x scale, e.g. ", mean step %.3f ms" */
    double scale;        /* text and column: shown value = value x scale */
    const char *yes;     /* text for flags: shown instead of the value when it is 1 */
    const char *no;      /* ... and when it is 0 */
    const char *column;  /* sweep summary column, or NULL */
    int col;             /* its position among the columns, 1, 2, ...; 0: none */
    int width, prec;     /* column format: %WIDTH.PRECf */
    double (*get)(const struct run_record *r);
    bool (*shown)(const struct run_record *r); /* text: shown for this record? NULL: yes */
};

/* A family of metrics named PREFIX:ARG (bytes_on:ib-ndr): lists that the text and the JSON show
 * whole, which <expect> takes one entry at a time. */
struct metric_family {
    const char *prefix;  /* "bytes_on:" */
    const char *arg;     /* what follows it, as documented: "CLASS" */
    const char *unit;    /* "B" */
    const char *meaning; /* one line, naming ARG */
    /* false if ARG is not a valid argument; a valid one absent from this run is 0 */
    bool (*get)(const struct run_record *r, const char *arg, double *out);
};

size_t metric_count(void);
const struct metric *metric_at(size_t i);

/* The row called `name`, or NULL. */
const struct metric *metric_find(const char *name);

size_t metric_family_count(void);
const struct metric_family *metric_family_at(size_t i);

/* Is `name` a metric or a valid member of a family? */
bool metric_known(const char *name);

/* The value of metric `name` (a row or a family member) in `r`; false if unknown. */
bool metric_value(const char *name, const struct run_record *r, double *out);

/* "a, b, c": every metric name, then the families ("bytes_on:CLASS"). Static storage. */
const char *metric_names(void);

/* Which METRIC_* bit a record's strategy is. */
unsigned metric_strategy_bit(const struct run_record *r);

#endif
