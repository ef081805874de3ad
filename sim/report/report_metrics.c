/* report_metrics.c - the metric list as documents (see report_metrics.h). */
#include "report_metrics.h"

#include "metrics.h"
#include "trace.h"

#include <string.h>

#define SCHEMA_NOTE \
    "generated from the metric tables by `dmlsim metrics schema` (tools/metrics.sh writes it): " \
    "do not edit"

/* The metric table (metrics.h): what <expect> and the JSON summary know, and what the text and
 * the sweep summary show. */
static void write_text(FILE *out)
{
    fprintf(out, "# run metrics: every one is in the JSON summary and usable in <expect metric>\n");
    fprintf(out, "#%-22s %-10s %-12s %-10s %s\n", "name", "unit", "text", "column", "meaning");
    for (size_t i = 0; i < metrics_count(); i++) {
        const struct metric *m = metrics_at(i);
        const char *text = m->text_for == METRIC_ALL         ? "all"
                           : m->text_for == METRIC_ALLREDUCE ? "allreduce"
                           : m->text_for == METRIC_PS        ? "ps"
                                                             : "-";
        fprintf(out, " %-22s %-10s %-12s %-10s %s\n", m->name, m->unit, text,
                m->column ? m->column : "-", m->meaning);
    }
    for (size_t i = 0; i < metrics_family_count(); i++) {
        const struct metric_family *f = metrics_family_at(i);
        char name[48];
        snprintf(name, sizeof name, "%s%s", f->prefix, f->arg);
        fprintf(out, " %-22s %-10s %-12s %-10s %s\n", name, f->unit, "list", "-", f->meaning);
    }
}

/* A JSON list of every row's name, four spaces deeper than `indent`, packed into lines. */
static void write_names(FILE *out, int indent)
{
    int col = 0;
    fprintf(out, "[");
    for (size_t i = 0; i < metrics_count(); i++) {
        const char *name = metrics_at(i)->name;
        int w = (int)strlen(name) + 4; /* "name", */
        if (col == 0 || col + w > 100) {
            fprintf(out, "%s\n%*s", i ? "," : "", indent + 2, "");
            col = indent + 2;
        } else {
            fprintf(out, ", ");
            col += 2;
        }
        fprintf(out, "\"%s\"", name);
        col += w - 2;
    }
    fprintf(out, "\n%*s]", indent, "");
}

/* One row's property of metricValues: its type ($defs name or schema object) and meaning. */
static void write_value(const struct metric *m, FILE *out)
{
    fprintf(out, "        \"%s\": ", m->name);
    if (m->schema[0] == '{') /* an object: its members, then the description */
        fprintf(out, "%.*s, ", (int)strlen(m->schema) - 1, m->schema);
    else
        fprintf(out, "{\"$ref\": \"#/$defs/%s\", ", m->schema);
    fprintf(out, "\"description\": ");
    trace_json_string(out, m->meaning);
    fprintf(out, "}");
}

static void write_schema(FILE *out)
{
    fprintf(out, "    \"metricName\": {\n      \"$comment\": \"%s\",\n      \"enum\": ", SCHEMA_NOTE);
    write_names(out, 6);
    fprintf(out, "\n    },\n    \"metricFamily\": {\n      \"$comment\": \"%s\",\n", SCHEMA_NOTE);
    fprintf(out, "      \"type\": \"string\",\n      \"pattern\": \"^(");
    for (size_t i = 0; i < metrics_family_count(); i++) {
        const struct metric_family *f = metrics_family_at(i);
        fprintf(out, "%s%s", i ? "|" : "", f->prefix);
        for (const char *p = f->pattern ? f->pattern : ".+"; *p; p++) /* a JSON string */
            fprintf(out, *p == '\\' ? "\\\\" : "%c", *p);
    }
    fprintf(out, ")$\"\n    },\n    \"metricValues\": {\n      \"$comment\": \"%s\",\n",
            SCHEMA_NOTE);
    fprintf(out, "      \"properties\": {\n");
    for (size_t i = 0; i < metrics_count(); i++) {
        write_value(metrics_at(i), out);
        fprintf(out, "%s\n", i + 1 < metrics_count() ? "," : "");
    }
    fprintf(out, "      },\n      \"required\": ");
    write_names(out, 6);
    fprintf(out, "\n    }\n  }\n}\n");
}

bool report_metrics(const char *format, FILE *out)
{
    if (strcmp(format, "text") == 0) {
        write_text(out);
    } else if (strcmp(format, "markdown") == 0) {
        fprintf(out, "```\n");
        write_text(out);
        fprintf(out, "```\n");
    } else if (strcmp(format, "schema") == 0) {
        write_schema(out);
    } else {
        return false;
    }
    return true;
}
