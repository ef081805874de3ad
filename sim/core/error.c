/* error.c - the error table (see error.h). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static const struct {
    int status;
    const char *text;
} err_table[] = {
#define DMLSIM_X_ROW(code, status, text) {status, text},
        DMLSIM_ERRORS(DMLSIM_X_ROW)
#undef DMLSIM_X_ROW
};

enum dmlsim_err dmlsim_fail(struct dmlsim_error *err, enum dmlsim_err code, const char *fmt, ...)
{
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

int dmlsim_err_status(enum dmlsim_err code)
{
    return (code >= 0 && code < DMLSIM_NERR) ? err_table[code].status : 1;
}

const char *dmlsim_err_str(enum dmlsim_err code)
{
    return (code >= 0 && code < DMLSIM_NERR) ? err_table[code].text : "unknown error";
}
