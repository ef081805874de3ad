/* expect.h - <expect> assertions: named run metrics (metrics.h) checked against bounds at the end
 * of a run. dmlsim run prints every expectation with its measured value and exits 3 if any
 * fails. The names are checked here, not by scenario_load: the strategies' own metrics are
 * known above the core layer (metrics.h). */
#ifndef DMLSIM_EXPECT_H
#define DMLSIM_EXPECT_H

#include "error.h"
#include "run.h"
#include "scenario.h"

#include <stdbool.h>
#include <stdio.h>

/* Fails (DMLSIM_EVALUE, "FILE:LINE: <expect metric=...>: unknown metric; expected one of: ...")
 * on the first expectation naming no metric; call right after loading, before any output. */
enum dmlsim_err expect_validate(const struct scenario *sc, struct dmlsim_error *err);

/* Prints one line per expectation ("# expect NAME in [MIN, MAX]: VALUE ok|FAILED") and returns
 * how many failed. */
int expect_check(const struct scenario *sc, const struct run_record *rec, FILE *out);

/* Does the scenario assert on `metric`? */
bool expect_names(const struct scenario *sc, const char *metric);

/* Expectation i of sc (i < sc->nexpects): its metric's value in rec into *value, and whether it
 * is within its bounds (min <= value <= max; a NaN value is not). expect_check's verdicts. */
bool expect_eval(const struct scenario *sc, const struct run_record *rec, size_t i, double *value);

/* Did the run fail as dmlsim run's exit status 4 says: the simulated job failed and no
 * expectation names job_failed (a scenario that expects the failure passes with it)? */
bool expect_job_error(const struct scenario *sc, const struct run_record *rec);

/* v in the fewest significant digits (15 to 17) that read back as v, into buf (at least
 * EXPECT_NUM_LEN bytes): "0.1", not "0.10000000000000001", and two values never print alike
 * (%g's 6 digits print the bound 0.005689274 as 0.00568927, and a value just over it the same). */
#define EXPECT_NUM_LEN 32
void expect_num(double v, char *buf);

/* An expectation's bounds as a comparison, into buf (at least EXPECT_BOUNDS_LEN bytes):
 * "== 2" (min = max), ">= 0.75" (no max), "<= 3" (no min), else "in [0.5, 0.749]". */
#define EXPECT_BOUNDS_LEN 80
void expect_bounds(const struct expect_spec *e, char *buf);

#endif
