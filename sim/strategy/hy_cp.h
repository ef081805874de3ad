/* hy_cp.h - context parallelism's attention in the hybrid strategy: the keys and values passed
 * round the context ranks (a ring, "p2p") or all-gathered, overlapped as Transformer Engine runs
 * them.
 *
 * Context parallelism (Megatron-Core, docs "context_parallel": --context-parallel-size, the
 * attention by Transformer Engine's DotProductAttention with cp_comm_type "p2p", the default,
 * or "all_gather") splits each sample's s tokens over cp ranks: the sequence in 2 cp chunks,
 * rank c holding chunks c and 2 cp - 1 - c, so that under the causal mask every rank has the
 * same share of the attention (TE's get_seq_chunk_ids_for_reordering). Everything but the
 * attention core is token-wise: a rank runs its block on s / cp tokens (parallel.h). Its
 * attention core is its s / cp queries against all the keys before them: with the balanced
 * chunks, cp steps of (s / cp)^2 / 2 query-key pairs each, the same as a causal attention of
 * s / cp tokens (the diagonal step: both chunks against themselves, causal; each other step
 * either both query chunks against the sender's first key chunk or the second query chunk
 * against both key chunks, (s / 2 cp)(s / cp) pairs unmasked: TE's AttnFuncWithCPAndKVP2P),
 * cp (s / cp)^2 / 2 = s^2 / (2 cp) in all, 1 / cp of the full causal attention's.
 *
 * p2p (TE's AttnFuncWithCPAndKVP2P, transformer_engine/pytorch/attention/dot_product_attention/
 * context_parallel.py; Liu et al. 2023's ring attention): in the forward, step i of cp posts the
 * send of the K and V chunk in hand to the next context rank and the receive of the previous
 * rank's (none at the last step), runs the attention of the chunk in hand, then waits for both:
 * cp - 1 messages of a chunk, each overlapped with one step's attention. A chunk is
 * 2 b (s / cp) (kv_heads / tp) head_dim elements (K and V of the rank's query groups). The
 * backward runs cp steps the same way, its messages the K and V chunk (step 0), K, V and the
 * partial dK, dV travelling together (steps 1 to cp - 2), then dK, dV alone (step cp - 1, waited
 * for after the loop): 2 (cp - 1) chunks.
 * all-gather (TE's AttnFuncWithCPAndKVAllGather, "KV all-gather between CP ranks is exposed",
 * after Dubey et al. 2024, "The Llama 3 Herd of Models", section 3.3.2): K and V all-gathered
 * over the context group before the attention, exposed, then the attention of the rank's
 * queries; in the backward K and V all-gathered again (the forward keeps its own chunk only) and
 * dK, dV reduce-scattered after it.
 * Left out: TE's second stream (the steps' output corrections are not costed), the transient
 * receive buffers (two chunks) in the memory, and a layer's attention run in the middle of its
 * block: the block's other work runs first, then the cp steps (the first message overlaps the
 * diagonal step, as TE's does).
 */
#ifndef DMLSIM_HY_CP_H
#define DMLSIM_HY_CP_H

#include "collective.h"
#include "job.h"
#include "net.h"
#include "parallel.h"
#include "platform.h"
#include "traffic.h"

#include <stdbool.h>

/* A layout's context parallelism (hycp_init). */
struct hycp {
    const struct parallel_spec *p;
    const struct platform *pf;
    struct traffic *traffic; /* the ring's messages counted here (the all-gather's: its world) */
    double kv_B;             /* a rank's K and V chunk */
    double core_fwd;         /* exec amount of one step's attention core, forward */
    double core_bwd;         /* ... backward */
    double timeout_s;        /* a wait's (<training timeout>) */
};

/* What the strategy does for a rank: run an exec amount on its GPU (its compute time), run a
 * collective in its context group, and hear of a wait that failed. */
struct hycp_hooks {
    void *ctx;
    void (*exec)(void *ctx, double amount);
    void (*collective)(void *ctx, enum coll_op op, double size_B);
    void (*wait_failed)(void *ctx, enum net_status st, const char *what);
};

/* The chunk of K and V a context rank holds: 2 b (s / cp) (kv_heads / tp) (h / heads) elements
 * of elem_B bytes (g: the model's shape, its full sequence). */
double hycp_kv_bytes(const struct parallel_spec *p, const struct gpt_config *g, int b,
                     double elem_B);

/* h for job j's layout p (cp > 1; else an h that does nothing): its chunk of K and V, and one
 * step's attention core (model_attention_core of gc, the shape of a rank's s / cp tokens split
 * over the tensor ranks) costed as the compute model costs every kernel; that core taken out of
 * each block's amounts in amt (of s / cp tokens: their diagonal step), since hycp_attention
 * runs all cp steps. The ring's messages counted in traffic. */
void hycp_init(struct hycp *h, const struct job *j, const struct parallel_spec *p,
               const struct gpt_config *gc, const struct kernel_costs *kc,
               struct worker_amounts *amt, struct traffic *traffic);

/* The attention of rank (t, c, s, d)'s microbatch through one block with its context ranks
 * (cp > 1): the forward's or the backward's exchange and its cp steps of attention (the block's
 * own amounts hold none of its core). Returns the seconds it spent in communication not
 * hidden by the attention (waits and collectives). */
double hycp_attention(const struct hycp *h, int t, int c, int s, int d, bool backward,
                      const struct hycp_hooks *k);

#endif
