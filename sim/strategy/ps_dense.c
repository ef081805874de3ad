/* ps_dense.c - the dense part on all-reduce, the tables on the shards (see ps_dense.h). */
#include "ps_dense.h"

#include "collective.h"
#include "ps_sparse.h"
#include "trace.h"
#include "worker.h"

#include <simgrid/engine.h>
#include <xbt/sysdep.h>

const char *ps_dense_refuse(const struct job *j, char *buf, size_t len)
{
    const struct scenario *sc = j->sc;
    const struct ps_spec *ps = &sc->train.ps;
    if (!ps->dense_allreduce) return NULL;
    const char *why = NULL;
    if (j->m->ntables == 0 || ps->dense_tables)
        why = "the dense part leaves the shards only when the tables stay on them; expected a "
              "model with embedding tables and sparse=\"yes\"";
    else if (ps->local_agg || ps->push_during)
        why = "expected local-aggregation=\"no\" and push=\"after-backward\"";
    else if (j->nm)
        why = "not with <numerics>";
    if (why == NULL) {
        struct coll_world w;
        collective_world_init(&w, job_workers(j), j->pf->gpus, 1);
        w.nccl = sc->train.nccl;
        why = collective_check(&w, collective_get(sc->train.algo), COLL_ALLREDUCE, false);
        collective_world_release(&w);
    }
    if (why) snprintf(buf, len, "%s", why);
    return why ? buf : NULL;
}

void ps_dense_setup(struct ps_ctx *c)
{
    const struct train_spec *ts = &c->sc->train;
    if (!ts->ps.dense_allreduce) return;
    c->dense_world = xbt_new0(struct coll_world, 1);
    collective_world_init(c->dense_world, c->P, c->pf->gpus, ts->timeout_s);
    c->dense_world->nccl = ts->nccl;
    c->dense_world->level = ts->level;
    c->dense_world->traffic = c->kit->traffic;
    c->dense_world->netcal = c->j->cal ? c->j->cal->netcal : NULL;
}

void ps_dense_release(struct ps_ctx *c)
{
    if (c->dense_world == NULL) return;
    collective_world_release(c->dense_world);
    free(c->dense_world);
    c->dense_world = NULL;
}

void ps_dense_step(struct ps_worker *w, int it)
{
    struct ps_ctx *c = w->c;
    (void)it;
    double dense = ps_sparse_dense_params(c), t0 = simgrid_get_clock();
    collective_run(c->dense_world, collective_get(c->sc->train.algo), COLL_ALLREDUCE, w->rank,
                   dense * model_dtype_bytes(c->sc->train.dtype), NULL);
    trace_slice(c->res->trace, w->rank, "dense all-reduce", t0, simgrid_get_clock());
    double all = model_params(c->m); /* the optimizer's update of the dense parameters */
    worker_exec(c->res, w->rank, all > 0 ? w->amt.update * dense / all : 0);
}
