/* hy_tpov.h - the hybrid strategy's tensor-parallel collectives overlapped with the GEMMs beside
 * them, as Transformer Engine's userbuffers run them (Megatron's --tp-comm-overlap).
 *
 * With sequence parallelism each block's forward all-gathers its input before the QKV projection
 * and the MLP's first GEMM (column-parallel) and reduce-scatters the output of the attention's
 * projection and the MLP's last GEMM (row-parallel); its backward mirrors them. Transformer
 * Engine (transformer_engine/pytorch/module/base.py, initialize_ub: its default `methods` and
 * get_default_config) splits each such collective and pipelines it with its GEMM:
 *   - ring exchange (qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad: an all-gather before a GEMM):
 *     num_splits = tp chunks; while the GEMM runs on the chunk a rank holds, the chunk is sent to
 *     the next rank of the ring and the previous rank's received (on the copy engines: use_ce,
 *     1 SM), tp - 1 exchanges of 1/tp of the activations each, the last chunk's GEMM alone:
 *     (tp - 1) max(G / tp, x) + G / tp;
 *   - pipeline (proj_fprop, fc2_fprop: a reduce-scatter after a GEMM): num_splits = 4 chunks;
 *     each chunk's output reduce-scattered while the next chunk's GEMM runs, the first GEMM and
 *     the last reduce-scatter alone: G / 4 + 3 max(G / 4, RS(S / 4)) + RS(S / 4);
 *   - bulk (qkv_wgrad, fc1_wgrad: the backward's reduce-scatter of the input gradient): the whole
 *     collective beside the weight-gradient GEMM, max(G, RS(S)).
 * The model keeps the collectives the hybrid strategy counts without overlap (two all-gathers and
 * two reduce-scatters a pass), each paired as above; the backward's re-gathers of the inputs for
 * the weight gradients (TE's qkv_dgrad and fc1_dgrad bulk all-gathers) are not modelled with or
 * without overlap. The chunks are simulated: the GEMM chunk is an asynchronous exec of the rank's
 * host while its actor runs the collective chunk (or the ring's send and receive), so what is
 * exposed is what the pipeline leaves.
 *
 * SM contention: the pipeline and bulk methods run their communication kernels on num_sm = 16 SMs
 * and launch the GEMM with set_sm_margin, on the SMs left (TE's get_default_config); the model
 * slows those GEMMs by sms / (sms - 16) (132 / 116 on an H100 SXM: a GEMM's waves over fewer SMs).
 * The ring exchange uses the copy engines: its GEMM runs at full rate. A chunk runs at the whole
 * GEMM's rate (a smaller GEMM's lower efficiency is not modelled).
 */
#ifndef DMLSIM_HY_TPOV_H
#define DMLSIM_HY_TPOV_H

#include "calib.h"
#include "coll.h"
#include "collective.h"
#include "model.h"
#include "net.h"
#include "run.h"

/* TE's methods (above). */
enum tpov_method { TPOV_RING, TPOV_PIPE, TPOV_BULK };

#define TPOV_PAIRS      4  /* collectives of a block's pass: all-gather, reduce-scatter, twice */
#define TPOV_PIPE_SPLIT 4  /* the pipeline method's chunks (TE's num_splits default) */
#define TPOV_COMM_SMS   16 /* SMs of the pipeline and bulk methods' communication (TE's num_sm) */

/* One collective and the GEMM it overlaps. */
struct tpov_pair {
    enum tpov_method how;
    enum coll_op op; /* COLL_ALLGATHER (ring) or COLL_REDUCESCATTER */
    double gemm;     /* exec amount of its GEMM(s) for one microbatch, SM margin included */
};

/* A block's pass split: its overlapped pairs in the order they run, and the rest of its kernels. */
struct tpov_pass {
    struct tpov_pair pair[TPOV_PAIRS];
    double rest; /* exec amount of the pass less its pairs' GEMMs (unslowed) */
};

struct tpov_block {
    struct tpov_pass fwd, bwd;
};

/* Splits block layer y's forward and backward (exec amounts fwd_amount, bwd_amount for a batch
 * of `batch`, worker.h) on a host of `speed` FLOP/s of gpu in dtype: the GEMMs beside the
 * collectives (forward: QKV with an all-gather, the attention's projection with a
 * reduce-scatter, the MLP's first GEMM (and SwiGLU's gate) with an all-gather, its last with a
 * reduce-scatter; backward: the last's and the projection's input gradients with the all-gathers,
 * the first's and QKV's weight gradients with the reduce-scatters) costed by kcost.h. */
void tpov_split(const struct calib *cal, const struct gpu_model *gpu, enum gpu_dtype dtype,
                double speed, const struct layer *y, int batch, double fwd_amount,
                double bwd_amount, struct tpov_block *out);

/* What one rank needs to run a pair: its tensor group and place in it, its scale. */
struct tpov_rank {
    const struct coll_world *w;   /* its tensor-parallel group */
    const struct coll_algo *algo; /* the scenario's collective algorithm */
    int pos;                      /* its position in w */
    double scale;           /* its compute factor (straggler jitter x the microbatch's share) */
    struct run_record *rec; /* where its busy time is counted ... */
    int rank;               /* ... as worker `rank`'s */
};

/* Runs pass ps's pairs on rank tr, each collective of size_B (the whole gathered or reduced
 * activations); *gemm_s gets the GEMMs' own seconds (counted busy in rec), *exposed_s what the
 * pairs took beyond them. Returns the first failed wait's status (the pairs' collectives after
 * it are skipped, their GEMMs run), else NET_OK. */
enum net_status tpov_pass(const struct tpov_rank *tr, const struct tpov_pass *ps, double size_B,
                          double *gemm_s, double *exposed_s);

#endif
