/* mem.h - allocation for the plain-data layer: like malloc, but a failed allocation ends the
 * program with a message (as SimGrid's xbt_malloc does for the engine), so callers never check.
 * Plain data includes no SimGrid header, so this is its allocator. */
#ifndef DMLSIM_MEM_H
#define DMLSIM_MEM_H

#include <stddef.h>

void *mem_alloc(size_t n);
void *mem_calloc(size_t count, size_t size);
void *mem_realloc(void *p, size_t n);
char *mem_strdup(const char *s);
/* A new string, printf-formatted (free). */
char *mem_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define mem_new(type, n)  ((type *)mem_alloc(sizeof(type) * (size_t)(n)))
#define mem_new0(type, n) ((type *)mem_calloc((size_t)(n), sizeof(type)))

/* Appends `val` to the array `arr` of `n` elements, growing it by one (n is incremented). */
#define MEM_PUSH(arr, n, val) \
    do { \
        (arr) = mem_realloc((arr), ((n) + 1) * sizeof *(arr)); \
        (arr)[(n)++] = (val); \
    } while (0)

#endif
