/* bench.h - micro-benchmarks run as SimGrid actors, reported like nccl-tests.
 *
 * p2p: for each <pair> in turn (a semaphore hands over from one pair to the next, so pairs never
 * share a link), a sender actor on the source host sends one message of each size to a receiver
 * actor on the destination host through a mailbox; the receiver timestamps the arrival against
 * the send time carried in the message. Nothing is computed from a formula: the time is what the
 * SimGrid network model gave the transfer. Under CM02 it equals
 * sum(route latencies) + size / min(route bandwidths), which the tests check.
 */
#ifndef DMLSIM_BENCH_H
#define DMLSIM_BENCH_H

#include "error.h"
#include "net.h"
#include "netcal.h"
#include "platform.h"
#include "scenario.h"

#include <stdio.h>

struct p2p_row {
    size_t pair;            /* index into sc->bench.pairs */
    double size_B;          /* message size */
    double time_s;          /* simulated send-to-arrival time (valid when status is NET_OK) */
    enum net_status status; /* NET_OK, or why the transfer did not complete */
};

struct p2p_result {
    struct p2p_row *rows; /* pair-major, then size order */
    size_t nrows;         /* pairs x sizes */
    char **routes;        /* per pair: link classes along the route ("nvlink4") */
    size_t npairs;        /* number of routes */
};

/* The message sizes of a benchmark: begin, begin*factor, ... <= end, rounded to whole bytes.
 * Returns a new array owned by the caller (free), its length in *n. */
double *bench_sizes(const struct benchmark *b, size_t *n);

/* Checks that every pair's endpoints are hosts of the loaded platform ("FILE:LINE: ..." if not). */
enum dmlsim_err bench_check_hosts(const struct scenario *sc, struct dmlsim_error *err);

/* Runs the p2p benchmark to completion (calls simgrid_run) and fills `res` (release with
 * bench_p2p_release); the endpoints passed bench_check_hosts. Call once per process, after
 * platform_load. */
void bench_p2p_run(const struct scenario *sc, struct p2p_result *res);

/* A completed p2p row's bandwidth: size / time, GB/s. */
double bench_p2p_algbw_GBps(const struct p2p_row *r);

/* Prints the table: src, dst, size (B), time (us), algbw (GB/s), route. */
void bench_p2p_print(const struct scenario *sc, const struct p2p_result *res, FILE *out);

void bench_p2p_release(struct p2p_result *res);

struct coll_row {
    double size_B;          /* collective size (nccl-tests convention, collective.h) */
    double time_s;          /* from the common start to the last rank's end */
    enum net_status status; /* worst status over the ranks */
    char choice[48];        /* what the algorithm did ("ring/Simple/16"), or "" */
};

struct coll_result {
    int nranks;            /* ranks taking part */
    struct coll_row *rows; /* one per size */
    size_t nrows;          /* number of sizes */
    double messages;       /* messages sent, all sizes */
};

/* Checks the collective benchmark against the platform (GPU count, the algorithm's own check)
 * before any output: "FILE:LINE: ..." if it cannot run. */
enum dmlsim_err bench_coll_check(const struct scenario *sc, const struct platform *pf,
                                 struct dmlsim_error *err);

/* Runs the collective benchmark (with the network calibration `netcal`, or NULL): for each size all
 * ranks start together (a barrier), run the collective, and the row's time is when the last rank
 * finished; the benchmark passed bench_coll_check. Calls simgrid_run; release the result with
 * bench_coll_release. */
void bench_coll_run(const struct scenario *sc, const struct platform *pf,
                    const struct netcal *netcal, struct coll_result *res);

/* Row i of a collective benchmark as nccl-tests reports it (float32 elements). */
struct coll_values {
    double size_B, count;   /* bytes and elements */
    const char *type;       /* "float" */
    const char *redop;      /* "sum", or "none" for a collective that does not reduce */
    bool ok;                /* completed: the rest is valid */
    double time_us;         /* simulated time */
    double algbw_GBps;      /* size / time */
    double busbw_GBps;      /* algbw x the collective's bus factor (nccl-tests' PERFORMANCE.md) */
    const char *status;     /* "ok", or why it did not complete (net_status_str) */
};

void bench_coll_values(const struct scenario *sc, const struct coll_result *res, size_t i,
                       struct coll_values *v);

/* nccl-tests-style table: size, count (float32 elements), type, redop, time, algbw, busbw. */
void bench_coll_print(const struct scenario *sc, const struct coll_result *res, FILE *out);

void bench_coll_release(struct coll_result *res);

#endif
