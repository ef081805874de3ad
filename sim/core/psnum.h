/* psnum.h - the real state of a parameter-server shard under <numerics>: which parameters it
 * owns (its slice of the flat parameter vector), their values, its optimizer's slots, and the
 * gradients of the pushes it has accepted for its next version.
 *
 * A shard owns whole layers when the model is split by layer (shard k: layers k, k + K, ..., as
 * ps_split assigns them), or one contiguous run of N / K parameters when split by bytes. A
 * layer's weights and biases are adjacent in the vector (nn.h), so a slice is at most
 * NN_MAX_LAYERS runs. The optimizer is elementwise (nn_opt_step), so stepping a shard's packed
 * slice gives the same bits as stepping the same parameters in the whole vector. */
#ifndef DMLSIM_PSNUM_H
#define DMLSIM_PSNUM_H

#include "numerics.h"

#include <stdbool.h>

struct pslice {
    size_t n;                   /* parameters owned */
    int nr;                     /* runs */
    size_t off[NN_MAX_LAYERS];  /* each run's first parameter in the flat vector */
    size_t len[NN_MAX_LAYERS];  /* and its length */
};

struct psnum {
    struct pslice sl;
    float *w;          /* the owned parameters, packed (sl.n) */
    float *acc;        /* the sum of the gradients accepted for the next version */
    int nacc;          /* gradients in acc (a push of a node's sum counts each) */
    struct nn_opt opt; /* slots for the owned parameters */
};

void pslice_make(const struct nn *net, int K, bool by_bytes, int k, struct pslice *sl);
void pslice_gather(const struct pslice *sl, const float *full, float *packed);
void pslice_scatter(const struct pslice *sl, const float *packed, float *full);

/* Shard k of K: the initial parameters (the scenario's seed, as every replica), lr nm->lr. */
void psnum_init(struct psnum *p, const struct numerics *nm, int K, bool by_bytes, int k);
void psnum_release(struct psnum *p);

/* The initial state again (a shard that lost its state with nothing to restore). */
void psnum_reset(struct psnum *p, const struct numerics *nm, int K, bool by_bytes, int k);

/* Accepts a pushed gradient (sl.n floats), the sum of `grads` workers' gradients (1, or a
 * node's aggregated ones), for the next version. */
void psnum_add(struct psnum *p, const float *grad, int grads);

/* The next version: the mean of the accepted gradients through the optimizer at learning rate
 * lr (nothing if none); returns how many it averaged. */
int psnum_apply(struct psnum *p, double lr);

#endif
