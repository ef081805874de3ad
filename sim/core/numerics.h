/* numerics.h - the real training behind a simulated run (<numerics>): the dataset, the MLP, and
 * one replica per worker. Each worker computes its gradient on its own minibatch with the
 * parameters it holds; the strategy's simulated protocol decides what is combined and applied
 * (all-reduce: the gradients its collectives really reduced, averaged). Data order is a function
 * of the step, so a replayed step reads the same batch.
 *
 * Data: worker r of P, at data position s, reads examples (s P + r) b .. (s P + r) b + b - 1 of the
 * training set, modulo its size (every worker its own slice of each step's global batch, in
 * file order; an epoch is N / (P b) steps), or with an input pipeline the examples its shuffle
 * puts in those slots (order.h). Initial parameters come from the scenario's seed, the
 * same for every replica. */
#ifndef DMLSIM_NUMERICS_H
#define DMLSIM_NUMERICS_H

#include "error.h"
#include "fault.h"
#include "idx.h"
#include "model.h"
#include "nn.h"
#include "order.h"
#include "scenario.h"

struct numerics {
    const struct numerics_spec *spec;
    struct idx_set train, test;
    struct nn net;
    enum nn_optimizer opt; /* the training's optimizer */
    double lr;             /* after the scaling rule (numerics_averaged) */
    int batch;             /* examples per worker per step */
    int workers;
    unsigned long seed;
    struct order order;    /* which examples a batch holds: <data shuffle>'s order, or the file's */
    const struct data_spec *data;  /* the input pipeline (its shards), or NULL */
    const struct fault_plan *plan; /* the run's (its corrupt shards: the run skeleton sets it) */
    float *x;              /* a batch's examples, gathered */
    unsigned char *y;
    struct nn_work work, eval_work;
    double grad_wall_s, eval_wall_s; /* wall-clock time in gradients and evaluations (--timing) */
};

/* The monotonic wall clock (seconds) grad_wall_s and eval_wall_s are measured with; --timing
 * measures the whole run with it too, so the split adds up. */
double numerics_wall_now(void);

struct replica {
    float *params, *grad;
    struct nn_opt opt;
};

/* Reads the dataset and shapes the network for P workers of `batch` (under strategy="hybrid":
 * the dp data-parallel replicas, each of microbatches x `batch` examples; files under spec->dir:
 * train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
 * t10k-labels-idx1-ubyte, each .gz or plain). Errors name the file (FILE:0). */
enum dmlsim_err numerics_open(const struct scenario *sc, int P, struct numerics *nm,
                              struct dmlsim_error *err);
void numerics_close(struct numerics *nm);

/* The simulated model of the network: a layer per weight matrix, with its parameters and
 * 2 x params FLOPs per sample forward (one multiply-add per weight) and twice that backward. */
void numerics_model(const struct numerics *nm, struct model *m);

void replica_init(const struct numerics *nm, struct replica *rp);
void replica_release(struct replica *rp);

/* rp->grad = the gradient of worker `rank`'s minibatch at data position `pos` (a step's worth of
 * batches per position: the step, unless batches were skipped after a failure), over its samples
 * outside the pipeline's corrupt shards (at least one); returns its mean loss. */
double replica_gradient(struct numerics *nm, struct replica *rp, int rank, long long pos);

/* The initial state again (a process that starts with nothing to restore). */
void replica_reset(const struct numerics *nm, struct replica *rp);

/* The checkpoints' states not yet superseded, by step (a checkpoint counts some time after its
 * snapshot is taken, so the one to restore is looked up by the step it holds). */
struct nn_states {
    struct nn_state *v;
    size_t n, cap;
};

/* Takes s (its buffers now the set's), replacing a state of the same step. */
void nn_states_put(struct nn_states *ss, struct nn_state *s);
/* The state of `step`, or NULL. */
const struct nn_state *nn_states_find(const struct nn_states *ss, int step);
/* Drops the states of steps below `step` (superseded by a counted checkpoint). */
void nn_states_prune(struct nn_states *ss, int step);
/* Drops the states of steps above `step` (a lineage given up: split brain's merge). */
void nn_states_drop_after(struct nn_states *ss, int step);
void nn_states_release(struct nn_states *ss);

/* The learning rate of the update after `updates` ones: the scaled lr, or during a warm-up of W
 * updates lr + (scaled lr - lr) x updates / W (Goyal et al. 2017, section 2.2). A function of
 * the optimizer's update count, which a checkpoint holds: the schedule is restored with it. */
double numerics_lr_at(const struct numerics *nm, long updates);

/* Applies grad x scale (scale: 1 / the workers averaged) with the optimizer, at the schedule's
 * learning rate. */
void replica_apply(const struct numerics *nm, struct replica *rp, float scale);

/* FNV-1a (64 bits; Fowler, Noll and Vo) of the bytes of n floats: equal parameters, equal
 * fingerprint, so runs can be compared to the bit. */
unsigned long long numerics_fingerprint(const float *params, size_t n);

/* Test accuracy and loss of the parameters (nm->net.nparams floats). */
double numerics_evaluate(struct numerics *nm, const float *params, double *loss);

/* The gradients one update averages, which the linear scaling rule multiplies lr by: P under
 * the all-reduce, the quorum (P - backup workers) under a sync PS, 1 under an async PS (each
 * push is an update of one worker's batch), dp x microbatches under the hybrid strategy (each
 * replica's gradient the mean of its microbatches of `batch`). */
int numerics_averaged(const struct scenario *sc, int P);

#endif
