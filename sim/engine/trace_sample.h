/* trace_sample.h - a trace's counter tracks kept small: a track with more changes than a budget
 * is written as its time-weighted mean over equal intervals.
 *
 * A counter that moves with every message (bytes in flight) changed about 450,000 times in a
 * 25 s run of scenarios/faults.xml, 86% of the trace's events, and made the trace 58 MB: more
 * than a viewer shows at any zoom. Each track keeps every change while it has at most
 * TRACE_COUNTER_MAX of them (samples trained, throughput, accuracy: exact); a track with more is
 * cut into TRACE_COUNTER_MAX equal intervals between its first and last change, and each
 * interval writes one sample at its start, the track's time-weighted mean over it (the counter is
 * a step function: a value holds until the next), unless that equals the sample before; the last
 * change is written as it is. The mean keeps the track's integral (bytes x seconds in flight),
 * which a sample taken at each interval's start would not. Rejected: a change threshold (a track
 * that oscillates by more than it stays as large), and keeping each interval's last value (a
 * burst between two samples vanishes).
 */
#ifndef DMLSIM_TRACE_SAMPLE_H
#define DMLSIM_TRACE_SAMPLE_H

#include <stddef.h>

#define TRACE_COUNTER_MAX 2000 /* changes a counter track keeps exact; intervals beyond */

/* One change of a counter track. */
struct trace_point {
    char name[48];  /* the track */
    double value;   /* from t on */
    long long t_ns; /* when */
    size_t seq;     /* record order (ties at one time) */
};

/* Calls emit(ctx, name, t_ns, value) for the samples to write: track by track (in order of first
 * appearance), each in time order. */
void trace_sample(const struct trace_point *pts, size_t n,
                  void (*emit)(void *ctx, const char *name, long long t_ns, double value),
                  void *ctx);

#endif
