/* trace.c - Chrome / Perfetto trace recording and output (see trace.h). */
#include "trace.h"

#include <xbt/sysdep.h>

#include <stdlib.h>
#include <string.h>

struct slice {
    int track;
    const char *name;
    double t0_s, t1_s;
};

struct instant {
    char category[16];
    char text[96];
    double t_s;
};

struct counter {
    char name[48]; /* the track */
    double value, t_s;
};

struct trace {
    struct counter *counters;
    size_t ncounters, ccap;
    struct slice *slices;
    size_t nslices, cap;
    struct instant *instants;
    size_t ninstants, icap;
    char (*tracks)[96];
    int ntracks;
};

struct trace *trace_new(void)
{
    return xbt_new0(struct trace, 1);
}

void trace_free(struct trace *tr)
{
    if (tr == NULL) return;
    free(tr->slices);
    free(tr->counters);
    free(tr->instants);
    free(tr->tracks);
    free(tr);
}

void trace_track(struct trace *tr, int track, const char *name)
{
    if (tr == NULL || track < 0) return;
    if (track >= tr->ntracks) {
        tr->tracks = xbt_realloc(tr->tracks, (size_t)(track + 1) * sizeof *tr->tracks);
        for (int i = tr->ntracks; i <= track; i++)
            tr->tracks[i][0] = '\0';
        tr->ntracks = track + 1;
    }
    snprintf(tr->tracks[track], sizeof tr->tracks[0], "%s", name);
}

void trace_slice(struct trace *tr, int track, const char *name, double t0_s, double t1_s)
{
    if (tr == NULL || t1_s < t0_s) return;
    if (tr->nslices == tr->cap) {
        tr->cap = tr->cap ? 2 * tr->cap : 1024;
        tr->slices = xbt_realloc(tr->slices, tr->cap * sizeof *tr->slices);
    }
    tr->slices[tr->nslices++] = (struct slice){track, name, t0_s, t1_s};
}

void trace_instant(struct trace *tr, const char *category, const char *text, double t_s)
{
    if (tr == NULL) return;
    if (tr->ninstants == tr->icap) {
        tr->icap = tr->icap ? 2 * tr->icap : 64;
        tr->instants = xbt_realloc(tr->instants, tr->icap * sizeof *tr->instants);
    }
    struct instant *in = &tr->instants[tr->ninstants++];
    snprintf(in->category, sizeof in->category, "%s", category);
    snprintf(in->text, sizeof in->text, "%s", text);
    in->t_s = t_s;
}

void trace_counter(struct trace *tr, const char *name, double value, double t_s)
{
    if (tr == NULL) return;
    if (tr->ncounters == tr->ccap) {
        tr->ccap = tr->ccap ? 2 * tr->ccap : 64;
        tr->counters = xbt_realloc(tr->counters, tr->ccap * sizeof *tr->counters);
    }
    struct counter *c = &tr->counters[tr->ncounters++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->value = value;
    c->t_s = t_s;
}

void trace_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", *s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

void trace_write(const struct trace *tr, const char *title, FILE *out)
{
    fprintf(out, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    fprintf(out, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args\": {\"name\": ");
    trace_json_string(out, title);
    fprintf(out, "}}");
    for (int t = 0; t < tr->ntracks; t++) {
        if (tr->tracks[t][0] == '\0') continue;
        fprintf(out,
                ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": %d, "
                "\"args\": {\"name\": ",
                t);
        trace_json_string(out, tr->tracks[t]);
        fprintf(out,
                "}},\n{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": 0, "
                "\"tid\": %d, \"args\": {\"sort_index\": %d}}",
                t, t);
    }
    for (size_t i = 0; i < tr->nslices; i++) {
        const struct slice *s = &tr->slices[i];
        fprintf(out, ",\n{\"ph\": \"X\", \"pid\": 0, \"tid\": %d, \"name\": ", s->track);
        trace_json_string(out, s->name);
        fprintf(out, ", \"ts\": %.3f, \"dur\": %.3f}", s->t0_s * 1e6, (s->t1_s - s->t0_s) * 1e6);
    }
    for (size_t i = 0; i < tr->ninstants; i++) {
        const struct instant *in = &tr->instants[i];
        fprintf(out, ",\n{\"ph\": \"i\", \"s\": \"g\", \"pid\": 0, \"tid\": 0, \"cat\": ");
        trace_json_string(out, in->category);
        fprintf(out, ", \"name\": ");
        trace_json_string(out, in->text);
        fprintf(out, ", \"ts\": %.3f}", in->t_s * 1e6);
    }
    for (size_t i = 0; i < tr->ncounters; i++) { /* Chrome's counter events: ph "C" */
        const struct counter *c = &tr->counters[i];
        fprintf(out, ",\n{\"ph\": \"C\", \"pid\": 0, \"name\": ");
        trace_json_string(out, c->name);
        fprintf(out, ", \"ts\": %.3f, \"args\": {\"value\": %.9g}}", c->t_s * 1e6, c->value);
    }
    fprintf(out, "\n]}\n");
}
