/* nn.h - real training numerics: a multilayer perceptron (softmax regression when it has no hidden
 * layer) with ReLU hidden layers and a softmax cross-entropy output, its gradient by
 * backpropagation, and SGD (plain or with momentum) and Adam (Kingma and Ba, ICLR 2015,
 * Algorithm 1). Matrix products go through CBLAS (OpenBLAS, one thread), so the same inputs give
 * the same bits. Parameters are one contiguous float vector, so a gradient is one buffer a
 * collective or a parameter server can carry. */
#ifndef DMLSIM_NN_H
#define DMLSIM_NN_H

#include <stddef.h>
#include <stdint.h>

#define NN_MAX_LAYERS 8

struct nn {
    int nlayers;                   /* weight matrices: hidden layers + 1 */
    int sizes[NN_MAX_LAYERS + 1];  /* input, hidden..., classes */
    size_t nparams;                /* every weight and bias */
    size_t woff[NN_MAX_LAYERS];    /* offset of layer l's weights (sizes[l+1] x sizes[l]) */
    size_t boff[NN_MAX_LAYERS];    /* offset of its biases (sizes[l+1]) */
};

/* Shapes a network of `in` inputs, nh hidden layers of hidden[] units and `classes` outputs;
 * returns 0, or -1 when nh > NN_MAX_LAYERS - 1 or a size is < 1. */
int nn_shape(struct nn *n, int in, const int *hidden, int nh, int classes);

/* He initialisation (He et al., ICCV 2015: normal with variance 2 / fan-in) from `seed`; biases 0. */
void nn_init(const struct nn *n, uint64_t seed, float *params);

/* Scratch for a batch of up to `batch` examples (nn_work_release). */
struct nn_work {
    int batch;
    float *act[NN_MAX_LAYERS + 1]; /* activations per layer, batch x sizes[l] */
    float *delta[2];               /* backpropagated errors, batch x the widest layer */
};
void nn_work_init(struct nn_work *w, const struct nn *n, int batch);
void nn_work_release(struct nn_work *w);

/* The mean cross-entropy of b examples (x: b x in, y: labels) and, if grad is not NULL, its
 * gradient with respect to params (nparams floats, overwritten). */
double nn_loss_grad(const struct nn *n, const float *params, const float *x,
                    const unsigned char *y, int b, float *grad, struct nn_work *w);

/* Accuracy (fraction correct) of the N examples, in batches of w->batch; *loss: their mean
 * cross-entropy (may be NULL). */
double nn_accuracy(const struct nn *n, const float *params, const float *x,
                   const unsigned char *y, int N, struct nn_work *w, double *loss);

enum nn_optimizer { NN_SGD, NN_MOMENTUM, NN_ADAM };

struct nn_opt {
    enum nn_optimizer kind;
    double lr;          /* learning rate */
    double momentum;    /* NN_MOMENTUM: mu (0.9) */
    double beta1, beta2, eps; /* NN_ADAM: 0.9, 0.999, 1e-8 (the paper's defaults) */
    long t;             /* updates applied */
    size_t n;           /* parameters */
    float *m, *v;       /* slots: momentum / Adam's first and second moments */
};

void nn_opt_init(struct nn_opt *o, enum nn_optimizer kind, double lr, size_t nparams);
void nn_opt_release(struct nn_opt *o);
/* params -= the optimizer's step for grad. */
void nn_opt_step(struct nn_opt *o, float *params, const float *grad);

/* A copy of the training state of n parameters, as a checkpoint or a survivor holds it: their
 * values, the optimizer's slots and update count (Adam's t), the updates applied (`step`: a
 * replica's step, a shard's version) and the data position (`pos`: steps' worth of batches read in
 * data order, which is where the next batch comes from). The learning rate is constant and the
 * only random numbers are the initialisation's, so nothing else is state. */
struct nn_state {
    int step;
    long long pos;
    size_t n;
    float *params, *m, *v; /* m, v: NULL when the optimizer has no such slot */
    long t;
};

void nn_state_save(struct nn_state *s, const float *params, const struct nn_opt *o, int step,
                   long long pos);
void nn_state_load(const struct nn_state *s, float *params, struct nn_opt *o);
void nn_state_release(struct nn_state *s);

/* The softmax of a row of c logits, in place, shifted by the row's largest (nn_forward's last
 * layer; tpnum.c's too). */
void nn_softmax_row(float *row, int c);

#endif
