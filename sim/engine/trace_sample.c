/* trace_sample.c - counter tracks kept small (trace_sample.h). */
#include "trace_sample.h"

#include <xbt/sysdep.h>

#include <stdlib.h>
#include <string.h>

/* Sort key: the track's first appearance, then time, then record order. */
struct point_key {
    size_t track, i;
};

static const struct trace_point *sort_pts; /* qsort has no context argument */

static int by_track_time(const void *x, const void *y)
{
    const struct point_key *a = x, *b = y;
    if (a->track != b->track) return a->track < b->track ? -1 : 1;
    const struct trace_point *p = &sort_pts[a->i], *q = &sort_pts[b->i];
    if (p->t_ns != q->t_ns) return p->t_ns < q->t_ns ? -1 : 1;
    return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* The time-weighted mean of the step function of pts[k[0..n)] over [a, b); *at: the index of
 * the point that holds at a, advanced to the one that holds at b. */
static double mean_over(const struct trace_point *pts, const struct point_key *k, size_t n,
                        size_t *at, long long a, long long b)
{
    double sum = 0;
    long long t = a;
    size_t i = *at;
    while (t < b) {
        long long next = i + 1 < n ? pts[k[i + 1].i].t_ns : b;
        long long end = next < b ? next : b;
        sum += pts[k[i].i].value * (double)(end - t);
        t = end;
        if (next <= b && i + 1 < n)
            i++;
        else
            break;
    }
    *at = i;
    return sum / (double)(b - a);
}

/* One track, pts[k[0..n)] in time order: every change, or its means over intervals. */
static void emit_track(const struct trace_point *pts, const struct point_key *k, size_t n,
                       void (*emit)(void *, const char *, long long, double), void *ctx)
{
    const char *name = pts[k[0].i].name;
    long long t0 = pts[k[0].i].t_ns, t1 = pts[k[n - 1].i].t_ns;
    if (n <= TRACE_COUNTER_MAX || t1 - t0 < TRACE_COUNTER_MAX) {
        for (size_t j = 0; j < n; j++)
            emit(ctx, name, pts[k[j].i].t_ns, pts[k[j].i].value);
        return;
    }
    size_t at = 0;
    double prev = 0;
    for (long long m = 0; m < TRACE_COUNTER_MAX; m++) {
        long long a = t0 + (t1 - t0) * m / TRACE_COUNTER_MAX;
        long long b = t0 + (t1 - t0) * (m + 1) / TRACE_COUNTER_MAX;
        double v = mean_over(pts, k, n, &at, a, b);
        if (m == 0 || v != prev) emit(ctx, name, a, v);
        prev = v;
    }
    emit(ctx, name, t1, pts[k[n - 1].i].value);
}

void trace_sample(const struct trace_point *pts, size_t n,
                  void (*emit)(void *ctx, const char *name, long long t_ns, double value),
                  void *ctx)
{
    if (n == 0) return;
    struct point_key *k = xbt_new0(struct point_key, n);
    const char **names = xbt_new0(const char *, n); /* the tracks, in order of first appearance */
    size_t ntracks = 0;
    for (size_t i = 0; i < n; i++) {
        size_t t = i > 0 ? k[i - 1].track : 0; /* most changes follow one of their track */
        if (t < ntracks && strcmp(names[t], pts[i].name) != 0) t = 0;
        while (t < ntracks && strcmp(names[t], pts[i].name) != 0)
            t++;
        if (t == ntracks) names[ntracks++] = pts[i].name;
        k[i] = (struct point_key){t, i};
    }
    sort_pts = pts;
    qsort(k, n, sizeof *k, by_track_time);
    for (size_t j = 0, end; j < n; j = end) {
        for (end = j + 1; end < n && k[end].track == k[j].track; end++)
            ;
        emit_track(pts, k + j, end - j, emit, ctx);
    }
    free(names);
    free(k);
}
