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

#endif
