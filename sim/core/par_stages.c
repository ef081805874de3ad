/* par_stages.c - how many transformer blocks each pipeline stage holds, even or not (see
 * par_stages.h).
 *
 * Megatron-Core's rule (megatron/core/transformer/transformer_block.py, get_num_layers_to_build;
 * the options in megatron/training/arguments.py): by default the blocks split evenly over the
 * pp stages, the embedding with the first and the output layer with the last.
 * --decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers set the first's
 * and the last's blocks, and the rest split evenly over the middle stages (the rest must divide);
 * --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split count the
 * embedding (the loss) as one layer of the even split, so the first (last) virtual stage builds
 * one block fewer; the two ways exclude each other there ("does not support standalone embedding
 * stage and standalone loss stage with uneven pp"). With v model chunks a stage
 * (interleaving) each stage's blocks split evenly over its chunks, and an uneven first or last
 * stage's blocks must be a multiple of v (TransformerConfig's "number of layers at first stage
 * must be divisible by virtual pipeline parallel degree").
 * stage-layers, a list of each stage's blocks, is dmlsim's form of Megatron's
 * --pipeline-model-parallel-layout (Megatron-LM MR 2795, flexible layouts for heterogeneous
 * models), per stage rather than per virtual stage: with interleaving each entry splits evenly
 * over the stage's chunks as the first and last stages' do. */
#include "par_stages.h"

#include <stdarg.h>
#include <stdio.h>

static int chunks(const struct parallel_spec *p)
{
    return p->vstages > 1 ? p->vstages : 1;
}

bool par_uneven(const struct parallel_spec *p)
{
    return p->nstage_blocks > 0 || p->first_blocks > 0 || p->last_blocks > 0 || p->embed_split ||
           p->loss_split;
}

int par_vstage_blocks(const struct parallel_spec *p, int blocks, int vs)
{
    int v = chunks(p), nv = p->pp * v, s = vs % p->pp;
    if (p->nstage_blocks > 0) return p->stage_blocks[s] / v;
    if (p->first_blocks > 0 || p->last_blocks > 0) {
        if (s == 0 && p->first_blocks > 0) return p->first_blocks / v;
        if (s == p->pp - 1 && p->last_blocks > 0) return p->last_blocks / v;
        int mid = p->pp - (p->first_blocks > 0) - (p->last_blocks > 0);
        return (blocks - p->first_blocks - p->last_blocks) / mid / v;
    }
    int per = (blocks + p->embed_split + p->loss_split) / nv;
    return per - (vs == 0 && p->embed_split) - (vs == nv - 1 && p->loss_split);
}

int par_stage_blocks(const struct parallel_spec *p, int blocks, int s)
{
    int n = 0;
    for (int c = 0; c < chunks(p); c++)
        n += par_vstage_blocks(p, blocks, c * p->pp + s);
    return n;
}

/* false, with why (if any) written as fmt says. */
static bool refuse(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (why != NULL) vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return false;
}

/* stage-layers: pp entries, each a multiple of the chunks, summing to the blocks. */
static bool list_ok(const struct parallel_spec *p, int blocks, char *why, size_t len)
{
    int v = chunks(p), sum = 0;
    for (int s = 0; s < p->nstage_blocks; s++) {
        if (p->stage_blocks[s] < v || p->stage_blocks[s] % v != 0)
            return refuse(why, len,
                          "stage %d's %d blocks do not split over its %d model chunks; expected "
                          "multiples of virtual-stages",
                          s, p->stage_blocks[s], v);
        sum += p->stage_blocks[s];
    }
    if (p->nstage_blocks != p->pp)
        return refuse(why, len, "%d stages listed; expected pp (%d) entries", p->nstage_blocks,
                      p->pp);
    if (sum != blocks)
        return refuse(why, len, "the list sums to %d blocks; expected the model's %d", sum, blocks);
    return true;
}

bool par_stages_ok(const struct parallel_spec *p, int blocks, char *why, size_t len)
{
    int v = chunks(p), nv = p->pp * v, f = p->first_blocks, l = p->last_blocks;
    if (p->nstage_blocks > 0) return list_ok(p, blocks, why, len);
    if (f > 0 || l > 0) {
        int mid = p->pp - (f > 0) - (l > 0), rest = blocks - f - l;
        bool even = mid > 0 ? rest >= mid * v && rest % (mid * v) == 0 : rest == 0;
        if (p->pp < 2 || f % v != 0 || l % v != 0 || !even)
            return refuse(why, len,
                          "first %d and last %d of %d blocks leave %d for %d middle stage(s) of %d "
                          "chunk(s); expected the rest split evenly and every stage's blocks a "
                          "multiple of virtual-stages (Megatron-Core's rule)",
                          f, l, blocks, rest, mid, v);
        return true;
    }
    int n = blocks + p->embed_split + p->loss_split;
    if (n % nv != 0)
        return refuse(why, len,
                      "%d blocks%s split over %d virtual stage(s); expected pp (times the virtual "
                      "stages) dividing them",
                      blocks, p->embed_split || p->loss_split ? " with the embedding or loss" : "",
                      nv);
    return true;
}

void par_stages_describe(const struct parallel_spec *p, int blocks, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int s = 0; s < p->pp && at < len; s++) {
        int n = snprintf(buf + at, len - at, "%s%d", s ? "," : "", par_stage_blocks(p, blocks, s));
        at += n > 0 ? (size_t)n : 0;
    }
}
