/* hybrid_num.c - real training under the hybrid strategy (see hybrid_num.h). */
#include "hybrid_num.h"

#include "fault.h"
#include "mem.h"
#include "par_stages.h"
#include "tpnum.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct hynum {
    struct numerics *nm;
    const struct scenario *sc;
    int dp, m;          /* replicas; microbatches a step */
    struct replica rep; /* the parameters every replica holds, their optimizer; rep.grad: the
                           step's sum over replicas */
    float *grad;        /* one replica's gradient, reassembled from its shards */
    struct tpnum tn;    /* the split network, loaded with rep.params each step */
};

enum dmlsim_err hynum_check(const struct job *j, struct dmlsim_error *err)
{
    const struct parallel_spec *p = &j->sc->train.par;
    struct tpnum tn;
    char why[160];
    if (j->nm == NULL) return DMLSIM_OK;
    if (par_uneven(p)) /* tpnum splits the MLP's weight layers its own way */
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <parallel>: <numerics> splits its MLP evenly over the "
                           "stages; expected no uneven stages (first-stage-layers, "
                           "last-stage-layers, stage-layers, account-for-*)",
                           j->sc->path, p->line);
    if (tpnum_init(&tn, &j->nm->net, p->tp, p->pp, 1, why, sizeof why) != 0)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <parallel tp=\"%d\" pp=\"%d\">: <numerics> splits its MLP "
                           "too: %s; expected pp at most its weight layers (hidden layers + 1) "
                           "and tp at most its narrowest layer's units",
                           j->sc->path, p->line, p->tp, p->pp, why);
    tpnum_release(&tn);
    return DMLSIM_OK;
}

struct hynum *hynum_new(const struct job *j)
{
    if (j->nm == NULL) return NULL;
    const struct parallel_spec *p = &j->sc->train.par;
    struct hynum *h = mem_new0(struct hynum, 1);
    h->nm = j->nm;
    h->sc = j->sc;
    h->dp = p->dp;
    h->m = p->microbatches;
    replica_init(h->nm, &h->rep); /* the seed's parameters, as every replica starts */
    h->grad = mem_new(float, h->nm->net.nparams);
    char why[160];
    int rc = tpnum_init(&h->tn, &h->nm->net, p->tp, p->pp, j->sc->train.batch, why, sizeof why);
    assert(rc == 0); /* hynum_check's */
    (void)rc;
    return h;
}

void hynum_free(struct hynum *h)
{
    if (h == NULL) return;
    replica_release(&h->rep);
    free(h->grad);
    tpnum_release(&h->tn);
    free(h);
}

/* Replica d's batch at data position pos into nm->x, nm->y: its samples outside corrupt shards
 * (they fail to decode), as replica_gradient reads them; returns how many. */
static int gather(struct hynum *h, int d, long long pos)
{
    struct numerics *nm = h->nm;
    int n = 0, dim = nm->train.dim;
    for (int i = 0; i < nm->batch; i++) {
        long long e = order_sample(&nm->order, d, pos, i);
        if (nm->data && fault_sample_corrupt(nm->plan, nm->data->shard_samples, e)) continue;
        memcpy(nm->x + (size_t)n * dim, nm->train.x + (size_t)e * dim, (size_t)dim * sizeof(float));
        nm->y[n++] = nm->train.y[e];
    }
    return n;
}

void hynum_step(struct hynum *h, struct run_record *rec, int step, long long pos, const int *good,
                double now_s)
{
    if (h == NULL) return;
    struct numerics *nm = h->nm;
    size_t N = nm->net.nparams;
    double t0 = numerics_wall_now();
    tpnum_load(&h->tn, h->rep.params); /* each tensor rank its shards of its stage */
    memset(h->rep.grad, 0, N * sizeof *h->rep.grad);
    for (int d = 0; d < h->dp; d++) {
        int n = good && good[d] <= 0 ? 0 : gather(h, d, pos);
        if (n == 0) continue; /* a skipped batch adds nothing to the sum */
        tpnum_loss_grad(&h->tn, nm->x, nm->y, n, n < h->m ? n : h->m, h->grad);
        for (size_t i = 0; i < N; i++) /* the data-parallel all-reduce, in replica order */
            h->rep.grad[i] += h->grad[i];
    }
    nm->grad_wall_s += numerics_wall_now() - t0;
    replica_apply(nm, &h->rep, 1.0f / (float)h->dp); /* the mean, as the all-reduce applies it */
    const struct numerics_spec *sp = &h->sc->train.numerics;
    int steps = step + 1;
    if (steps % sp->eval_every != 0 && steps != h->sc->train.steps) return;
    double loss, acc = numerics_evaluate(nm, h->rep.params, &loss);
    run_eval_add(rec, 0, now_s, steps, acc, loss);
}

const float *hynum_params(const struct hynum *h)
{
    return h->rep.params;
}

void hynum_finish(const struct hynum *h, struct run_record *rec)
{
    if (h == NULL) return;
    rec->params_fnv = numerics_fingerprint(h->rep.params, h->nm->net.nparams);
}
