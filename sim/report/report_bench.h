/* report_bench.h - a micro-benchmark's results as files (run --csv, --json): the columns of
 * nccl-tests' table (size, count, type, redop, time, algbw, busbw; nccl-tests'
 * doc/PERFORMANCE.md defines algbw and busbw) for a collective, and src, dst, size, time, algbw,
 * route for p2p. CSV: a header line, then one row per size (time, algbw and busbw empty and
 * status naming why for a size that did not complete). JSON: the scenario, the benchmark and the
 * same rows (schemas/bench.schema.json). */
#ifndef DMLSIM_REPORT_BENCH_H
#define DMLSIM_REPORT_BENCH_H

#include "bench.h"
#include "scenario.h"

#include <stdio.h>

void report_coll_csv(const struct scenario *sc, const struct coll_result *res, FILE *out);
void report_coll_json(const struct scenario *sc, const struct coll_result *res, FILE *out);
void report_p2p_csv(const struct scenario *sc, const struct p2p_result *res, FILE *out);
void report_p2p_json(const struct scenario *sc, const struct p2p_result *res, FILE *out);

#endif
