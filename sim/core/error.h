/* error.h - the error codes dmlsim returns for bad input or environment, in one table.
 *
 * The one error convention. Four kinds of failure are kept apart (STYLE.md):
 *   - bugs are asserts (a run function given a job its check refused is a bug);
 *   - bad input or environment is one of the codes below, found by one validation pass before
 *     anything is printed or simulated (the scenario load, then the strategy's or benchmark's
 *     check against the loaded platform), and carried up to main() with a one-line message:
 *     exit 1;
 *   - a failed <expect> assertion: exit 3;
 *   - simulated failures are model events (the events log); a simulated job that cannot finish
 *     its steps is a result too: the run record says why, main prints it on stderr, writes the
 *     outputs and exits 4 (DMLSIM_EJOB), unless an <expect metric="job_failed"> decides.
 *
 * A function that can fail on input takes a `struct dmlsim_error *` last, fills it on failure and
 * returns the code (DMLSIM_OK, 0, on success). The message is complete and ready to print:
 * "FILE:LINE: what was wrong and what was expected", lowercase, no trailing period.
 */
#ifndef DMLSIM_ERROR_H
#define DMLSIM_ERROR_H

#include <stddef.h>

/* X(code, exit status, short description) */
#define DMLSIM_ERRORS(X) \
    X(DMLSIM_OK, 0, "success") \
    X(DMLSIM_EUSAGE, 1, "bad command line") \
    X(DMLSIM_EIO, 1, "cannot read or write a file") \
    X(DMLSIM_EXML, 1, "malformed xml") \
    X(DMLSIM_ESCHEMA, 1, "xml does not match the scenario dtd") \
    X(DMLSIM_EVALUE, 1, "bad value") \
    X(DMLSIM_EPLATFORM, 1, "bad platform") \
    X(DMLSIM_EEXPECT, 3, "an <expect> assertion failed") \
    X(DMLSIM_EJOB, 4, "the simulated job failed")

enum dmlsim_err {
#define DMLSIM_X_ENUM(code, status, text) code,
    DMLSIM_ERRORS(DMLSIM_X_ENUM)
#undef DMLSIM_X_ENUM
            DMLSIM_NERR
};

struct dmlsim_error {
    enum dmlsim_err code; /* DMLSIM_OK until something fails */
    char msg[4096];       /* the complete one-line message, without newline */
};

/* Fills `err` (which may be NULL) with `code` and a printf-formatted message; returns `code`. */
enum dmlsim_err dmlsim_fail(struct dmlsim_error *err, enum dmlsim_err code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* The process exit status for a code (0, 1, 3 or 4). */
int dmlsim_err_status(enum dmlsim_err code);

/* The short description of a code, e.g. "malformed xml". */
const char *dmlsim_err_str(enum dmlsim_err code);

/* Propagate a failure: evaluates `expr`, and on a nonzero code jumps to `label`. */
#define DMLSIM_CHECK_GOTO(rc, expr, label) \
    do { \
        (rc) = (expr); \
        if ((rc) != DMLSIM_OK) goto label; \
    } while (0)

#endif
