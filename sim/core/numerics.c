/* numerics.c - the real training behind a simulated run (see numerics.h). */
#include "numerics.h"

#include "mem.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double numerics_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* DIR/NAME.gz if it exists, else DIR/NAME (a new string). */
static char *data_file(const char *dir, const char *name)
{
    char *gz = mem_printf("%s/%s.gz", dir, name);
    if (access(gz, R_OK) == 0) return gz;
    free(gz);
    return mem_printf("%s/%s", dir, name);
}

static enum dmlsim_err load_pair(const char *dir, const char *img, const char *lab, int max_n,
                                 struct idx_set *out, struct dmlsim_error *err)
{
    char *a = data_file(dir, img), *b = data_file(dir, lab);
    enum dmlsim_err rc = idx_load(a, b, max_n, out, err);
    free(a);
    free(b);
    return rc;
}

int numerics_averaged(const struct scenario *sc, int P)
{
    const struct ps_spec *ps = &sc->train.ps;
    if (sc->train.strategy == STRAT_HYBRID) return sc->train.par.dp * sc->train.par.microbatches;
    if (sc->train.strategy != STRAT_PS) return P;
    return ps->mode == PS_SYNC ? P - ps->backup : 1;
}

/* Resident memory of this process now (/proc/self/statm), or 0. */
static double resident_B(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, rss = 0;
    if (f == NULL || fscanf(f, "%ld %ld", &size, &rss) != 2) rss = 0;
    if (f) fclose(f);
    return (double)rss * (double)sysconf(_SC_PAGESIZE);
}

/* The host memory the real training will hold (a floor): every worker's replica (weights,
 * gradients and the optimizer's state: momentum one more copy, Adam two; replica_init), with a
 * parameter server also each worker's two pull buffers and the shards' weights, accumulators and
 * state (psnum_init), and the layers' activations of a batch and of an evaluation (nn_work_init).
 * Added to what the process holds already (the platform is loaded), it must fit in this
 * machine's physical memory: a network that fits a simulated GPU can still need tens of GB of
 * host memory for P replicas, and would be killed for memory after minutes of set-up. */
static enum dmlsim_err check_memory(const struct scenario *sc, int P, const struct nn *net,
                                    struct dmlsim_error *err)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double limit = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
    double states = sc->train.opt == OPT_ADAM ? 2 : sc->train.opt == OPT_MOMENTUM ? 1 : 0;
    double n = (double)net->nparams, f = sizeof(float), widths = 0;
    for (int l = 0; l <= net->nlayers; l++)
        widths += net->sizes[l];
    bool ps = sc->train.strategy == STRAT_PS;
    double replicas = P * (2 + states + (ps ? 2 : 0)) * n * f;
    double shards = ps ? (2 + states) * n * f : 0;
    double work = 2 * ((double)sc->train.batch + 500) * widths * f;
    double held = resident_B(), need = replicas + shards + work;
    if (limit <= 0 || held + need <= limit) return DMLSIM_OK;
    return dmlsim_fail(err, DMLSIM_EVALUE,
                       "%s:%d: <numerics>: the network of %zu parameters needs about %.1f GB of "
                       "host memory (%d worker replica(s) of its weights, gradients and optimizer "
                       "state %.1f GB%s), with the %.1f GB the run holds already more than this "
                       "machine's %.1f GB; expected smaller hidden layers or fewer workers",
                       sc->path, sc->train.numerics.line, net->nparams, need / 1e9, P,
                       replicas / 1e9, ps ? ", the shards' copy" : "", held / 1e9, limit / 1e9);
}

enum dmlsim_err numerics_open(const struct scenario *sc, int P, struct numerics *nm,
                              struct dmlsim_error *err)
{
    const struct numerics_spec *sp = &sc->train.numerics;
    int batch = sc->train.batch;
    if (sc->train.strategy == STRAT_HYBRID) { /* a replica's batch: a pipeline's microbatches */
        P = sc->train.par.dp;
        batch *= sc->train.par.microbatches;
    }
    memset(nm, 0, sizeof *nm);
    nm->spec = sp;
    enum dmlsim_err rc = load_pair(sp->dir, "train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                   sp->train_n, &nm->train, err);
    if (rc == DMLSIM_OK)
        rc = load_pair(sp->dir, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", sp->test_n,
                       &nm->test, err);
    if (rc == DMLSIM_OK && sc->train.data.present && sc->train.data.by_class)
        idx_sort_by_class(&nm->train); /* the files as a dataset stored by class holds them */
    if (rc == DMLSIM_OK && nm->test.dim != nm->train.dim)
        rc = dmlsim_fail(err, DMLSIM_EVALUE,
                         "%s:%d: <numerics>: test examples of %d features, training examples of "
                         "%d; expected the same",
                         sc->path, sp->line, nm->test.dim, nm->train.dim);
    int classes = nm->train.classes > nm->test.classes ? nm->train.classes : nm->test.classes;
    if (rc == DMLSIM_OK &&
        nn_shape(&nm->net, nm->train.dim, sp->hidden, sp->nhidden, classes < 2 ? 2 : classes) != 0)
        rc = dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: <numerics>: cannot shape the network",
                         sc->path, sp->line);
    if (rc == DMLSIM_OK) rc = check_memory(sc, P, &nm->net, err);
    if (rc != DMLSIM_OK) {
        numerics_close(nm);
        return rc;
    }
    static const enum nn_optimizer opts[] = {[OPT_SGD] = NN_SGD, [OPT_MOMENTUM] = NN_MOMENTUM,
                                             [OPT_ADAM] = NN_ADAM};
    nm->opt = opts[sc->train.opt];
    nm->lr = sp->lr * (sp->lr_linear ? numerics_averaged(sc, P) : 1);
    nm->batch = batch;
    nm->workers = P;
    nm->seed = sc->seed;
    const struct data_spec *d = &sc->train.data;
    nm->data = d->present ? d : NULL;
    order_init(&nm->order, d->present ? (enum data_shuffle)d->shuffle : SHUFFLE_NONE,
               nm->train.n, P, nm->batch, sc->seed, d->shuffle_buffer);
    nm->x = mem_new(float, (size_t)nm->batch * (size_t)nm->train.dim);
    nm->y = mem_new(unsigned char, (size_t)nm->batch);
    nn_work_init(&nm->work, &nm->net, nm->batch);
    nn_work_init(&nm->eval_work, &nm->net, 500);
    return DMLSIM_OK;
}

void numerics_close(struct numerics *nm)
{
    idx_release(&nm->train);
    idx_release(&nm->test);
    order_release(&nm->order);
    free(nm->x);
    free(nm->y);
    nn_work_release(&nm->work);
    nn_work_release(&nm->eval_work);
    memset(nm, 0, sizeof *nm);
}

void numerics_model(const struct numerics *nm, struct model *m)
{
    model_init(m, "numerics-mlp");
    for (int l = 0; l < nm->net.nlayers; l++) {
        double params = (double)nm->net.sizes[l + 1] * nm->net.sizes[l] + nm->net.sizes[l + 1];
        char name[32];
        snprintf(name, sizeof name, "fc%d", l);
        model_add(m, name, params, 2 * params, -1, 0);
    }
}

void replica_init(const struct numerics *nm, struct replica *rp)
{
    rp->params = mem_new(float, nm->net.nparams);
    rp->grad = mem_new0(float, nm->net.nparams);
    nn_init(&nm->net, nm->seed, rp->params);
    nn_opt_init(&rp->opt, nm->opt, nm->lr, nm->net.nparams);
}

void replica_reset(const struct numerics *nm, struct replica *rp)
{
    replica_release(rp);
    replica_init(nm, rp);
}

void replica_release(struct replica *rp)
{
    free(rp->params);
    free(rp->grad);
    nn_opt_release(&rp->opt);
    memset(rp, 0, sizeof *rp);
}

double replica_gradient(struct numerics *nm, struct replica *rp, int rank, long long pos)
{
    int b = 0, dim = nm->train.dim;
    for (int i = 0; i < nm->batch; i++) { /* samples of corrupt shards fail to decode: skipped */
        long long e = order_sample(&nm->order, rank, pos, i);
        if (nm->data && fault_sample_corrupt(nm->plan, nm->data->shard_samples, e)) continue;
        memcpy(nm->x + (size_t)b * dim, nm->train.x + (size_t)e * dim, (size_t)dim * sizeof(float));
        nm->y[b++] = nm->train.y[e];
    }
    double t0 = numerics_wall_now(),
           loss = nn_loss_grad(&nm->net, rp->params, nm->x, nm->y, b, rp->grad, &nm->work);
    nm->grad_wall_s += numerics_wall_now() - t0;
    return loss;
}

double numerics_lr_at(const struct numerics *nm, long updates)
{
    int W = nm->spec->warmup;
    if (W <= 0 || updates >= W) return nm->lr;
    return nm->spec->lr + (nm->lr - nm->spec->lr) * (double)updates / W;
}

void replica_apply(const struct numerics *nm, struct replica *rp, float scale)
{
    rp->opt.lr = numerics_lr_at(nm, rp->opt.t);
    if (scale != 1)
        for (size_t i = 0; i < nm->net.nparams; i++)
            rp->grad[i] *= scale;
    nn_opt_step(&rp->opt, rp->params, rp->grad);
}

double numerics_evaluate(struct numerics *nm, const float *params, double *loss)
{
    double t0 = numerics_wall_now(), acc = nn_accuracy(&nm->net, params, nm->test.x, nm->test.y,
                                              nm->test.n, &nm->eval_work, loss);
    nm->eval_wall_s += numerics_wall_now() - t0;
    return acc;
}

void nn_states_put(struct nn_states *ss, struct nn_state *s)
{
    for (size_t i = 0; i < ss->n; i++)
        if (ss->v[i].step == s->step) {
            nn_state_release(&ss->v[i]);
            ss->v[i] = *s;
            return;
        }
    if (ss->n == ss->cap) {
        ss->cap = ss->cap ? 2 * ss->cap : 4;
        ss->v = mem_realloc(ss->v, ss->cap * sizeof *ss->v);
    }
    ss->v[ss->n++] = *s;
}

const struct nn_state *nn_states_find(const struct nn_states *ss, int step)
{
    for (size_t i = 0; i < ss->n; i++)
        if (ss->v[i].step == step) return &ss->v[i];
    return NULL;
}

/* Keeps the states whose step is in [lo, hi]. */
static void keep_steps(struct nn_states *ss, int lo, int hi)
{
    size_t k = 0;
    for (size_t i = 0; i < ss->n; i++)
        if (ss->v[i].step < lo || ss->v[i].step > hi)
            nn_state_release(&ss->v[i]);
        else
            ss->v[k++] = ss->v[i];
    ss->n = k;
}

void nn_states_prune(struct nn_states *ss, int step)
{
    keep_steps(ss, step, INT_MAX);
}

void nn_states_drop_after(struct nn_states *ss, int step)
{
    keep_steps(ss, INT_MIN, step);
}

void nn_states_release(struct nn_states *ss)
{
    for (size_t i = 0; i < ss->n; i++)
        nn_state_release(&ss->v[i]);
    free(ss->v);
    memset(ss, 0, sizeof *ss);
}

unsigned long long numerics_fingerprint(const float *params, size_t n)
{
    unsigned long long h = 14695981039346656037ull; /* the offset basis */
    const unsigned char *b = (const unsigned char *)params;
    for (size_t i = 0; i < n * sizeof *params; i++)
        h = (h ^ b[i]) * 1099511628211ull; /* the 64-bit FNV prime */
    return h;
}
