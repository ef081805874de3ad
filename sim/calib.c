/* calib.c - calibration profiles (see calib.h). */
#include "calib.h"

struct calib calib_default(void)
{
    return (struct calib){
            .gemm_eff = 0.78, /* H100 GEMMs, Meta pytorch/ao roofline_utils.py */
            .mem_eff = 0.92,  /* H100 memory-bound kernels, same source */
            .source = "spec-derived default: GEMM 78% of peak, memory-bound 92% of bandwidth "
                      "(Meta, pytorch/ao roofline_utils.py, H100)",
    };
}

double calib_compute_rate(const struct calib *c, const struct gpu_model *gpu, enum gpu_dtype dt)
{
    return gpu->peak_flops[dt] * c->gemm_eff;
}

double calib_memory_rate(const struct calib *c, const struct gpu_model *gpu)
{
    return gpu->mem_bw_Bps * c->mem_eff;
}
