/* idx.h - datasets in the IDX format of MNIST and Fashion-MNIST (LeCun et al., "THE MNIST
 * DATABASE", yann.lecun.com/exdb/mnist; Xiao et al. 2017, github.com/zalandoresearch/
 * fashion-mnist): a big-endian 32-bit magic, 2051 (0x00000803: unsigned bytes, 3 dimensions) for
 * images and 2049 (0x00000801, 1 dimension) for labels, then each dimension's size as a
 * big-endian 32-bit integer, then the bytes. Files may be gzipped (zlib reads both). Pixels are
 * scaled to [0, 1] (x / 255). */
#ifndef DMLSIM_IDX_H
#define DMLSIM_IDX_H

#include "error.h"

#include <stddef.h>

#define IDX_MAX_EXAMPLES 10000000 /* ceilings on what a header may announce: 10^7 examples, */
#define IDX_MAX_FEATURES 1000000  /* 10^6 features each (Fashion-MNIST: 70,000 of 784) */

struct idx_set {
    int n;            /* examples */
    int dim;          /* features per example (rows x cols) */
    int classes;      /* 1 + the largest label */
    float *x;         /* n x dim, row-major, in [0, 1] */
    unsigned char *y; /* n labels */
};

/* Reads an image file and its label file (the first max_n examples; max_n <= 0: all). A file that
 * cannot be read, a wrong magic, a header beyond the ceilings, fewer labels than images, or fewer
 * bytes than a header announces is "FILE:0: what; expected what". */
enum dmlsim_err idx_load(const char *images, const char *labels, int max_n, struct idx_set *out,
                         struct dmlsim_error *err);

void idx_release(struct idx_set *s);

/* Reorders s's examples grouped by label, 0 first, each class in its file order (a stable
 * counting sort): a dataset stored by class, as ImageNet's training archive (a tar per class). */
void idx_sort_by_class(struct idx_set *s);

#endif
