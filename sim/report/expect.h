/* expect.h - <expect> assertions: named run metrics (metric.h) checked against bounds at the end
 * of a run. dmlsim run prints every expectation with its measured value and exits 3 if any
 * fails. */
#ifndef DMLSIM_EXPECT_H
#define DMLSIM_EXPECT_H

#include "run.h"
#include "scenario.h"

#include <stdbool.h>
#include <stdio.h>

/* Prints one line per expectation ("# expect NAME in [MIN, MAX]: VALUE ok|FAILED") and returns
 * how many failed. */
int expect_check(const struct scenario *sc, const struct run_record *rec, FILE *out);

/* Does the scenario assert on `metric`? */
bool expect_names(const struct scenario *sc, const char *metric);

#endif
