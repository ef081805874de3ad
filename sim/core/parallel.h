/* parallel.h - tensor, pipeline and data parallelism as plain data: where each rank sits, which
 * layers each pipeline stage holds, the order a stage runs its microbatches in, and the memory a
 * rank needs (strategy="hybrid", <parallel>).
 *
 * Ranks: rank = t + tp (d + dp s) in Megatron's order tp-dp-pp (tensor ranks adjacent, so on one
 * node; replicas next; pipeline stages outermost), or t + tp (s + pp d) in tp-pp-dp; with context
 * parallelism (cp > 1) the context ranks come right after the tensor ranks (par_rank_cp).
 * Context parallelism (Megatron-Core's context_parallel docs): each sample's sequence in 2 cp
 * chunks, context rank c holding chunks c and 2 cp - 1 - c (the causal load balance), so s / cp
 * tokens: its activations are those of s / cp tokens, its parameters all of its stage's share,
 * ZeRO sharding them over the dp x cp ranks that hold the same ones; the sequence a multiple
 * of 2 cp.
 * Stages: the blocks split evenly (layers divisible by pp), the embedding with stage 0 and the
 * output layer with the last (Megatron's), or unevenly as Megatron-Core allows (par_stages.c:
 * the first and last stages' blocks given, or every stage's, or the embedding and the loss
 * counted as layers of the split).
 * Schedules (Narayanan et al., SC'21, section 2.2): GPipe runs the m forwards, then the m
 * backwards; 1F1B (PipeDream-Flush) runs min(m, p - 1 - s) forwards on stage s, then alternates
 * one forward and one backward, then the remaining backwards. With uniform stages both take
 * (m + p - 1)(t_f + t_b): a bubble of (p - 1) / (m + p - 1) of the pipeline's time; 1F1B keeps
 * at most p - s microbatches' activations in flight instead of m.
 * Memory per rank (max over the stages): weights, gradients and optimizer state of its stage's
 * share of the parameters, ZeRO-sharded over the dp ranks (Rajbhandari et al., SC'20: stage 1
 * the optimizer state, 2 also the gradients, 3 also the weights), plus the activations of the
 * microbatches in flight (Korthikanti et al. 2022: per block sbh(10 + 24/t + 5as/(ht)) at 16-bit,
 * sbh/t (34 + 5as/h) with sequence parallelism, without the 5as/h term under selective
 * recomputation, and 2sbh (2sbh/t with sequence parallelism), the block's input, under full
 * recomputation), and the embedding's and
 * the output layer's on their stages.
 */
#ifndef DMLSIM_PARALLEL_H
#define DMLSIM_PARALLEL_H

#include "model.h"
#include "par_stages.h"
#include "scenario.h"

#include <stddef.h>

/* Context-parallel ranks of p (its cp, 1 when 0). */
int par_cp(const struct parallel_spec *p);

/* The rank at tensor index t, context rank c, pipeline stage s, replica d, and back:
 * t + tp (c + cp (d + dp s)) (tp-dp-pp) or t + tp (c + cp (s + pp d)) (tp-pp-dp), the context
 * ranks right after the tensor ranks as in Megatron-Core's default order "tp-cp-ep-dp-pp"
 * (megatron/core/parallel_state.py, initialize_model_parallel's `order`). */
int par_rank_cp(const struct parallel_spec *p, int t, int c, int s, int d);
void par_coords_cp(const struct parallel_spec *p, int rank, int *t, int *c, int *s, int *d);

/* The same at context rank 0 (par_coords drops c). */
int par_rank(const struct parallel_spec *p, int t, int s, int d);
void par_coords(const struct parallel_spec *p, int rank, int *t, int *s, int *d);

/* Model layers [*first, *last) of virtual stage vs (of pp x vstages: chunk c of stage s is
 * virtual stage c pp + s) of a model of `blocks` transformer blocks whose layers are the
 * embedding, the blocks, the output layer. Without interleaving, virtual stage s is stage s. */
void par_stage_layers(const struct parallel_spec *p, int blocks, int vs, int *first, int *last);

/* One step of a stage's schedule: the forward or the backward of a microbatch through one of its
 * model chunks. */
struct pp_op {
    bool backward;
    int mb;
    int chunk;
};

/* Operations of a stage's schedule: a forward and a backward of each microbatch through each of
 * its vstages chunks, 2 m vstages. */
int par_schedule_len(const struct parallel_spec *p);

/* Stage s's par_schedule_len operations in order into ops (room for that many). Interleaved
 * (Megatron's schedules.py): (p - s - 1) 2 + (v - 1) p forwards first (all of them when m = p),
 * then one forward one backward; the k-th forward runs chunk (k mod p v) / p on microbatch
 * (k / p v) p + k mod p, the k-th backward chunk v - 1 - (k mod p v) / p on the same. */
void par_schedule(const struct parallel_spec *p, int s, struct pp_op *ops);

/* How many microbatches' worth of stage s's layers it holds activations for at once: m (GPipe),
 * min(m, p - s) (1F1B), and with v chunks the forwards ahead of the first backward plus one,
 * each of 1/v of the layers (on stage 0: p + (p - 1)/v; Korthikanti et al. 2022, section 4.2.3:
 * (1 + (p - 1)/(p v)) times 1F1B's). */
double par_in_flight(const struct parallel_spec *p, int s);

/* Does p split g's shape: its stages the blocks (par_stages_ok), tp dividing the heads and the
 * key/value heads (Megatron-Core splits whole query groups), ep dividing dp, 2 cp dividing the
 * sequence (cp > 1)? */
bool par_shape_ok(const struct parallel_spec *p, const struct gpt_config *g);

struct par_memory {
    double weights_B, grads_B, optimizer_B, act_B, total_B; /* per rank, on stage `stage` */
    int stage;                                              /* the stage needing the most */
};

/* The memory per rank of `preset` (a transformer, with shape g) trained under p with microbatches
 * of b samples in dtype with opt: the most any stage needs; par_memory_stages: each stage's (every
 * rank of a stage needs the same: its tensor, replica and expert shares are equal), into x (p->pp
 * entries). */
struct par_memory par_memory(const struct parallel_spec *p, const char *preset,
                             const struct gpt_config *g, enum gpu_dtype dtype, enum optimizer opt,
                             int b);
void par_memory_stages(const struct parallel_spec *p, const char *preset,
                       const struct gpt_config *g, enum gpu_dtype dtype, enum optimizer opt, int b,
                       struct par_memory *x);

#endif
