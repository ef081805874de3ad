/* cmd_metrics.h - `dmlsim metrics`: the metric table printed, one row per metric and family.
 *
 * The rows are metric.h's table itself (name, unit, where the text report and the sweep summary
 * show it, meaning), so the listing cannot drift from what <expect> and the JSON summary know.
 */
#ifndef DMLSIM_CMD_METRICS_H
#define DMLSIM_CMD_METRICS_H

/* The metric table (metric.h): what <expect> and the JSON summary know, and what the text and
 * the sweep summary show, on stdout;
 * returns 0. */
int cmd_metrics_main(void);

#endif
