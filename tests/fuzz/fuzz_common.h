/* fuzz_common.h - what both libFuzzer harnesses share: an input written to a file (the loader
 * reads paths, as the CLI does), and the error contract every rejection must keep. */
#ifndef DMLSIM_FUZZ_COMMON_H
#define DMLSIM_FUZZ_COMMON_H

#include "error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The input as a scenario file of this process; the same path every time. */
static inline const char *fuzz_input_file(const uint8_t *data, size_t size)
{
    static char path[64];
    if (path[0] == '\0') snprintf(path, sizeof path, "/tmp/dmlsim-fuzz-%d.xml", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (f == NULL) abort();
    if (size > 0 && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    return path;
}

/* A rejection is one line "FILE:LINE: what; expected what" (README, "Bad input"; FILE may be a
 * file the scenario names): anything else is a finding, reported as a crash. */
static inline void fuzz_check_error(const struct dmlsim_error *err)
{
    const char *m = err->msg;
    if (m[0] == '\0' || strchr(m, '\n') != NULL) abort();
    for (const char *p = strchr(m, ':'); p != NULL; p = strchr(p + 1, ':')) {
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q > p + 1 && q[0] == ':' && q[1] == ' ') return;
    }
    abort();
}

#endif
