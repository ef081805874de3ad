/* cmd_metrics.h - `dmlsim metrics [FORMAT]`: the metric list printed, one row per metric and family.
 *
 * The rows are the merged metric tables themselves (report_metrics.h: the common table and every
 * strategy's own), so the listing, the README's table and the schema's metric part cannot drift
 * from what <expect> and the JSON summary know.
 */
#ifndef DMLSIM_CMD_METRICS_H
#define DMLSIM_CMD_METRICS_H

#include "cmdline.h"

/* The metric list in FORMAT (a->args[0]: text, the default; markdown; schema) on stdout;
 * returns 0, or 1 after a usage error for an unknown FORMAT. */
int cmd_metrics_main(const struct cli_args *a);

#endif
