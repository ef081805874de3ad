/* metric.h - a run's metrics as table rows: name, unit, meaning, JSON type, where each is shown.
 *
 * Every figure a run reports is a row of a metric table. The common table (metric.c) holds what
 * every strategy's record has (time, steps, samples, accounting, faults, the input pipeline,
 * numerics); each strategy declares its own rows in its own file (sim/strategy/NAME_metrics.c),
 * named by its row of the strategy table (strategy.h), and the strategy layer merges them all
 * (metrics.h) by `order`. So adding a strategy's metric is one row in that strategy's file.
 *
 * The text summary prints the rows shown for the record's strategy: a row with a label starts a
 * line, a row without one adds its fragment to the line being printed; the line's first row says
 * what follows it (METRIC_LINE_*). The sweep summary prints the rows that have a column; the
 * JSON summary and <expect> take every row, of every strategy (0 where it does not apply), and
 * `dmlsim metrics schema` writes the metric part of schemas/run.schema.json from them. So a
 * metric in the text output is always in the JSON and in <expect> (check_report tests it), and a
 * scenario naming an unknown metric fails before its run (expect_validate). Values are read off
 * the run record (run.h) after run_finish: a strategy's rows read its own part of it (`own`,
 * declared in its NAME_metrics.h), and give 0 for a record without one.
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

/* What a text line is, said by its first row: bits. */
enum metric_line {
    METRIC_LINE_IDENTITY = 1u << 0,      /* an accounting identity: a total, then its terms */
    METRIC_LINE_KERNELS = 1u << 1,       /* followed by the compute breakdown by kernel class */
    METRIC_LINE_LINK_CLASSES = 1u << 2,  /* ... by the bytes on each link class */
    METRIC_LINE_INPUT = 1u << 3,         /* ... by the input stages and resources */
    METRIC_LINE_GROUP_CLASSES = 1u << 4, /* ... by each hybrid group's bytes per link class */
    METRIC_LINE_STALENESS = 1u << 5,     /* ... by the PS staleness histogram */
    METRIC_LINE_ELASTIC = 1u << 6,       /* ... by the elastic note (a smaller last membership) */
};

struct metric {
    const char *name;    /* as in <expect metric>, JSON "summary" keys */
    const char *unit;    /* "s", "samples/s", "B", "1" (a count or ratio), ... */
    const char *meaning; /* one line */
    int order;           /* its place among the rows of every table (text, JSON, `dmlsim
                            metrics`): unique; the tables merge by it */
    const char *schema;  /* its JSON value: a $defs name of schemas/run.schema.json ("count",
                            "nonneg", "fraction", "flag") or a schema object ("{...}") */
    unsigned text_for;   /* METRIC_* strategies whose text summary shows it; 0: none */
    const char *label;   /* text: starts a line with this label; NULL: adds to the current one */
    unsigned line;       /* a line's first row: enum metric_line bits */
    const char *text;    /* text: printf fragment for value x scale, e.g. ", mean step %.3f ms" */
    double scale;        /* text: shown value = value x scale */
    const char *yes;     /* text for flags: shown instead of the value when it is 1 */
    const char *no;      /* ... and when it is 0 */
    const char *column;  /* sweep summary column, or NULL */
    int col;             /* its position among the columns, 1, 2, ...; 0: none */
    int width, prec;     /* column format: %WIDTH.PRECf */
    double col_scale;    /* column: shown value = value x col_scale (1e3: a *_ms column of
                            seconds); 0: x 1 */
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
    int order;           /* its place among every table's families */
    const char *pattern; /* what may follow the prefix, as a JSON schema regex; NULL: ".+" */
    /* false if ARG is not a valid argument; a valid one absent from this run is 0 */
    bool (*get)(const struct run_record *r, const char *arg, double *out);
};

/* A table of rows and families: the common one, or a strategy's own. */
struct metric_table {
    const struct metric *rows;             /* in order */
    size_t nrows;
    const struct metric_family *families; /* in order */
    size_t nfamilies;
};

/* The common table: the metrics of every strategy's record. */
const struct metric_table *metric_common(void);

/* The metric table of a record's strategy bit (METRIC_*). */
unsigned metric_strategy_bit(const struct run_record *r);

#endif
