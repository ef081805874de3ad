/* trace.h - a Perfetto / Chrome trace of a run: one track per GPU (its compute) and one per GPU's
 * communication, with slices for forward, backward, update, collectives, pulls and pushes; tracks
 * of checkpoints and recoveries with a slice each; instant events for faults; counter tracks
 * (throughput, samples trained, bytes in flight on the network, and test accuracy and loss with
 * numerics). Written as Chrome JSON trace format ("traceEvents", times in microseconds), which
 * ui.perfetto.dev and chrome://tracing open. Recording only happens when a trace was asked for
 * (a NULL trace records nothing).
 *
 * Times are kept in whole nanoseconds, each converted once from the simulated clock's seconds
 * when it is recorded, and written as microseconds with three decimals from those integers: a
 * slice's "ts" and "ts" + "dur" are its own begin and end exactly, so a slice that ends when the
 * next begins (the same clock value) never overlaps it. (Writing ts = t0 x 1e6 and dur =
 * (t1 - t0) x 1e6, each rounded apart, made neighbours overlap by 1 ns hundreds of times a trace.)
 *
 * Named tracks (trace_span): the writer lays their slices out on lanes so that no two on one
 * track partly overlap, as the format requires: a slice goes on the first lane where it either
 * begins after the lane's open slices end or nests inside the innermost one; otherwise on a new
 * lane ("recoveries", "recoveries 2", ...). Their track numbers follow the numbered tracks.
 *
 * Every event carries "ph", "ts", "pid" and "tid" (metadata at ts 0, counters and global instants
 * on tid 0); tests/trace_rules.c checks the format's rules on the traces of shipped scenarios. */
#ifndef DMLSIM_TRACE_H
#define DMLSIM_TRACE_H

#include <stdio.h>

struct trace;

/* Returns a new, empty trace owned by the caller (trace_free). */
struct trace *trace_new(void);
void trace_free(struct trace *tr);

/* Names a track (e.g. "rank 3 compute (node0.gpu3)"). */
void trace_track(struct trace *tr, int track, const char *name);

/* A slice [t0, t1] on a numbered track; `name` must be a string literal or outlive the trace.
 * The caller keeps a track's slices nested or apart (one strategy actor per track). */
void trace_slice(struct trace *tr, int track, const char *name, double t0_s, double t1_s);

/* What a slice did, written as its "args" (the fields set; Perfetto shows them in the slice's
 * details): start from TRACE_ARGS and set what applies. */
struct trace_args {
    double bytes; /* "bytes": the bytes it moved (a collective: each rank's buffer); < 0: none */
    const char *algo; /* "algorithm": a collective's, as the scenario names it; NULL: none */
    int step;         /* "step": the training step, from 1; 0: none */
    int microbatch;   /* "microbatch": from 0; < 0: none */
    int chunk; /* "chunk": a pipeline stage's model chunk (interleaving), from 0; < 0: none */
    int layer_first, layer_last; /* "layers": "FIRST-LAST", the layers [first, last) it ran;
                                    last <= first: none */
    int peer;                    /* "peer": the other end (a rank or a shard); < 0: none */
};
#define TRACE_ARGS ((struct trace_args){.bytes = -1, .microbatch = -1, .chunk = -1, .peer = -1})

/* trace_slice with the slice's arguments. */
void trace_slice_args(struct trace *tr, int track, const char *name, double t0_s, double t1_s,
                      struct trace_args args);

/* A slice [t0, t1] on the named track `group` (e.g. "checkpoints"; both strings copied, up to 31
 * and 95 characters), laid out on lanes by the writer (see above). */
void trace_span(struct trace *tr, const char *group, const char *name, double t0_s, double t1_s);

/* An instant event across the whole run (copied). */
void trace_instant(struct trace *tr, const char *category, const char *text, double t_s);

/* A counter track's value from time t on (`name` is copied, up to 47 characters). A value at the
 * same time as the previous one recorded, on the same track, replaces it. A track that changes
 * more than TRACE_COUNTER_MAX times is written as its means over intervals (trace_sample.h). */
void trace_counter(struct trace *tr, const char *name, double value, double t_s);

/* Writes the trace as Chrome JSON. */
void trace_write(const struct trace *tr, const char *title, FILE *out);

/* Writes `s` as a JSON string literal (quotes, backslashes and control characters escaped); also
 * serves train_write_json. */
void trace_json_string(FILE *out, const char *s);

#endif
