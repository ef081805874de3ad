/* ps.c - parameter-server training (see ps.h): the job's checks and description, and a run: its
 * set-up, the simulation, its results and its teardown. The actors are in ps_shard.c, ps_port.c,
 * ps_worker.c (with ps_pull.c, ps_push.c, ps_agg.c) and ps_coord.c; ps_state.h holds the state
 * they share. */
#include "ps.h"

#include "ckpt.h"
#include "inject.h"
#include "loader.h"
#include "net.h"
#include "owned.h"
#include "ps_coord.h"
#include "ps_dense.h"
#include "ps_fault.h"
#include "ps_msg.h"
#include "ps_results.h"
#include "ps_rpc.h"
#include "ps_shard.h"
#include "ps_sparse.h"
#include "ps_state.h"
#include "psnum.h"
#include "semset.h"
#include "trace.h"
#include "traffic.h"

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void ps_split(const struct model *m, int K, bool by_bytes, double *out)
{
    for (int k = 0; k < K; k++)
        out[k] = 0;
    double tables = model_table_params(m); /* sharded by row over every shard */
    for (int k = 0; k < K; k++)
        out[k] = tables / K + (by_bytes ? (model_params(m) - tables) / K : 0);
    if (by_bytes) return;
    size_t i = 0;
    for (size_t l = 0; l < m->nlayers; l++)
        if (!m->layers[l].emb) out[i++ % K] += m->layers[l].params;
}

static sg_host_t shard_host(const struct scenario *sc, const struct platform *pf, int k)
{
    if (sc->train.ps.dedicated) return pf->nps ? pf->ps_hosts[k % pf->nps] : NULL;
    return pf->ncpus ? pf->cpu_hosts[k % pf->ncpus] : NULL;
}

enum dmlsim_err ps_check(const struct job *j, struct dmlsim_error *err)
{
    const struct scenario *sc = j->sc;
    const struct ps_spec *ps = &sc->train.ps;
    enum dmlsim_err rc = job_check(j, err);
    if (rc != DMLSIM_OK) return rc;
    int P = job_workers(j);
    if (shard_host(sc, j->pf, 0) == NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <ps placement=\"%s\">: the platform has no %s hosts; expected "
                           "%s",
                           sc->path, ps->line, ps->dedicated ? "dedicated" : "colocated",
                           ps->dedicated ? "parameter-server" : "node CPU",
                           ps->dedicated ? "ps-nodes=\"K\" on <cluster> (or hosts with property "
                                           "role=ps)"
                                         : "hosts with property role=cpu");
    if (sc->rec.per_side) /* the PS recovers per worker and shard: no membership to split */
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <recovery rendezvous=\"per-side\">: the parameter server has no "
                           "rendezvous; expected rendezvous=\"store\" or strategy=\"allreduce\"",
                           sc->path, sc->rec.line);
    char why[256];
    if (ps_dense_refuse(j, why, sizeof why))
        return dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: <ps dense=\"allreduce\">: %s", sc->path,
                           ps->line, why);
    if (ps->mode == PS_SYNC && ps->backup >= P)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <ps backup-workers=\"%d\">: with %d worker(s) no push would be "
                           "waited for; expected fewer than %d",
                           sc->path, ps->line, ps->backup, P, P);
    return DMLSIM_OK;
}

void ps_describe(const struct job *j, FILE *out)
{
    const struct train_spec *ts = &j->sc->train;
    const struct ps_spec *p = &ts->ps;
    int P = job_workers(j);
    fprintf(out, "# training      parameter server, %d shard(s) %s, split by %s, %s", p->shards,
            p->dedicated ? "dedicated" : "colocated", p->split_bytes ? "bytes" : "layer",
            p->mode == PS_SYNC ? "sync" : "async");
    if (p->mode == PS_SYNC)
        fprintf(out, " (quorum %d of %d, %d backup)%s", P - p->backup, P, p->backup,
                p->local_agg ? ", aggregated per node" : "");
    else
        fprintf(out, " (staleness <= %d)", p->staleness);
    fprintf(out, "%s\n# workers       %d x batch %d, %s, %s, %d step(s)\n",
            p->coordinator ? ", with a version coordinator" : "", P, ts->batch,
            catalog_dtype_name(ts->dtype), model_optimizer_name(ts->opt), ts->steps);
}

static void trace_tracks(struct ps_ctx *c)
{
    for (int r = 0; r < c->P; r++)
        runkit_track(c->kit, r, "worker %d (%s)", r, sg_host_get_name(c->pf->gpus[r]));
    for (int k = 0; k < c->K; k++)
        runkit_track(c->kit, c->P + k, "shard %d", k);
}

/* Split by layer: the lowest layer whose parameters shard k holds (a table's rows are on every
 * shard; the dense layers go round-robin), or the last layer when it holds none. */
static int lowest_layer(const struct model *m, int K, int k)
{
    int dense = 0;
    for (size_t l = 0; l < m->nlayers; l++) {
        if (m->layers[l].emb) return (int)l;
        if (dense++ % K == k) return (int)l;
    }
    return (int)m->nlayers - 1;
}

static void setup_shards(struct ps_ctx *c)
{
    const struct train_spec *ts = &c->sc->train;
    struct run_record *res = c->res;
    double *split = xbt_new0(double, c->K), elem_B = model_dtype_bytes(ts->dtype);
    ps_split(c->m, c->K, ts->ps.split_bytes, split);
    /* the sparse path moves and updates its rows on its own (ps_sparse.h): a slice is dense */
    double rowwise = ps_sparse_rowwise(c);
    double cpu_Bps = PS_CPU_MEM_BW * PS_CPU_MEM_EFF;
    double per_param_B = model_update_bytes_per_param(ts->dtype, ts->opt), biggest = 0;
    ps_metrics_of(res)->nshards = c->K;
    ps_metrics_of(res)->shards = xbt_new0(struct shard_report, c->K);
    c->shards = xbt_new0(struct shard, c->K);
    double *size_B = xbt_new0(double, c->K);
    for (int k = 0; k < c->K; k++)
        size_B[k] = ckpt_size(c->m, ts->ps.dense_allreduce ? rowwise : split[k], ts->dtype, ts->opt);
    struct ckpt *ck = runkit_ckpts(c->kit, c->K, size_B, res);
    free(size_B);
    for (int k = 0; k < c->K; k++) {
        struct shard *s = &c->shards[k];
        s->c = c;
        s->id = k;
        s->host = shard_host(c->sc, c->pf, k);
        s->params = ts->ps.dense_allreduce ? rowwise : split[k];
        /* dense="allreduce": the workers hold the dense part, the shards only the rows */
        double dense = ts->ps.dense_allreduce ? 0 : split[k] - rowwise;
        s->bytes = dense * elem_B;
        s->update_amt = dense * per_param_B / cpu_Bps * sg_host_get_speed(s->host);
        s->applied_rows = xbt_new0(double, (size_t)c->total_versions + 2);
        s->version_s = xbt_new0(double, (size_t)c->total_versions + 2);
        s->applied_at = xbt_new0(double, (size_t)c->total_versions + 2);
        s->applied_smp = xbt_new0(double, (size_t)c->total_versions + 2);
        s->nversions = 1; /* version 0 at time 0 */
        s->ckpt = &ck[k];
        s->rep = &ps_metrics_of(res)->shards[k];
        snprintf(s->rep->host, sizeof s->rep->host, "%s", sg_host_get_name(s->host));
        s->rep->params = s->params;
        s->rep->link_Bps = sg_host_get_route_bandwidth(c->pf->gpus[0], s->host);
        if (c->j->nm) psnum_init(&s->num, c->j->nm, c->K, ps_shard_real_by_bytes(c), k);
        biggest = fmax(biggest, split[k]);
    }
    ps_metrics_of(res)->imbalance =
            model_params(c->m) > 0 ? biggest / (model_params(c->m) / c->K) : 1;
    /* one RPC per shard, or per tensor (a layer's parameters, or its part of them when split by
     * bytes), as TensorFlow's parameter servers sent a variable per RPC */
    for (int k = 0; k < c->K; k++) {
        int tensors = 0;
        for (size_t l = 0; l < c->m->nlayers; l++)
            tensors += c->m->layers[l].params > 0 && (ts->ps.split_bytes || (int)(l % c->K) == k);
        c->shards[k].rpcs = ts->ps.per_tensor_rpc && tensors > 0 ? tensors : 1;
    }
    /* a shard's slice is complete when the backward has done its lowest layer: split by layer,
     * shard k holds layers k, k + K, ...; by bytes, a part of every layer */
    c->complete_at = xbt_new0(int, c->K);
    for (int k = 0; k < c->K; k++)
        c->complete_at[k] = ts->ps.split_bytes ? 0 : lowest_layer(c->m, c->K, k);
    c->ports = xbt_new0(struct port, (size_t)c->K * c->P);
    for (int k = 0; k < c->K; k++)
        ps_fault_start_shard(c, &c->shards[k]);
    free(split);
}

/* Local aggregation: every worker's leader, the first worker on its host's node (a host without
 * a node property is a node of its own); each leader's followers. Returns the leaders' count. */
static int assign_leaders(struct ps_ctx *c)
{
    int leaders = 0;
    for (int r = 0; r < c->P; r++) {
        struct ps_worker *w = &c->workers[r];
        const char *node = sg_host_get_property_value(c->pf->gpus[r], "node");
        w->leader = r;
        for (int q = 0; c->sc->train.ps.local_agg && node && q < r && w->leader == r; q++) {
            const char *other = sg_host_get_property_value(c->pf->gpus[q], "node");
            if (other && strcmp(node, other) == 0) w->leader = c->workers[q].leader;
        }
        leaders += w->leader == r;
    }
    for (int r = 0; r < c->P; r++) {
        if (c->workers[r].leader == r) continue;
        struct ps_worker *L = &c->workers[c->workers[r].leader];
        if (L->follow == NULL) L->follow = xbt_new0(int, c->P);
        L->follow[L->nfollow++] = r;
    }
    for (int r = 0; r < c->P; r++) {
        c->workers[r].sent = xbt_new0(bool, c->workers[r].nfollow + 1);
        c->workers[r].fgone = xbt_new0(bool, c->workers[r].nfollow + 1);
        c->workers[r].last_key = xbt_new(int, c->K);
        c->workers[r].seen = xbt_new(int, c->K);
        for (int k = 0; k < c->K; k++)
            c->workers[r].last_key[k] = c->workers[r].seen[k] = -1;
    }
    return leaders;
}

static void setup_workers(struct ps_ctx *c)
{
    const struct train_spec *ts = &c->sc->train;
    for (int r = 0; r < c->P; r++) {
        struct ps_worker *w = &c->workers[r];
        w->c = c;
        w->rank = r;
        struct kernel_costs kc = job_kernel_costs(ts);
        worker_amounts(c->j->cal, c->pf->models[r], c->pf->gpus[r], ts->dtype, ts->opt, c->m,
                       ts->batch, &kc, &w->amt);
        for (size_t l = 0; l < c->m->nlayers; l++) /* forward and backward back to back */
            w->work += w->amt.fwd[l] + w->amt.bwd[l];
        w->reduce_amt = c->model_B / calib_memory_rate(c->j->cal, c->pf->models[r]) *
                        sg_host_get_speed(c->pf->gpus[r]);
        w->iter_end = xbt_new0(double, ts->steps);
        w->iter_busy = xbt_new0(double, ts->steps);
        w->iter_samples = xbt_new0(double, ts->steps);
        w->iter_tc = xbt_new0(double, ts->steps);
        w->cap = ts->steps;
        w->queue = xbt_new0(int, c->K);
        w->pf_version = xbt_new0(int, c->K);
        for (int i = 0; i < 2; i++) {
            struct shard_bufs *b = &w->bufs[i];
            b->got = xbt_new0(bool, c->K);
            b->comms = xbt_new0(sg_comm_t, 4 * c->K);    /* pull_all's 2 K, the worker's 2 K */
            b->in = xbt_new0(struct ps_msg *, 3 * c->K); /* pulls', requests', verdicts' */
            b->version = xbt_new0(int, c->K);
            if (c->j->nm) b->params = xbt_new0(float, c->j->nm->net.nparams);
        }
        if (c->j->nm) replica_init(c->j->nm, &w->rep);
        w->fcomms = xbt_new0(sg_comm_t, w->nfollow + 1);
        w->fmsgs = xbt_new0(struct ps_msg *, w->nfollow + 1);
    }
    for (int r = 0; r < c->P; r++)
        ps_fault_start_worker(c, &c->workers[r], 0);
}

static void teardown(struct ps_ctx *c)
{
    for (int k = 0; k < c->K; k++) {
        struct shard *s = &c->shards[k];
        while (s->head) {
            struct push_rec *r = s->head;
            s->head = r->next;
            sem_set_adopt(&c->sems, r->decided);
            ps_msg_rec_free(c, r);
        }
        if (s->taken) { /* async: the run ended while the shard decided on it */
            sem_set_adopt(&c->sems, s->taken->decided);
            ps_msg_rec_free(c, s->taken);
        }
        psnum_release(&s->num);
        nn_states_release(&s->snaps);
        nn_states_release(&s->hist);
        free(s->version_s);
        free(s->applied_at);
        free(s->applied_smp);
        free(s->applied_rows);
        free(s->waiting);
        free(s->wake);
        free(s->pushed);
        free(s->suspect);
    }
    for (int r = 0; r < c->P; r++) {
        free(c->workers[r].iter_end);
        free(c->workers[r].iter_busy);
        free(c->workers[r].iter_samples);
        free(c->workers[r].iter_tc);
        free(c->workers[r].queue);
        free(c->workers[r].pf_version);
        free(c->workers[r].follow);
        free(c->workers[r].sent);
        free(c->workers[r].fgone);
        free(c->workers[r].last_key);
        free(c->workers[r].seen);
        for (int i = 0; i < 2; i++) {
            free(c->workers[r].bufs[i].got);
            free(c->workers[r].bufs[i].comms);
            free(c->workers[r].bufs[i].in);
            free(c->workers[r].bufs[i].version);
            free(c->workers[r].bufs[i].params);
        }
        replica_release(&c->workers[r].rep);
        free(c->workers[r].fcomms);
        free(c->workers[r].fmsgs);
        worker_amounts_release(&c->workers[r].amt);
    }
    sem_set_release(&c->sems);
    ps_rpc_release(c);
    owned_release(&c->msgs);
    free(c->coord_ver);
    free(c->eval_params);
    free(c->pinned);
    ps_coord_drop_requests(c);
    for (int r = 0; c->bd_wake && r < c->P; r++)
        sg_sem_destroy(c->bd_wake[r]);
    free(c->bd_wake);
    free(c->bd_waiting);
    free(c->progress);
    free(c->workers);
    free(c->complete_at);
    free(c->ports);
    free(c->shards);
}

void ps_begin(const struct job *j, struct run_record *res)
{
    const struct train_spec *ts = &j->sc->train;
    run_init(res, STRAT_PS, job_workers(j), ts->batch, ts->steps);
    ps_metrics_attach(res);
    run_config_str(res, "ps_mode", ts->ps.mode == PS_SYNC ? "sync" : "async");
    run_config_num(res, "shards", "%d", ts->ps.shards);
    run_config_str(res, "placement", ts->ps.dedicated ? "dedicated" : "colocated");
    run_config_str(res, "split", ts->ps.split_bytes ? "bytes" : "layer");
    run_config_num(res, ts->ps.mode == PS_SYNC ? "backup_workers" : "staleness_bound", "%d",
                   ts->ps.mode == PS_SYNC ? ts->ps.backup : ts->ps.staleness);
    run_config_num(res, "coordinator", "%s", ts->ps.coordinator ? "true" : "false");
    run_config_str(res, "transport", ts->ps.transport ? ts->ps.transport->name : "ideal");
    run_config_str(res, "push", ts->ps.push_during ? "during-backward" : "after-backward");
    run_config_str(res, "rpc", ts->ps.per_tensor_rpc ? "per-tensor" : "per-shard");
    run_config_num(res, "prefetch", "%s", ts->ps.prefetch ? "true" : "false");
    run_config_str(res, "aggregation", ts->ps.local_agg ? "local" : "none");
    if (ts->ps.mode == PS_ASYNC)
        run_config_str(res, "consistency", ts->ps.bounded ? "bounded" : "drop");
}

void ps_run(struct runkit *kit)
{
    const struct job *j = kit->j;
    struct run_record *res = kit->rec;
    const struct train_spec *ts = &j->sc->train;
    struct ps_ctx c = {.j = j, .sc = j->sc, .m = j->m, .pf = j->pf, .res = res, .kit = kit};
    c.P = job_workers(j);
    c.K = ts->ps.shards;
    assert(c.P >= 1 && shard_host(c.sc, c.pf, 0) != NULL);
    ps_metrics_of(res)->coordinator = ts->ps.coordinator;
    ps_metrics_of(res)->first_push_s = xbt_new0(double, c.P);
    c.model_B = ps_sparse_dense_params(&c) * model_dtype_bytes(ts->dtype); /* a node's reduce */
    c.workers = xbt_new0(struct ps_worker, c.P);
    int pushers = assign_leaders(&c); /* every worker, or one per node when aggregating */
    c.quorum = ts->ps.mode == PS_SYNC ? pushers - ts->ps.backup : 1;
    /* sync: the samples of one version (its quorum); async: one round of every worker */
    res->global_batch = (double)(ts->ps.mode == PS_SYNC ? c.P - ts->ps.backup : c.P) * ts->batch;
    c.total_versions = ts->ps.mode == PS_SYNC ? ts->steps : (double)c.P * ts->steps;
    c.budget = c.P * ts->steps;
    if (ts->ps.mode == PS_ASYNC && ts->ps.bounded) {
        c.progress = xbt_new0(int, c.P);
        c.bd_waiting = xbt_new0(bool, c.P);
        c.bd_wake = xbt_new0(sg_sem_t, c.P);
        for (int r = 0; r < c.P; r++)
            c.bd_wake[r] = sg_sem_init(0);
    }
    trace_tracks(&c);
    runkit_hooks(kit, (struct inject_hooks){ps_fault_crashed, ps_fault_restarted, ps_fault_members,
                                            ps_fault_relevant, &c});
    if (j->nm) c.eval_params = xbt_new0(float, j->nm->net.nparams);
    setup_shards(&c);
    ps_rpc_init(&c);
    if (ts->ps.coordinator) {
        c.coord_host = c.shards[0].host;
        c.coord_ver = xbt_new0(int, c.K);
        if (ts->ps.enforce) {
            c.pinned = xbt_new(int, 2 * (size_t)c.P);
            for (int i = 0; i < 2 * c.P; i++)
                c.pinned[i] = -1;
        }
        ps_coord_start(&c);
    }
    setup_workers(&c);
    ps_sparse_setup(&c);
    ps_dense_setup(&c);
    runkit_simulate(kit);

    if (ts->ps.mode == PS_SYNC)
        ps_results_sync_rows(&c);
    else
        ps_results_async_rows(&c);
    ps_shard_evaluate(&c, true, res->total_s);
    ps_results_fingerprint(&c);
    ps_results_record(&c);
    ps_results_version_spread(&c, res->total_s);
    runkit_finish(kit);
    ps_sparse_release(&c);
    ps_dense_release(&c);
    teardown(&c);
}
