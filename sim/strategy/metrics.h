/* metrics.h - every run metric: the common table and each strategy's own, merged in one order.
 *
 * The common rows (metric.h) and each strategy's (the `metrics` of its row of the strategy
 * table, strategy.h) merge by their `order` into one list, built once: the text summary, the
 * JSON summary, the sweep columns, <expect> and `dmlsim metrics` all read this list, so a row
 * added to any table is in every view. Families (bytes_on:CLASS) merge the same way. Rows and
 * families are named once across all tables (asserted when the list is built).
 */
#ifndef DMLSIM_METRICS_H
#define DMLSIM_METRICS_H

#include "metric.h"

#include <stdbool.h>
#include <stddef.h>

size_t metrics_count(void);
/* Row i of the merged list (0 <= i < metrics_count()), in order; NULL past the end. */
const struct metric *metrics_at(size_t i);

/* The row called `name`, or NULL. */
const struct metric *metrics_find(const char *name);

size_t metrics_family_count(void);
const struct metric_family *metrics_family_at(size_t i);

/* Is `name` a metric or a valid member of a family? */
bool metrics_known(const char *name);

/* The value of metric `name` (a row or a family member) in `r`; false if unknown. */
bool metrics_value(const char *name, const struct run_record *r, double *out);

/* "a, b, c": every metric name, then the families ("bytes_on:CLASS"). Static storage. */
const char *metrics_names(void);

#endif
