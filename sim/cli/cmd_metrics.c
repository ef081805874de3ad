/* cmd_metrics.c - `dmlsim metrics` (see cmd_metrics.h). */
#include "cmd_metrics.h"

#include "report_metrics.h"

#include <stdio.h>

int cmd_metrics_main(const struct cli_args *a)
{
    if (!report_metrics(a->nargs ? a->args[0] : "text", stdout))
        return cli_error(a->cmd, "expected FORMAT text (default), markdown or schema");
    return 0;
}
