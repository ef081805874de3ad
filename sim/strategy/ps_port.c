/* ps_port.c - a shard's port for one worker (see ps_port.h). */
#include "ps_port.h"

#include "net.h"
#include "ps_msg.h"
#include "ps_rpc.h"
#include "ps_sparse.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/semaphore.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <string.h>

static void enqueue(struct shard *s, struct push_rec *rec)
{
    if (s->tail)
        s->tail->next = rec;
    else
        s->head = rec;
    s->tail = rec;
    rec->queued_s = simgrid_get_clock();
    sg_sem_release(s->arrived);
}

/* Sync: a pull for the version after the one the shard collects (the worker pushed for it)
 * waits for the shard to advance: while the shard's quorum deadline runs or it applies the
 * update, else (no push for that version came: the worker's was lost) until the deadline after
 * the pull came. Any other is answered at once: the shard is there already, or behind (restarted
 * from an older checkpoint), and the worker then computes the version the shard is at. Actors
 * only interleave at simulation calls, so checking the version and waiting on this port's own
 * semaphore needs no lock; advance() wakes every waiting port. */
static void hold_pull(struct port *p, int need)
{
    struct shard *s = p->s;
    const struct train_spec *ts = &s->c->sc->train;
    double end = simgrid_get_clock() + ts->timeout_s;
    while (ts->ps.mode == PS_SYNC && s->version == need - 1 && !s->stopped) {
        double until = fmax(end, s->quorum_end), now = simgrid_get_clock();
        if (now >= until) break;
        s->waiting[p->worker] = true;
        if (isinf(until))
            sg_sem_acquire(s->wake[p->worker]);
        else
            sg_sem_acquire_timeout(s->wake[p->worker], until - now);
        s->waiting[p->worker] = false;
    }
}

/* Answers worker p->worker's pull m (freed here): the shard's parameters of the version it
 * holds it for, and (sparse) the rows it asked for. */
static void serve_pull(struct port *p, struct ps_msg *m)
{
    struct shard *s = p->s;
    struct ps_ctx *c = s->c;
    sg_host_t worker = c->pf->gpus[p->worker];
    ps_rpc_shard(c, s, RPC_SERVE, REQUEST_B + m->rows * SPARSE_INDEX_B, 1);
    hold_pull(p, m->version);
    double reply_B = m->reply_B, rows = m->rows, cached = m->row_elems;
    int v = s->version;
    const float *src = c->j->nm ? s->num.w : NULL; /* numerics: the values now */
    if (m->exact && m->version < v) {              /* the global version, older than its own */
        const struct nn_state *h = nn_states_find(&s->hist, m->version);
        if (h || !c->j->nm) v = m->version;
        if (h) src = h->params;
    }
    ps_msg_free(c, m);
    /* copied before serialising: the shard may advance, or prune that version, while
     * the port sleeps */
    size_t n = c->j->nm ? s->num.sl.n : 0;
    struct ps_msg *pm = ps_msg_new_data(c, MSG_PARAMS, v, n);
    if (n) memcpy(pm->data, src, n * sizeof *pm->data);
    pm->reply_B = reply_B;
    pm->rows = rows;
    pm->row_elems = cached;
    ps_rpc_shard(c, s, RPC_SERVE, reply_B, s->rpcs); /* the parameters serialised */
    s->rep->bytes_out += reply_B;
    s->rep->rows_out += rows;
    ps_msg_send(c, s->host, worker, ps_msg_to_worker(p->worker, s->id), pm, reply_B);
}

void ps_port_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct port *p = sg_actor_self_get_data();
    struct shard *s = p->s;
    struct ps_ctx *c = s->c;
    const struct train_spec *ts = &c->sc->train;
    sg_host_t worker = c->pf->gpus[p->worker];
    for (;;) { /* a daemon: serves its worker for as long as the run lasts */
        struct ps_msg *m;
        if (net_recv(ps_msg_to_port(s->id, p->worker), (void **)&m, 1e9) != NET_OK) continue;
        double smp = m->samples;
        if (m->type == MSG_PULL) {
            serve_pull(p, m);
            continue;
        }
        if (m->empty) { /* a worker with nothing to push: its shard hears so */
            ps_rpc_shard(c, s, RPC_CLIENT, REQUEST_B, 1);
            struct push_rec *rec = xbt_new0(struct push_rec, 1);
            rec->worker = p->worker;
            rec->version = m->version;
            rec->it = m->it;
            rec->empty = true;
            ps_msg_free(c, m);
            enqueue(s, rec);
            continue;
        }
        double push_B = s->bytes + m->row_elems * ps_sparse_elem_B(c) + m->rows * SPARSE_INDEX_B;
        s->rep->bytes_in += push_B;
        s->rep->rows_in += m->rows;
        c->workers[p->worker].delivered++;
        c->workers[p->worker].rows_delivered += m->rows;
        s->in_port++; /* received, not yet queued: counted if the run ends meanwhile */
        s->in_port_smp += smp;
        s->in_port_rows += m->rows;
        ps_rpc_shard(c, s, RPC_CLIENT, push_B, s->rpcs); /* the gradient deserialised */
        s->in_port--;
        s->in_port_smp -= smp;
        s->in_port_rows -= m->rows;
        struct push_rec *rec = xbt_new0(struct push_rec, 1);
        rec->worker = p->worker;
        rec->samples = smp;
        rec->rows = m->rows;
        rec->row_elems = m->row_elems;
        rec->version = m->version;
        rec->it = m->it;
        if (c->j->nm)
            rec->m = m; /* the gradient waits with its record */
        else
            ps_msg_free(c, m);
        bool async = ts->ps.mode == PS_ASYNC;
        if (async) rec->decided = sg_sem_init(0);
        enqueue(s, rec);
        if (async) {
            sg_sem_acquire(rec->decided);
            struct ps_msg *v = ps_msg_new(c, MSG_VERDICT, s->version);
            v->accepted = rec->accepted;
            sg_sem_destroy(rec->decided);
            ps_msg_rec_free(c, rec);
            ps_rpc_shard(c, s, RPC_SERVE, REQUEST_B, 1);
            ps_msg_send(c, s->host, worker, ps_msg_to_worker(p->worker, s->id), v, REQUEST_B);
        }
    }
}
