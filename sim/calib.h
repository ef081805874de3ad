/* calib.h - how fast a GPU really runs what the model asks: efficiencies applied to the
 * catalog's peaks.
 *
 * A profile holds the fraction of peak FLOP/s that compute-bound kernels (GEMMs, convolutions)
 * reach, and the fraction of peak memory bandwidth that memory-bound kernels (the optimizer
 * update) reach. The default profile is spec-derived: the fractions Meta measured on H100
 * (pytorch/ao roofline_utils.py: GEMM about 78% of peak, memory-bound kernels about 92% of
 * bandwidth), applied to every GPU and dtype. Measured profiles come from kernels/ (a later
 * issue); this module is the only reader of calibration data.
 */
#ifndef DMLSIM_CALIB_H
#define DMLSIM_CALIB_H

#include "catalog.h"

struct calib {
    double gemm_eff;    /* fraction of peak FLOP/s reached by compute-bound layers */
    double mem_eff;     /* fraction of peak memory bandwidth reached by memory-bound kernels */
    const char *source; /* where the fractions come from */
};

/* The spec-derived default profile. */
struct calib calib_default(void);

/* Effective FLOP/s of compute-bound work on `gpu` in `dtype` (0 if the GPU lacks the dtype). */
double calib_compute_rate(const struct calib *c, const struct gpu_model *gpu, enum gpu_dtype dt);

/* Effective bytes/s of memory-bound work on `gpu`. */
double calib_memory_rate(const struct calib *c, const struct gpu_model *gpu);

#endif
