/* idx.c - IDX dataset files (see idx.h). */
#include "idx.h"

#include "mem.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define IDX_IMAGES 2051u
#define IDX_LABELS 2049u

/* Reads exactly n bytes; false at a short read. */
static bool read_all(gzFile f, void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        unsigned chunk = n > (1u << 30) ? (1u << 30) : (unsigned)n;
        int got = gzread(f, p, chunk);
        if (got <= 0) return false;
        p += got;
        n -= (size_t)got;
    }
    return true;
}

static bool read_u32(gzFile f, uint32_t *v)
{
    unsigned char b[4];
    if (!read_all(f, b, 4)) return false;
    *v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    return true;
}

/* Opens `path` and reads its header: magic `want` and `ndims` sizes into dims. */
static enum dmlsim_err open_idx(const char *path, uint32_t want, int ndims, uint32_t *dims,
                                gzFile *out, struct dmlsim_error *err)
{
    gzFile f = gzopen(path, "rb");
    if (f == NULL)
        return dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot read: %s", path,
                           errno ? strerror(errno) : "cannot open");
    uint32_t magic = 0;
    bool ok = read_u32(f, &magic) && magic == want;
    for (int i = 0; ok && i < ndims; i++)
        ok = read_u32(f, &dims[i]);
    if (!ok) {
        gzclose(f);
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:0: not an IDX %s file (magic 0x%08x); expected magic %u and %d "
                           "dimension sizes",
                           path, want == IDX_IMAGES ? "image" : "label", (unsigned)magic,
                           (unsigned)want, ndims);
    }
    *out = f;
    return DMLSIM_OK;
}

static enum dmlsim_err read_images(const char *path, int max_n, struct idx_set *s,
                                   struct dmlsim_error *err)
{
    uint32_t d[3];
    gzFile f;
    enum dmlsim_err rc = open_idx(path, IDX_IMAGES, 3, d, &f, err);
    if (rc != DMLSIM_OK) return rc;
    if (d[0] == 0 || d[0] > IDX_MAX_EXAMPLES || d[1] == 0 || d[2] == 0 ||
        (uint64_t)d[1] * d[2] > IDX_MAX_FEATURES) {
        gzclose(f);
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:0: header of %u x %u x %u images; expected 1 to %d images of at "
                           "most %d pixels",
                           path, (unsigned)d[0], (unsigned)d[1], (unsigned)d[2], IDX_MAX_EXAMPLES,
                           IDX_MAX_FEATURES);
    }
    s->n = max_n > 0 && (uint32_t)max_n < d[0] ? max_n : (int)d[0];
    s->dim = (int)(d[1] * d[2]);
    size_t bytes = (size_t)s->n * (size_t)s->dim;
    unsigned char *raw = mem_alloc(bytes);
    if (!read_all(f, raw, bytes)) {
        rc = dmlsim_fail(err, DMLSIM_EVALUE,
                         "%s:0: truncated: fewer than the %zu bytes of %d images its header "
                         "announces; expected a complete IDX file",
                         path, bytes, s->n);
    } else {
        s->x = mem_new(float, bytes);
        for (size_t i = 0; i < bytes; i++)
            s->x[i] = raw[i] / 255.0f;
    }
    free(raw);
    gzclose(f);
    return rc;
}

static enum dmlsim_err read_labels(const char *path, int want_n, struct idx_set *s,
                                   struct dmlsim_error *err)
{
    uint32_t d[1];
    gzFile f;
    enum dmlsim_err rc = open_idx(path, IDX_LABELS, 1, d, &f, err);
    if (rc != DMLSIM_OK) return rc;
    if (d[0] < (uint32_t)want_n) {
        gzclose(f);
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:0: %u labels for %d images; expected one label per image", path,
                           (unsigned)d[0], want_n);
    }
    s->y = mem_alloc((size_t)want_n);
    if (!read_all(f, s->y, (size_t)want_n))
        rc = dmlsim_fail(err, DMLSIM_EVALUE,
                         "%s:0: truncated: fewer than the %d labels its header announces; "
                         "expected a complete IDX file",
                         path, want_n);
    gzclose(f);
    for (int i = 0; rc == DMLSIM_OK && i < want_n; i++)
        if (s->y[i] + 1 > s->classes) s->classes = s->y[i] + 1;
    return rc;
}

enum dmlsim_err idx_load(const char *images, const char *labels, int max_n, struct idx_set *out,
                         struct dmlsim_error *err)
{
    memset(out, 0, sizeof *out);
    errno = 0;
    enum dmlsim_err rc = read_images(images, max_n, out, err);
    if (rc == DMLSIM_OK) rc = read_labels(labels, out->n, out, err);
    if (rc != DMLSIM_OK) idx_release(out);
    return rc;
}

void idx_sort_by_class(struct idx_set *s)
{
    size_t start[257] = {0}, dim = (size_t)s->dim;
    for (int i = 0; i < s->n; i++)
        start[s->y[i] + 1]++;
    for (int c = 1; c <= 256; c++)
        start[c] += start[c - 1];
    float *x = mem_new(float, (size_t)s->n * dim);
    unsigned char *y = mem_new(unsigned char, (size_t)s->n);
    for (int i = 0; i < s->n; i++) {
        size_t k = start[s->y[i]]++;
        memcpy(x + k * dim, s->x + (size_t)i * dim, dim * sizeof *x);
        y[k] = s->y[i];
    }
    free(s->x);
    free(s->y);
    s->x = x;
    s->y = y;
}

void idx_release(struct idx_set *s)
{
    free(s->x);
    free(s->y);
    memset(s, 0, sizeof *s);
}
