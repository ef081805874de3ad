/* plan_space.h - the layouts `dmlsim plan` considers, and why it sets the others aside.
 *
 * A layout is a struct parallel_spec (parallel.h) and a microbatch size b on the scenario's
 * cluster, the global batch (dp x microbatches x b sequences, as the scenario has it) kept: the
 * tensor ranks tp (powers of 2 up to a node's GPUs: Megatron-LM keeps tensor parallelism inside
 * a node, Narayanan et al. SC'21, takeaway #1), the pipeline stages pp (divisors of the rest), dp
 * the rest, the expert ranks ep (divisors of dp and of the experts), b in 1, 2, 4, 8, 16, the
 * schedule (1F1B, or interleaved with v = 2, 3, 4, 6 or 8 chunks a stage when pp > 1), the ZeRO
 * stage (0 and 1 with pipelines: Megatron's distributed optimizer is ZeRO-1 and DeepSpeed refuses
 * ZeRO-2 and -3 with pipeline parallelism; 0 to 3 without), the recomputation (none, selective,
 * full), sequence parallelism (with tp > 1) and the order (tp-dp-pp, and tp-pp-dp when pp and dp
 * are both above 1); the scenario's own overlap-grad-reduce (ZeRO 0 or 1 then),
 * overlap-param-gather (ZeRO-1 then), bucket-size and prefetch are kept. Each is checked in that
 * order; the first rule it breaks sets it aside, counted by reason with the first such layout as an
 * example; the rest must pass par_shape_ok (the strategy's own rule) and fit a GPU (par_memory, the
 * strategy's own estimate).
 */
#ifndef DMLSIM_PLAN_SPACE_H
#define DMLSIM_PLAN_SPACE_H

#include "parallel.h"
#include "scenario.h"

#include <stddef.h>

enum plan_reject {
    PLAN_TP_HEADS,   /* tp does not divide the heads or the key/value heads */
    PLAN_PP_BLOCKS,  /* pp x virtual stages does not divide the blocks */
    PLAN_BATCH,      /* dp x b does not divide the global batch */
    PLAN_INTERLEAVE, /* interleaved: microbatches not a multiple of pp */
    PLAN_EP,         /* ep with tensor parallelism needs sequence parallelism */
    PLAN_MEMORY,     /* does not fit a GPU */
    PLAN_REJECTS
};

/* Choices a plan may keep as the scenario has them (--fix: what the user's framework cannot
 * change), bits of plan_space.fixed. */
enum plan_fix {
    PLAN_FIX_ZERO = 1,
    PLAN_FIX_RECOMPUTE = 2,
    PLAN_FIX_SP = 4,
    PLAN_FIX_ORDER = 8,
    PLAN_FIX_CP = 16,
};

/* The bit of the name (zero, recompute, sequence-parallel, order, cp), or 0. */
unsigned plan_fix_bit(const char *name);

/* One layout that divides and fits. */
struct plan_cand {
    struct parallel_spec p;
    int b;                 /* sequences a microbatch (batch-per-gpu) */
    struct par_memory mem; /* par_memory: the stage that needs the most */
    double est_s;          /* first-order step time (plan_est.h), 0 until estimated */
    int id;                /* its number in the enumeration (1, 2, ...) */
};

struct plan_space {
    struct plan_cand *c; /* the layouts kept, in enumeration order */
    int n;
    long considered;                 /* layouts enumerated */
    long twins;                      /* kept, but dropped as twins (plan.c) */
    long rejected[PLAN_REJECTS];     /* set aside, by reason */
    char example[PLAN_REJECTS][128]; /* the first one of each reason */
    int global_batch;                /* sequences a step */
    unsigned fixed; /* enum plan_fix bits: kept as the scenario has them */
};

/* Every layout of sc's cluster for its <model> and global batch into s (release it), the choices
 * of `fixed` (enum plan_fix bits) as sc has them. */
void plan_enumerate(const struct scenario *sc, unsigned fixed, struct plan_space *s);

/* Why a layout of reason r is set aside, as a phrase. */
const char *plan_reject_why(enum plan_reject r);

/* A layout as `tp 8 pp 4 dp 2 b 1 m 16 1f1b zero 1 selective sp tp-dp-pp` into buf. */
void plan_describe(const struct parallel_spec *p, int b, char *buf, size_t len);

void plan_space_release(struct plan_space *s);

#endif
