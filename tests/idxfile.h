/* idxfile.h - IDX dataset files written by the tests themselves (idx.h describes the format), so
 * the tests that read datasets run where no dataset is installed. */
#ifndef DMLSIM_TEST_IDXFILE_H
#define DMLSIM_TEST_IDXFILE_H

#include <check.h>
#include <stddef.h>
#include <zlib.h>

static inline void put_u32(unsigned char *b, unsigned v)
{
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

/* An IDX file of `magic` with dims, then `len` bytes of payload (gzipped if gz). */
static inline void write_idx(const char *path, unsigned magic, const unsigned *dims, int nd,
                      const unsigned char *payload, size_t len, int gz)
{
    unsigned char head[16];
    put_u32(head, magic);
    for (int i = 0; i < nd; i++)
        put_u32(head + 4 + 4 * i, dims[i]);
    gzFile f = gzopen(path, gz ? "wb" : "wbT"); /* T: no compression */
    ck_assert_ptr_nonnull(f);
    gzwrite(f, head, (unsigned)(4 + 4 * nd));
    if (len) gzwrite(f, payload, (unsigned)len);
    gzclose(f);
}

#endif
