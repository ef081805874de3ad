/* sweep_export.h - a sweep's merged table as CSV (--csv) and JSON (--json), for plots and scripts.
 *
 * Both hold one record per grid point, in grid order, with the same fields in the same order:
 * every axis (ELEM.ATTR, its value as given, the one-value axes too), every column of the
 * points' summary (dmlsim run --summary: the metric table's columns, the text table's values
 * verbatim), then `status` (ok, job-failed, expect-failed, refused, error: sweep_grid.h) and
 * `message` (the point's one-line message, "" for an ok point). A point without a summary has
 * empty CSV fields and JSON nulls for the columns.
 *  - CSV (RFC 4180): a header row of the field names, then a row per point; a field holding a
 *    comma, a double quote, a line break or a blank at either end is double-quoted, its quotes
 *    doubled. gnuplot reads it by name: `set datafile separator comma`, `using "samples/s"`.
 *  - JSON (RFC 8259): an array of objects, schemas/sweep.schema.json; an axis value is a string
 *    (values carry units: "2 steps", "25GBps"), a column a number, or null where the text table
 *    has none or a value that is not finite.
 * Rejected: a CSV of the summary's whitespace columns (a value with a blank or a comma breaks
 * it), and JSON numbers for the axes (a value with a unit is no number).
 */
#ifndef DMLSIM_SWEEP_EXPORT_H
#define DMLSIM_SWEEP_EXPORT_H

#include "sweep_grid.h"

#include <stdio.h>

/* What the merged table is made from (sweep_table_print's arguments, as an outfile ctx). */
struct sweep_table {
    const struct sweep *sw; /* the sweep: its axes, and each point's status and message */
    char **rows;            /* per point, its summary values, or NULL: none */
    const char *header;     /* the summary's column names, or NULL: no point gave any */
};

/* The table (ctx: a struct sweep_table) as CSV; an outfile writer (outfile.h). */
void sweep_export_csv(const void *ctx, FILE *out);

/* The table (ctx: a struct sweep_table) as JSON; an outfile writer. */
void sweep_export_json(const void *ctx, FILE *out);

#endif
