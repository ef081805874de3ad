/* trace.c - Chrome / Perfetto trace recording and output (see trace.h). */
#include "trace.h"

#include "trace_sample.h"

#include <xbt/sysdep.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct slice {
    int track;              /* numbered track */
    const char *name;       /* a literal */
    long long t0_ns, t1_ns; /* begin, end */
    struct trace_args args; /* what it did (TRACE_ARGS: nothing said) */
};

struct span {
    char group[32];         /* the named track */
    char name[96];          /* what it was */
    long long t0_ns, t1_ns; /* begin, end */
};

struct instant {
    char category[16];
    char text[96];
    long long t_ns; /* when */
};

struct trace {
    struct trace_point *counters; /* every change, in record order */
    size_t ncounters, ccap;
    struct slice *slices;
    size_t nslices, cap;
    struct span *spans;
    size_t nspans, scap;
    struct instant *instants;
    size_t ninstants, icap;
    char (*tracks)[96]; /* names of the numbered tracks ("" unnamed) */
    int ntracks;        /* tracks named */
    int top;            /* 1 + the largest numbered track a slice used */
};

/* A named track's lane: the slices laid on it that are still open, innermost last. */
struct lane {
    int group;         /* index of its group in the layout */
    int nth;           /* its number in the group, from 1 */
    long long *open;   /* ends, outermost first */
    size_t nopen, cap; /* open slices, room */
};

/* Where trace_write puts the spans: their order and lanes. */
struct layout {
    const char **groups; /* distinct groups, in order of first use */
    int ngroups;
    struct lane *lanes;
    int nlanes;
    size_t *order; /* span indices: group, begin, longer first, record order */
    int *lane_of;  /* per span index */
};

/* The one conversion from the clock's seconds: every time written comes from these integers. */
static long long ns_of(double t_s)
{
    return llround(t_s * 1e9);
}

struct trace *trace_new(void)
{
    return xbt_new0(struct trace, 1);
}

void trace_free(struct trace *tr)
{
    if (tr == NULL) return;
    free(tr->slices);
    free(tr->spans);
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

/* arr with room for one more element of `size` beyond its n (capacity *cap, doubled when full,
 * `first` at first). */
static void *grow(void *arr, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap) return arr;
    *cap = *cap ? 2 * *cap : first;
    return xbt_realloc(arr, *cap * size);
}

void trace_slice_args(struct trace *tr, int track, const char *name, double t0_s, double t1_s,
                      struct trace_args args)
{
    if (tr == NULL || t1_s < t0_s) return;
    tr->slices = grow(tr->slices, &tr->cap, tr->nslices, sizeof *tr->slices, 1024);
    tr->slices[tr->nslices++] = (struct slice){track, name, ns_of(t0_s), ns_of(t1_s), args};
    if (track >= tr->top) tr->top = track + 1;
}

void trace_slice(struct trace *tr, int track, const char *name, double t0_s, double t1_s)
{
    trace_slice_args(tr, track, name, t0_s, t1_s, TRACE_ARGS);
}

void trace_span(struct trace *tr, const char *group, const char *name, double t0_s, double t1_s)
{
    if (tr == NULL || t1_s < t0_s) return;
    tr->spans = grow(tr->spans, &tr->scap, tr->nspans, sizeof *tr->spans, 64);
    struct span *s = &tr->spans[tr->nspans++];
    snprintf(s->group, sizeof s->group, "%s", group);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->t0_ns = ns_of(t0_s);
    s->t1_ns = ns_of(t1_s);
}

void trace_instant(struct trace *tr, const char *category, const char *text, double t_s)
{
    if (tr == NULL) return;
    tr->instants = grow(tr->instants, &tr->icap, tr->ninstants, sizeof *tr->instants, 64);
    struct instant *in = &tr->instants[tr->ninstants++];
    snprintf(in->category, sizeof in->category, "%s", category);
    snprintf(in->text, sizeof in->text, "%s", text);
    in->t_ns = ns_of(t_s);
}

void trace_counter(struct trace *tr, const char *name, double value, double t_s)
{
    if (tr == NULL) return;
    long long t_ns = ns_of(t_s);
    struct trace_point *last = tr->ncounters ? &tr->counters[tr->ncounters - 1] : NULL;
    if (last && last->t_ns == t_ns && strncmp(last->name, name, sizeof last->name - 1) == 0) {
        last->value = value; /* several changes at one time: the counter's value after them */
        return;
    }
    tr->counters = grow(tr->counters, &tr->ccap, tr->ncounters, sizeof *tr->counters, 64);
    struct trace_point *c = &tr->counters[tr->ncounters];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->value = value;
    c->t_ns = t_ns;
    c->seq = tr->ncounters++;
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

/* Nanoseconds as the format's microseconds, exactly: "12.345" for 12345 ns. */
static void put_us(FILE *out, long long ns)
{
    if (ns < 0) fputc('-', out);
    unsigned long long a = ns < 0 ? -(unsigned long long)ns : (unsigned long long)ns;
    fprintf(out, "%llu.%03llu", a / 1000, a % 1000);
}

static int group_of(struct layout *l, const char *group)
{
    for (int g = 0; g < l->ngroups; g++)
        if (strcmp(l->groups[g], group) == 0) return g;
    l->groups[l->ngroups] = group;
    return l->ngroups++;
}

/* Sort keys of the spans: group, begin, longer first (a parent before what nests in it), then
 * record order. */
struct span_key {
    int group;
    long long t0_ns, t1_ns;
    size_t i;
};

static int by_group_time(const void *x, const void *y)
{
    const struct span_key *a = x, *b = y;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->t0_ns != b->t0_ns) return a->t0_ns < b->t0_ns ? -1 : 1;
    if (a->t1_ns != b->t1_ns) return a->t1_ns > b->t1_ns ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Does [t0, t1] go on lane `ln` (whose slices ending by t0 are closed first)? */
static bool lane_takes(struct lane *ln, long long t0_ns, long long t1_ns)
{
    while (ln->nopen > 0 && ln->open[ln->nopen - 1] <= t0_ns)
        ln->nopen--;
    return ln->nopen == 0 || ln->open[ln->nopen - 1] >= t1_ns;
}

static void lane_push(struct lane *ln, long long t1_ns)
{
    if (ln->nopen == ln->cap) {
        ln->cap = ln->cap ? 2 * ln->cap : 8;
        ln->open = xbt_realloc(ln->open, ln->cap * sizeof *ln->open);
    }
    ln->open[ln->nopen++] = t1_ns;
}

/* Lays the spans out on lanes (see trace.h); release with layout_release. */
static void layout_spans(const struct trace *tr, struct layout *l)
{
    size_t n = tr->nspans;
    struct span_key *keys = xbt_new0(struct span_key, n + 1);
    l->groups = xbt_new0(const char *, n + 1);
    l->order = xbt_new0(size_t, n + 1);
    l->lane_of = xbt_new0(int, n + 1);
    l->lanes = xbt_new0(struct lane, n + 1); /* at most a lane per span */
    for (size_t i = 0; i < n; i++) {
        const struct span *s = &tr->spans[i];
        keys[i] = (struct span_key){group_of(l, s->group), s->t0_ns, s->t1_ns, i};
    }
    qsort(keys, n, sizeof *keys, by_group_time);
    for (size_t k = 0; k < n; k++) {
        int ln = 0, nth = 1;
        for (; ln < l->nlanes; ln++) {
            if (l->lanes[ln].group != keys[k].group) continue;
            nth++;
            if (lane_takes(&l->lanes[ln], keys[k].t0_ns, keys[k].t1_ns)) break;
        }
        if (ln == l->nlanes) l->lanes[l->nlanes++] = (struct lane){keys[k].group, nth, NULL, 0, 0};
        lane_push(&l->lanes[ln], keys[k].t1_ns);
        l->order[k] = keys[k].i;
        l->lane_of[keys[k].i] = ln;
    }
    free(keys);
}

static void layout_release(struct layout *l)
{
    for (int i = 0; i < l->nlanes; i++)
        free(l->lanes[i].open);
    free(l->lanes);
    free(l->groups);
    free(l->order);
    free(l->lane_of);
}

static void write_track_name(FILE *out, int tid, const char *name)
{
    fprintf(out,
            ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": %d, \"ts\": 0, "
            "\"args\": {\"name\": ",
            tid);
    trace_json_string(out, name);
    fprintf(out,
            "}},\n{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": 0, \"tid\": %d, "
            "\"ts\": 0, \"args\": {\"sort_index\": %d}}",
            tid, tid);
}

static void write_tracks(const struct trace *tr, const struct layout *l, int base, FILE *out)
{
    for (int t = 0; t < tr->ntracks; t++)
        if (tr->tracks[t][0] != '\0') write_track_name(out, t, tr->tracks[t]);
    for (int i = 0; i < l->nlanes; i++) {
        char name[48];
        if (l->lanes[i].nth > 1)
            snprintf(name, sizeof name, "%s %d", l->groups[l->lanes[i].group], l->lanes[i].nth);
        else
            snprintf(name, sizeof name, "%s", l->groups[l->lanes[i].group]);
        write_track_name(out, base + i, name);
    }
}

/* Opens the "args" object before its first field, or separates the next one. */
static void arg_key(FILE *out, bool *open, const char *key)
{
    fprintf(out, "%s\"%s\": ", *open ? ", " : ", \"args\": {", key);
    *open = true;
}

/* A slice's "args": the fields of a that are set (none: nothing written). */
static void write_args(FILE *out, const struct trace_args *a)
{
    bool open = false;
    if (a->bytes >= 0) {
        arg_key(out, &open, "bytes");
        fprintf(out, "%.0f", a->bytes);
    }
    if (a->algo != NULL) {
        arg_key(out, &open, "algorithm");
        trace_json_string(out, a->algo);
    }
    if (a->step > 0) {
        arg_key(out, &open, "step");
        fprintf(out, "%d", a->step);
    }
    if (a->microbatch >= 0) {
        arg_key(out, &open, "microbatch");
        fprintf(out, "%d", a->microbatch);
    }
    if (a->chunk >= 0) {
        arg_key(out, &open, "chunk");
        fprintf(out, "%d", a->chunk);
    }
    if (a->layer_last > a->layer_first) {
        arg_key(out, &open, "layers");
        fprintf(out, "\"%d-%d\"", a->layer_first, a->layer_last - 1);
    }
    if (a->peer >= 0) {
        arg_key(out, &open, "peer");
        fprintf(out, "%d", a->peer);
    }
    if (open) fputc('}', out);
}

static void write_x(FILE *out, int tid, const char *name, long long t0_ns, long long t1_ns,
                    const struct trace_args *a)
{
    fprintf(out, ",\n{\"ph\": \"X\", \"pid\": 0, \"tid\": %d, \"name\": ", tid);
    trace_json_string(out, name);
    fprintf(out, ", \"ts\": ");
    put_us(out, t0_ns);
    fprintf(out, ", \"dur\": ");
    put_us(out, t1_ns - t0_ns);
    if (a != NULL) write_args(out, a);
    fputc('}', out);
}

/* One counter sample (trace_sample's emit): Chrome's counter event, ph "C". */
static void write_counter(void *ctx, const char *name, long long t_ns, double value)
{
    FILE *out = ctx;
    fprintf(out, ",\n{\"ph\": \"C\", \"pid\": 0, \"tid\": 0, \"name\": ");
    trace_json_string(out, name);
    fprintf(out, ", \"ts\": ");
    put_us(out, t_ns);
    if (value == floor(value) && fabs(value) < 1e15) /* bytes, samples: exact */
        fprintf(out, ", \"args\": {\"value\": %.0f}}", value);
    else
        fprintf(out, ", \"args\": {\"value\": %.9g}}", value);
}

static void write_marks(const struct trace *tr, FILE *out)
{
    for (size_t i = 0; i < tr->ninstants; i++) {
        const struct instant *in = &tr->instants[i];
        fprintf(out, ",\n{\"ph\": \"i\", \"s\": \"g\", \"pid\": 0, \"tid\": 0, \"cat\": ");
        trace_json_string(out, in->category);
        fprintf(out, ", \"name\": ");
        trace_json_string(out, in->text);
        fprintf(out, ", \"ts\": ");
        put_us(out, in->t_ns);
        fputc('}', out);
    }
    trace_sample(tr->counters, tr->ncounters, write_counter, out);
}

void trace_write(const struct trace *tr, const char *title, FILE *out)
{
    struct layout l = {0};
    layout_spans(tr, &l);
    int base = tr->ntracks > tr->top ? tr->ntracks : tr->top; /* the named tracks' first */
    fprintf(out, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    fprintf(out, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"tid\": 0, \"ts\": 0, "
                 "\"args\": {\"name\": ");
    trace_json_string(out, title);
    fprintf(out, "}}");
    write_tracks(tr, &l, base, out);
    for (size_t i = 0; i < tr->nslices; i++) {
        const struct slice *s = &tr->slices[i];
        write_x(out, s->track, s->name, s->t0_ns, s->t1_ns, &s->args);
    }
    for (size_t k = 0; k < tr->nspans; k++) {
        const struct span *s = &tr->spans[l.order[k]];
        write_x(out, base + l.lane_of[l.order[k]], s->name, s->t0_ns, s->t1_ns, NULL);
    }
    write_marks(tr, out);
    fprintf(out, "\n]}\n");
    layout_release(&l);
}
