/* report_metrics.h - the metric list as documents: `dmlsim metrics`, the README's table, the schema.
 *
 * Three views of the merged metric list (metrics.h), so that no document keeps a copy of it by
 * hand: the text listing (name, unit, where the text shows it, sweep column, meaning), the same
 * as the README's fenced block (between <!-- metrics:begin --> and <!-- metrics:end -->), and the
 * metric part of schemas/run.schema.json: its $defs metricName (every row's name), metricFamily
 * (the family names' pattern) and metricValues (each row's JSON type and meaning, all required),
 * which end the file. tests/metrics.sh fails when either file drifts from these; tools/metrics.sh
 * rewrites them.
 */
#ifndef DMLSIM_REPORT_METRICS_H
#define DMLSIM_REPORT_METRICS_H

#include <stdbool.h>
#include <stdio.h>

/* Writes the view `format` names: "text", "markdown" or "schema" (the tail of
 * schemas/run.schema.json, from its metricName line to the end); false for another name. */
bool report_metrics(const char *format, FILE *out);

#endif
