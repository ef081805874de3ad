/* calib.h - how fast a GPU really runs what the model asks, from a calibration profile: the only
 * reader (and writer) of calibration data.
 *
 * A profile is either the spec-derived default (a preset's GEMMs from their shapes, gemm.h; a
 * GEMM of unknown shape at 78% of peak; memory-bound kernels at 92% of memory bandwidth: the
 * fractions Meta measured on H100, pytorch/ao roofline_utils.py) or a
 * calibration file measured by kernels/dmlsim-calibrate, or a plain nccl-tests log.
 *
 * File format (text, one record per line, '#' starts a comment, fields separated by blanks):
 *   dmlsim-calibration 1                     first line
 *   source spec|measured TEXT...             where it comes from
 *   gpu NAME... | count N | nodes N | net NAME | driver V | cuda V | nccl V | date D
 *                                            one key per line; count: GPUs over all nodes;
 *                                            net: NCCL's network ("IB", "Socket", ...)
 *   gemm DTYPE M N K TFLOPS                  achieved cuBLAS GEMM rate (fp32 tf32 fp16 bf16)
 *   copy KIND BYTES GBPS                     h2d-pageable h2d-pinned d2h-pageable d2h-pinned d2d
 *   kernel NAME BYTES GBPS                   sgd-momentum adam scale: memory traffic per second
 *   coll OP NRANKS BYTES TIME_US ALGBW BUSBW [NODES]
 *                                            allreduce allgather reducescatter broadcast
 *                                            alltoall; NODES
 *                                            the ranks spanned (absent in older files: 1)
 *   nocoll TEXT...                           why collectives were not measured
 * GB/s and TFLOP/s are 1e9 and 1e12.
 *
 * nccl-tests logs are read as posted: Open MPI --tag-output, srun --label, MPICH "[0]" and
 * kubectl prefixes are peeled; NCCL INFO/WARN lines give the NCCL version and network; the
 * column layout (with or without the root column) comes from the header, or from the field
 * count where the header was not kept. Each run (one nccl-tests invocation) is then read from
 * every source that speaks of it, and sources that disagree are an error naming both
 * ("FILE:LINE: A gives 16 ranks, but B gives 32"), never a silent choice:
 *   the operation: "# Collective test starting: NAME", the command line that ran it, a
 *     "# dmlsim-op NAME" line, --op (calib_opts); else the rows' own columns, as nccl-tests
 *     prints each test: redop "none" or a reduction, count = size / type size or size / (n x
 *     type size), a root or -1, and the in-place #wrong column, which alltoall_perf leaves N/A
 *     (it does not check in place) and all_gather_perf fills. Rows of tests dmlsim does not
 *     model (sendrecv, reduce, gather, scatter) are dropped, counted in `skipped`, and told;
 *   the GPU count: the "# Rank ... on HOST device N [bus] NAME" lines (distinct ids; a lower
 *     bound when they are elided: ids missing, or a "..." line after them), "# dmlsim-nranks N",
 *     --nranks, the count column (n itself for all-gather, reduce-scatter, all-to-all), the
 *     rows' busbw/algbw (nccl-tests doc/PERFORMANCE.md: 2(n-1)/n for all-reduce, (n-1)/n for
 *     all-gather, reduce-scatter and all-to-all), within the printed digits of every row; "#
 *     nThread T nGpus G" is one process's share (the count is a multiple of T x G) and counts
 *     only when nothing else does;
 *   the node count: the rank lines' distinct hosts (when complete), "# dmlsim-nodes N",
 *     --nodes; else it is not told (0 in c->run; validate takes one node up to 8 GPUs and asks
 *     above).
 * What was read, and from what, is c->run[i].read. An rccl-tests log (AMD's RCCL: its
 * "rccl-tests" banner or version line, "RCCL version", "HIP version", an AMD device in the rank
 * lines) is refused by name: there is no model of RCCL. "# dmlsim-gpu NAME" names the GPU of a
 * log posted without rank lines. Lines that are none of these are counted in `skipped`, not
 * fatal. The log reader is nccl_log.h; the profile's types are in calib_types.h.
 *
 * How the simulator uses a profile:
 *   GEMM efficiency of a layer = measured TFLOP/s / catalog peak of the dtype, interpolated
 *     linearly in log(FLOPs of one GEMM) between the measured shapes of that dtype (clamped at
 *     the ends); without measurements of the dtype, the default 0.78;
 *   optimizer update rate = the best measured optimizer-kernel GB/s (else memory bandwidth x 0.92);
 *   link fits (calib_fit): weighted least squares of t(S) = a + b S on a collective sweep, with
 *     weights 1/t^2 (so every size counts by its relative error); for the ring all-reduce
 *     a = 2(n - 1) alpha and b = 2(n - 1) / (n B), giving the link's latency alpha and bandwidth B
 *     (printed for reference);
 *   the measured collectives themselves: the network calibration (netcal.h), fitted by the CLI
 *     (validate_fit_network) and attached as c->netcal, dilates the simulated nccl calls.
 */
#ifndef DMLSIM_CALIB_H
#define DMLSIM_CALIB_H

#include "calib_types.h"
#include "catalog.h"
#include "coll_op.h"
#include "error.h"
#include "netcal.h"

#include <stdbool.h>
#include <stdio.h>

struct calib_fit {
    double alpha_s; /* per-step latency */
    double bw_Bps;  /* link bandwidth */
    int points;     /* sizes used */
    double max_rel; /* largest relative error of the fit over the points */
};

/* The spec-derived default profile (no measurements). */
struct calib calib_default(void);

/* A spec-derived profile for a catalog GPU, written out as a calibration file: no GEMM rows (GEMMs
 * take the shape model, gemm.h), copies at the catalog PCIe rate, optimizer kernels at the
 * default memory efficiency. Marked "source spec". */
void calib_write_spec(const struct gpu_model *gpu, FILE *out);

/* Loads a calibration file or an nccl-tests log (detected from its contents) into `c` (zeroed
 * first; release with calib_release). Errors: "FILE:LINE: ..."; a log without result rows is
 * one, a log line that is not understood is not (it is counted in c->skipped). */
enum dmlsim_err calib_load(const char *path, struct calib *c, struct dmlsim_error *err);

/* calib_load with the user's statements about a log's runs (NULL: none), each checked against
 * the log's own sources: a disagreement is an error naming both. */
enum dmlsim_err calib_load_opts(const char *path, const struct calib_opts *opt, struct calib *c,
                                struct dmlsim_error *err);

void calib_write(const struct calib *c, FILE *out);
void calib_release(struct calib *c);

/* The catalog model the profile was measured on (its device name through catalog_gpu_match,
 * e.g. "NVIDIA H100 80GB HBM3" -> h100), or NULL. */
const struct gpu_model *calib_gpu(const struct calib *c);

/* Fraction of `gpu`'s peak for `dt` that a GEMM of `flops` FLOPs reaches. */
double calib_gemm_eff(const struct calib *c, const struct gpu_model *gpu, enum gpu_dtype dt,
                      double flops);

/* The FLOP/s the profile measured for exactly this GEMM shape in `dt`, or 0; *any tells whether
 * it measured any GEMM of `dt` (then calib_gemm_eff interpolates the others). */
double calib_gemm_measured(const struct calib *c, enum gpu_dtype dt, double m, double n, double k,
                           bool *any);

/* Effective FLOP/s of compute-bound work with the default efficiency (no shape known). */
double calib_compute_rate(const struct calib *c, const struct gpu_model *gpu, enum gpu_dtype dt);

/* Effective bytes/s of memory-bound work (the optimizer update) on `gpu`. */
double calib_memory_rate(const struct calib *c, const struct gpu_model *gpu);

/* Fits latency and bandwidth to the measured sweep of `op` on `nranks` GPUs; returns 0, or -1
 * with fewer than 2 sizes. */
int calib_fit(const struct calib *c, enum coll_op op, int nranks, struct calib_fit *out);

/* Checks the profile against a GPU it will run on: no GEMM above the GPU's dense peak for its
 * dtype, no kernel above its memory bandwidth (an efficiency above 100% is a mistake, not a
 * measurement): "FILE:LINE: ..." naming the record. */
enum dmlsim_err calib_check_gpu(const struct calib *c, const struct gpu_model *gpu,
                                struct dmlsim_error *err);

#endif
