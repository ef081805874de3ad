/* par_fit.h - does a parallel layout fit its GPUs' memory, and if not, the smallest set of
 * changes that makes it fit (the out-of-memory message's proposal; `dmlsim plan` may reuse it).
 *
 * The changes, in the order they are tried (cheapest first, as parallel.h lists them): a higher
 * ZeRO stage (optimizer state, then gradients, then weights sharded over the replicas),
 * recomputation (selective, then full), sequence parallelism, 2 or 4 times the pipeline stages
 * for as many times fewer replicas, the same for the tensor ranks, a microbatch of 1/2, 1/4 or
 * 1/8 the samples. Each knob changes at most once. The search is breadth first by the number of
 * knobs changed, 1 to PAR_FIT_MAX_CHANGES: among sets of as many changes, the first in that
 * order (knobs earlier in the list first, each knob's smallest step first) that fits wins, not
 * the one needing the least memory: the fewest and cheapest changes, the least disruption to the
 * layout. Bounded: at most (1 + 3)(1 + 2)(1 + 1)(1 + 2)(1 + 2)(1 + 3) = 864 layouts, each one
 * par_memory.
 */
#ifndef DMLSIM_PAR_FIT_H
#define DMLSIM_PAR_FIT_H

#include "parallel.h"

#include <stdbool.h>
#include <stddef.h>

#define PAR_FIT_MAX_CHANGES 4 /* the most knobs a proposal changes */

enum par_knob {                     /* in the order tried */
                PAR_KNOB_ZERO,      /* value: the ZeRO stage */
                PAR_KNOB_RECOMPUTE, /* value: enum recompute */
                PAR_KNOB_SP,        /* value: 1 (sequence parallelism on) */
                PAR_KNOB_PP,    /* value: the pipeline stages (the replicas fewer as many times) */
                PAR_KNOB_TP,    /* value: the tensor ranks (the same) */
                PAR_KNOB_BATCH, /* value: a microbatch's samples */
                PAR_KNOBS,
};

struct par_change {
    enum par_knob knob;
    int value; /* its new value (see enum par_knob) */
};

/* A proposal: the changes, the layout they give, and its memory. */
struct par_fit {
    int n;                                         /* changes, 1 .. PAR_FIT_MAX_CHANGES */
    struct par_change change[PAR_FIT_MAX_CHANGES]; /* in the order of enum par_knob */
    struct parallel_spec p;                        /* the changed layout */
    int b;                                         /* the changed microbatch's samples */
    struct par_memory mem;                         /* its memory per rank (fits) */
};

/* The smallest set of changes of (p, b) whose memory per rank fits mem_B (see above): true and
 * *f if one is found, false if none of up to PAR_FIT_MAX_CHANGES changes fits. */
bool par_fit_search(const struct parallel_spec *p, const char *preset, const struct gpt_config *g,
                    enum gpu_dtype dtype, enum optimizer opt, int b, double mem_B,
                    struct par_fit *f);

/* The changes as scenario attributes, `zero="1" recompute="selective"`, into buf. */
void par_fit_describe(const struct par_fit *f, char *buf, size_t len);

/* Does it fit a GPU of mem_B bytes? 0 if so; else -1 and, in why, the need and its largest
 * term, and the smallest set of changes that fits (par_fit_search), or "more GPUs". */
int par_check_fit(const struct parallel_spec *p, const char *preset, const struct gpt_config *g,
                  enum gpu_dtype dtype, enum optimizer opt, int b, double mem_B, char *why,
                  size_t len);

#endif
