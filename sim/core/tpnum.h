/* tpnum.h - the numerics MLP (nn.h) split by tensor and pipeline parallelism as Megatron-LM splits
 * a transformer, computed shard by shard: the gradient a hybrid job really computes.
 *
 * Pipeline: stage s of pp owns the consecutive layers [L s / pp, L (s + 1) / pp) of the L weight
 * matrices (pp <= L). A step's batch goes through in microbatches; the weights do not change
 * within a step (Megatron's schedules flush the pipeline before the optimizer), so any schedule
 * computes the same sums: the gradient is accumulated over the microbatches, each error scaled
 * by 1 / the batch, as one process's mean over the whole batch.
 *
 * Tensor parallelism inside a stage (Shoeybi et al., "Megatron-LM", 2019, section 3): its layers
 * in pairs, the first column-parallel (its weight split by output units, ReLU applied to each
 * shard alone, no communication), the second row-parallel (its weight split by input units, each
 * rank's partial products summed by an all-reduce, the bias added once after it); the backward
 * has one all-reduce, of the first layer's input errors. A stage's layer left without a partner
 * is column-parallel with its outputs all-gathered (Megatron-Core's ColumnParallelLinear with
 * gather_output=True, megatron/core/tensor_parallel/layers.py), and its input errors all-reduced.
 * The all-reduces here are sums, in rank order, of the shards' own buffers; the all-gather copies
 * each shard's columns. Megatron requires tp to divide the split widths; the sums here are exact
 * for any split, so a width w is split as [w t / tp, w (t + 1) / tp), and only tp > w is refused
 * (a rank with no units).
 *
 * Every tensor rank computes with its shards only (tpnum_load copies them out of the full
 * parameters); a replicated bias (the row-parallel layer's) has one copy per rank, whose
 * gradients agree. tpnum_loss_grad reassembles the shards' gradients into nn.h's layout, where
 * they equal nn_loss_grad's up to float rounding (tests/check_tpnum.c: 1e-6 absolute). */
#ifndef DMLSIM_TPNUM_H
#define DMLSIM_TPNUM_H

#include "nn.h"

#include <stddef.h>

enum tpnum_split {
    TPNUM_COLUMN,        /* output units split; output kept split for the row layer after it */
    TPNUM_ROW,           /* input units split; partial outputs all-reduced */
    TPNUM_COLUMN_GATHER, /* output units split; outputs all-gathered (a layer without a partner) */
};

/* One tensor rank's part of one layer. */
struct tpnum_shard {
    int lo, hi;     /* its units [lo, hi) of the split side: outputs (column), inputs (row) */
    int rows, cols; /* its weight matrix, row-major: (hi - lo) x inputs, or outputs x (hi - lo) */
    float *w, *b;   /* its weights; its biases (column: hi - lo; row: all, replicated) */
    float *gw, *gb; /* their gradients, summed over a step's microbatches */
    float *out;     /* column: its outputs (microbatch x (hi - lo)); row: its partial sums */
    float *dout;    /* column: the error of its outputs (microbatch x (hi - lo)) */
    float *dx;      /* its partial error of the layer's input (microbatch x inputs) */
};

struct tpnum {
    const struct nn *net;
    int tp, pp;                               /* tensor ranks a stage, pipeline stages */
    int mb;                                   /* the largest microbatch (examples) */
    int first[NN_MAX_LAYERS + 1];             /* stage s: layers [first[s], first[s + 1]) */
    enum tpnum_split split[NN_MAX_LAYERS];    /* each layer's split */
    struct tpnum_shard *shard[NN_MAX_LAYERS]; /* each layer's tp shards */
    float *act[NN_MAX_LAYERS + 1];   /* replicated activations: layer l's input as each rank of
                                        its stage holds it (act[0]: the microbatch; act[L]: the
                                        softmax); what stage s receives is act[first[s]] */
    float *delta[NN_MAX_LAYERS + 1]; /* replicated errors of act[l] (the backward's sends) */
};

/* Splits net over tp tensor ranks and pp stages for microbatches of up to mb examples; returns
 * 0, or -1 with why (a phrase) when pp exceeds the layers or tp a split width. */
int tpnum_init(struct tpnum *tn, const struct nn *net, int tp, int pp, int mb, char *why,
               size_t why_n);
void tpnum_release(struct tpnum *tn);

/* Each tensor rank takes its shards of params (net->nparams floats, nn.h's layout). */
void tpnum_load(struct tpnum *tn, const float *params);

/* The mean cross-entropy of the b examples (x: b x inputs, y: labels) run through the split
 * network in m microbatches (sizes differing by at most one; m <= b, each <= tn->mb), and its
 * gradient reassembled into grad (nparams floats, overwritten). */
double tpnum_loss_grad(struct tpnum *tn, const float *x, const unsigned char *y, int b, int m,
                       float *grad);

#endif
