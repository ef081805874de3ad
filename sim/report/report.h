/* report.h - every output of a training run, from its run record (run.h) and the metric table
 * (metrics.h): the text report on stdout, the CSV of the events log, the JSON, the one-line
 * summary that sweeps merge, and the Perfetto trace.
 *
 * Text: the per-step table (one row per step row of the log: its time, compute, exposed time and
 * samples/s = its samples / its time), then "# summary" with one line per labelled metric row
 * shown for the strategy (the unlabelled rows after it add to its line, and its METRIC_LINE_*
 * bits say which lists follow), then the shard table of a parameter-server run. CSV: the whole events log in time order, steps with
 * their figures and faults, recoveries and checkpoints with their description. JSON: the
 * configuration, the step rows, the events, and "summary" with every metric of the table.
 */
#ifndef DMLSIM_REPORT_H
#define DMLSIM_REPORT_H

#include "error.h"
#include "model.h"
#include "provenance.h"
#include "run.h"
#include "scenario.h"

#include <stddef.h>
#include <stdio.h>

void report_text(const struct run_record *rec, FILE *out);
/* The CSV opens with pv's "# key: value" lines, the JSON with its "provenance" object. */
void report_csv(const struct provenance *pv, const struct run_record *rec, FILE *out);
void report_json(const struct scenario *sc, const struct model *m, const struct run_record *rec,
                 const struct provenance *pv, FILE *out);
void report_summary(const struct run_record *rec, FILE *out);
void report_trace(const struct scenario *sc, const struct run_record *rec, FILE *out);

#endif
