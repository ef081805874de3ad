/* trace.h - a Perfetto / Chrome trace of a run: one track per GPU (its compute) and one per GPU's
 * communication, with slices for forward, backward, update, collectives, pulls and pushes, and
 * instant events for faults, recoveries and checkpoints, and counter tracks (test accuracy and
 * loss over time with numerics). Written as Chrome JSON trace format
 * ("traceEvents", times in microseconds), which ui.perfetto.dev and chrome://tracing open.
 * Recording only happens when a trace was asked for (a NULL trace records nothing). */
#ifndef DMLSIM_TRACE_H
#define DMLSIM_TRACE_H

#include <stdio.h>

struct trace;

/* Returns a new, empty trace owned by the caller (trace_free). */
struct trace *trace_new(void);
void trace_free(struct trace *tr);

/* Names a track (e.g. "rank 3 compute (node0.gpu3)"). */
void trace_track(struct trace *tr, int track, const char *name);

/* A slice [t0, t1] on a track; `name` must be a string literal or outlive the trace. */
void trace_slice(struct trace *tr, int track, const char *name, double t0_s, double t1_s);

/* An instant event across the whole run (copied). */
void trace_instant(struct trace *tr, const char *category, const char *text, double t_s);

/* A counter track's value from time t on (`name` is copied, up to 47 characters). */
void trace_counter(struct trace *tr, const char *name, double value, double t_s);

/* Writes the trace as Chrome JSON. */
void trace_write(const struct trace *tr, const char *title, FILE *out);

/* Writes `s` as a JSON string literal (quotes, backslashes and control characters escaped); also
 * serves train_write_json. */
void trace_json_string(FILE *out, const char *s);

#endif
