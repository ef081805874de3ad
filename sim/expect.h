/* expect.h - <expect> assertions: named run metrics checked against bounds at the end of a run.
 *
 * Every metric is read from the run's result (train.h); the table below is the one list of
 * names, so a scenario naming an unknown metric fails at load. dmlsim run prints every
 * expectation with its measured value and exits 3 if any fails. */
#ifndef DMLSIM_EXPECT_H
#define DMLSIM_EXPECT_H

#include <stdbool.h>
#include <stdio.h>

struct scenario;
struct train_result;

bool expect_metric_known(const char *name);

/* "a, b, c": every metric name. */
const char *expect_metric_names(void);

/* The value of metric `name` in `res` (expect_metric_known(name) must hold). */
double expect_metric_value(const char *name, const struct train_result *res, int batch);

/* Prints one line per expectation ("# expect NAME in [MIN, MAX]: VALUE ok|FAILED") and returns
 * how many failed. */
int expect_check(const struct scenario *sc, const struct train_result *res, FILE *out);

#endif
