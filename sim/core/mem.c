/* mem.c - allocation that cannot fail (see mem.h). */
#include "mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *check(void *p, size_t n)
{
    if (p == NULL && n > 0) {
        fprintf(stderr, "dmlsim: out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

void *mem_alloc(size_t n)
{
    return check(malloc(n ? n : 1), n);
}

void *mem_calloc(size_t count, size_t size)
{
    return check(calloc(count ? count : 1, size ? size : 1), count * size);
}

void *mem_realloc(void *p, size_t n)
{
    return check(realloc(p, n ? n : 1), n);
}

char *mem_strdup(const char *s)
{
    return s ? strcpy(mem_alloc(strlen(s) + 1), s) : NULL;
}

char *mem_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = mem_alloc((size_t)(n > 0 ? n : 0) + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}
