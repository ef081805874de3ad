/* cmd_metrics.c - `dmlsim metrics` (see cmd_metrics.h). */
#include "cmd_metrics.h"

#include "metric.h"

#include <stdio.h>

int cmd_metrics_main(void)
{
    printf("# run metrics: every one is in the JSON summary and usable in <expect metric>\n");
    printf("#%-22s %-10s %-12s %-10s %s\n", "name", "unit", "text", "column", "meaning");
    for (size_t i = 0; i < metric_count(); i++) {
        const struct metric *m = metric_at(i);
        const char *text = m->text_for == METRIC_ALL         ? "all"
                           : m->text_for == METRIC_ALLREDUCE ? "allreduce"
                           : m->text_for == METRIC_PS        ? "ps"
                                                             : "-";
        printf(" %-22s %-10s %-12s %-10s %s\n", m->name, m->unit, text, m->column ? m->column : "-",
               m->meaning);
    }
    for (size_t i = 0; i < metric_family_count(); i++) {
        const struct metric_family *f = metric_family_at(i);
        char name[48];
        snprintf(name, sizeof name, "%s%s", f->prefix, f->arg);
        printf(" %-22s %-10s %-12s %-10s %s\n", name, f->unit, "list", "-", f->meaning);
    }
    return 0;
}
