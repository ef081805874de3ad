/* ar_emb.c - the all-reduce strategy's sharded embeddings (see ar_emb.h). */
#include "ar_emb.h"

#include "allreduce_metrics.h"
#include "coll.h"
#include "collective.h"
#include "mem.h"
#include "trace.h"
#include "worker.h"

#include <simgrid/engine.h>
#include <simgrid/host.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define A2A_EPOCH0 (1 << 20) /* the all-to-all worlds' epochs: apart from the buckets' (ms->id) */

enum a2a_kind { A2A_IDS, A2A_POOLED, A2A_GRADS };

struct ar_emb {
    struct runkit *kit;
    const struct job *j;  /* the job with the whole model (its tables) */
    struct emb_plan plan; /* over the job's P workers */
    double mem_B;         /* the least memory of the workers' GPUs */
    double elem_B;        /* bytes of an element of a pooled embedding (activations) */
    double a2a_s;         /* the all-to-alls' time, summed over ranks and steps */
    double lookup_s;      /* the lookups' */
    double update_s;      /* the fused backward and updates' */
    double rank_steps;    /* rank-steps those sums are over */
};

struct ar_emb_world {
    struct coll_world w;  /* the members' hosts in their positions, mailboxes of its epoch */
    struct emb_plan plan; /* over the members */
    double *fwd;          /* per position: exec amount of its lookups for the global batch */
    double *bwd;          /* per position: of its fused backward and updates */
};

void ar_emb_plan(const struct job *j, struct emb_plan *p)
{
    const struct train_spec *ts = &j->sc->train;
    int P = job_workers(j);
    double mem = INFINITY;
    for (int r = 0; r < P; r++)
        mem = fmin(mem, j->pf->models[r]->mem_B);
    emb_plan_build(j->m, P, ts->dtype, ts->opt, ts->batch, mem, p);
}

enum dmlsim_err ar_emb_check(const struct job *j, struct dmlsim_error *err)
{
    const struct train_spec *ts = &j->sc->train;
    if (!ts->emb_sharded) return DMLSIM_OK;
    struct emb_plan p;
    ar_emb_plan(j, &p);
    char why[640];
    int g = 0;
    for (int r = 1; r < p.P; r++)
        if (j->pf->models[r]->mem_B < j->pf->models[g]->mem_B) g = r;
    const struct gpu_model *gpu = j->pf->models[g];
    int bad = emb_plan_check(j->m, &p, ts->dtype, ts->opt, ts->batch, gpu->mem_B, gpu->name, why,
                             sizeof why);
    emb_plan_release(&p);
    if (bad)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <training embeddings=\"sharded\">: %s; expected more GPUs, a "
                           "smaller batch-per-gpu or smaller tables",
                           j->sc->path, ts->line, why);
    return DMLSIM_OK;
}

/* Bytes position i sends position j in an all-to-all of `kind`. */
static double pair_B(const struct emb_plan *p, enum a2a_kind kind, int i, int j, double batch,
                     double elem_B)
{
    return kind == A2A_IDS      ? emb_plan_ids_B(p, i, j, batch)
           : kind == A2A_POOLED ? emb_plan_pooled_B(p, i, j, batch, elem_B)
                                : emb_plan_pooled_B(p, j, i, batch, elem_B);
}

/* Bytes a step's all-to-all of `kind` sends, over every GPU: the sum of pair_B over the pairs,
 * each GPU sending every other its IDs for that GPU's tables (or receiving from it the bags it
 * owns): (P - 1) x batch x the per-GPU figures summed. */
static double a2a_total_B(const struct emb_plan *p, enum a2a_kind kind, double batch, double elem_B)
{
    double s = 0;
    for (int i = 0; i < p->P; i++)
        s += kind == A2A_IDS ? emb_plan_ids_B(p, (i + 1) % p->P, i, batch)
                             : emb_plan_pooled_B(p, i, (i + 1) % p->P, batch, elem_B);
    return (p->P - 1) * s;
}

void ar_emb_describe(const struct job *j, FILE *out)
{
    const struct train_spec *ts = &j->sc->train;
    struct emb_plan p;
    ar_emb_plan(j, &p);
    double e = model_act_bytes(ts->dtype);
    int most = 0; /* the GPU that sends the most pooled bytes: the one with the widest bags */
    for (int g = 1; g < p.P; g++)
        if (p.gpu_dim[g] > p.gpu_dim[most]) most = g;
    emb_plan_print(out, j->m, &p, ts->dtype, ts->opt, ts->batch);
    fprintf(out,
            "# all-to-all    a step, sent per GPU (mean): IDs %.0f B, pooled embeddings %.0f B "
            "forward (GPU %d the most: %.0f B) and as many of their gradients backward; the "
            "dense gradients all-reduced\n",
            a2a_total_B(&p, A2A_IDS, ts->batch, e) / p.P,
            a2a_total_B(&p, A2A_POOLED, ts->batch, e) / p.P, most,
            (p.P - 1) * emb_plan_pooled_B(&p, most, (most + 1) % p.P, ts->batch, e));
    emb_plan_release(&p);
}

struct ar_emb *ar_emb_new(struct runkit *kit, struct job *dj, struct model *dm)
{
    const struct job *j = kit->j;
    const struct train_spec *ts = &j->sc->train;
    if (!ts->emb_sharded) return NULL;
    struct ar_emb *e = mem_new0(struct ar_emb, 1);
    e->kit = kit;
    e->j = j;
    ar_emb_plan(j, &e->plan);
    e->mem_B = e->plan.room_B + e->plan.dense_B;
    e->elem_B = model_act_bytes(ts->dtype);
    emb_dense_view(j->m, dm);
    *dj = *j;
    dj->m = dm;
    return e;
}

void ar_emb_free(struct ar_emb *e, struct model *dm, struct run_record *rec)
{
    if (e == NULL) return;
    const struct train_spec *ts = &e->j->sc->train;
    struct allreduce_record *ar = allreduce_metrics_of(rec);
    const struct emb_plan *p = &e->plan;
    if (ar != NULL) {
        double n = fmax(e->rank_steps, 1);
        ar->emb_sharded = 1;
        ar->emb_a2a_s = e->a2a_s / n;
        ar->emb_lookup_s = e->lookup_s / n;
        ar->emb_update_s = e->update_s / n;
        ar->emb_ids_B = a2a_total_B(p, A2A_IDS, ts->batch, e->elem_B) / p->P;
        ar->emb_pooled_B = a2a_total_B(p, A2A_POOLED, ts->batch, e->elem_B) / p->P;
    }
    rec->mem = emb_plan_memory(e->j->m, p, ts->dtype, ts->opt, ts->batch,
                               emb_plan_worst(e->j->m, p, ts->dtype, ts->opt, ts->batch));
    emb_plan_release(&e->plan);
    model_release(dm);
    free(e);
}

/* Position i's lookups and fused updates (rank `rank`'s GPU), for the world's global batch. */
static void lookups(struct ar_emb *e, struct ar_emb_world *ew, int i, int rank)
{
    const struct train_spec *ts = &e->j->sc->train;
    const struct platform *pf = e->j->pf;
    struct model sm;
    emb_plan_gpu_model(e->j->m, &ew->plan, i, ts->dtype, ts->opt, &sm);
    struct worker_amounts a = {0};
    struct kernel_costs kc = job_kernel_costs(ts);
    worker_amounts(e->j->cal, pf->models[rank], pf->gpus[rank], ts->dtype, ts->opt, &sm,
                   ew->plan.P * ts->batch, &kc, &a);
    ew->fwd[i] = a.fwd_all;
    for (size_t l = 0; l < sm.nlayers; l++)
        ew->bwd[i] += a.bwd[l];
    worker_amounts_release(&a);
    model_release(&sm);
}

struct ar_emb_world *ar_emb_formed(struct ar_emb *e, const struct membership *ms)
{
    const struct job *j = e->j;
    const struct train_spec *ts = &j->sc->train;
    struct ar_emb_world *ew = mem_new0(struct ar_emb_world, 1);
    int n = ms->n > 0 ? ms->n : 1;
    sg_host_t *hosts = mem_new0(sg_host_t, n);
    for (int i = 0; i < ms->n; i++)
        hosts[i] = j->pf->gpus[ms->members[i]];
    collective_world_init(&ew->w, ms->n, hosts, ts->timeout_s);
    free(hosts);
    ew->w.traffic = e->kit->traffic;
    ew->w.epoch = A2A_EPOCH0 + ms->id;
    emb_plan_build(j->m, n, ts->dtype, ts->opt, ts->batch, e->mem_B, &ew->plan);
    ew->fwd = mem_new0(double, n);
    ew->bwd = mem_new0(double, n);
    for (int i = 0; i < ms->n; i++)
        lookups(e, ew, i, ms->members[i]);
    return ew;
}

void ar_emb_world_free(struct ar_emb_world *ew)
{
    if (ew == NULL) return;
    collective_world_release(&ew->w);
    emb_plan_release(&ew->plan);
    free(ew->fwd);
    free(ew->bwd);
    free(ew);
}

/* Position pos's part of an all-to-all of `kind`: its sends and receives at once (the pairs
 * with bytes to move), on its compute track; false if one failed. */
static bool exchange(struct ar_emb *e, struct ar_emb_world *ew, enum a2a_kind kind, int pos,
                     int rank, const char *name)
{
    const struct emb_plan *p = &ew->plan;
    double batch = e->j->sc->train.batch;
    int n = ew->w.nranks, nto = 0, nfrom = 0;
    int *to = mem_new0(int, n), *from = mem_new0(int, n);
    double *to_B = mem_new0(double, n);
    for (int k = 0; k < n; k++) {
        double out = pair_B(p, kind, pos, k, batch, e->elem_B);
        if (out > 0) {
            to[nto] = k;
            to_B[nto++] = out;
        }
        if (pair_B(p, kind, k, pos, batch, e->elem_B) > 0) from[nfrom++] = k;
    }
    double t0 = simgrid_get_clock();
    enum net_status st = coll_exchange_sized(&ew->w, pos, to, NULL, to_B, nto, from, NULL, nfrom);
    double t1 = simgrid_get_clock();
    trace_slice(e->kit->rec->trace, 2 * rank, st == NET_OK ? name : "failed", t0, t1);
    e->a2a_s += t1 - t0;
    free(to);
    free(from);
    free(to_B);
    return st == NET_OK;
}

/* Runs an exec amount on the rank's GPU, its time into *acc. */
static void run_exec(struct ar_emb *e, int rank, double amount, const char *name, double *acc)
{
    double t0 = simgrid_get_clock();
    *acc += worker_exec(e->kit->rec, rank, amount);
    trace_slice(e->kit->rec->trace, 2 * rank, name, t0, simgrid_get_clock());
}

bool ar_emb_forward(struct ar_emb *e, struct ar_emb_world *ew, int pos, int rank, double scale)
{
    /* a failed exchange (a peer gone) ends the step: the next would wait its own timeout */
    if (!exchange(e, ew, A2A_IDS, pos, rank, "ids all-to-all")) return false;
    run_exec(e, rank, ew->fwd[pos] * scale, "lookups", &e->lookup_s);
    return exchange(e, ew, A2A_POOLED, pos, rank, "pooled all-to-all");
}

bool ar_emb_backward(struct ar_emb *e, struct ar_emb_world *ew, int pos, int rank, double scale)
{
    bool ok = exchange(e, ew, A2A_GRADS, pos, rank, "gradients all-to-all");
    run_exec(e, rank, ew->bwd[pos] * scale, "fused update", &e->update_s);
    e->rank_steps += 1;
    return ok;
}
