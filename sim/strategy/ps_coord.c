/* ps_coord.c - the version coordinator (see ps_coord.h). */
#include "ps_coord.h"

#include "net.h"
#include "ps_msg.h"
#include "runkit.h"

#include <simgrid/actor.h>
#include <simgrid/mailbox.h>
#include <xbt/sysdep.h>

#include <stdlib.h>

void ps_coord_drop_requests(struct ps_ctx *c)
{
    while (c->reqs) {
        struct global_req *q = c->reqs;
        c->reqs = q->next;
        free(q);
    }
}

/* The coordinator's answer, sent by an actor of its own so that a worker that is gone delays no
 * one (the send's deadline ends it). */
struct global_reply {
    struct ps_ctx *c;
    struct ps_msg *m; /* version: the global one; shard, buf: to whom; it: the question's number */
};

static void reply_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct global_reply *r = sg_actor_self_get_data();
    struct ps_ctx *c = r->c;
    struct ps_msg *m = r->m;
    free(r);
    ps_msg_cost(c, REQUEST_B, false, 1);
    ps_msg_send(c, c->coord_host, c->pf->gpus[m->shard], ps_msg_reply_box(m->shard, m->buf), m,
                REQUEST_B);
}

/* Answers every question whose version the global one has reached (pinning it in the shards'
 * histories until the pull is done). */
static void answer_ready(struct ps_ctx *c, int global)
{
    for (struct global_req **p = &c->reqs; *p;) {
        struct global_req *q = *p;
        if (q->need > global) {
            p = &q->next;
            continue;
        }
        struct global_reply *r = xbt_new0(struct global_reply, 1);
        r->c = c;
        r->m = ps_msg_new(c, MSG_GLOBAL, global);
        r->m->shard = q->rank;
        r->m->buf = q->buf;
        r->m->it = q->seq;
        c->pinned[2 * q->rank + q->buf] = global;
        ps_msg_start("coord-reply-%d.%d", q->rank, q->seq, c->coord_host, reply_actor, r, false);
        *p = q->next;
        free(q);
    }
}

/* The coordinator hears every shard's advances (the global version is their minimum); with
 * enforce it also answers the workers' questions for it. */
static void coordinator_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_ctx *c = sg_actor_self_get_data();
    bool enforce = c->sc->train.ps.enforce;
    int *ver = c->coord_ver, lo = 0;
    for (;;) { /* a daemon: ends with the simulation */
        struct ps_msg *m;
        if (net_recv(runkit_mailbox("coordinator"), (void **)&m,
                     enforce ? 1e9 : c->sc->train.timeout_s) != NET_OK) {
            if (enforce) continue; /* it must be there for the next question */
            break;
        }
        if (m->type == MSG_GLOBAL) {
            struct global_req *q = xbt_new0(struct global_req, 1);
            *q = (struct global_req){m->shard, m->buf, m->version, m->it, c->reqs};
            c->reqs = q;
            ps_msg_free(c, m);
            answer_ready(c, lo);
            continue;
        }
        ps_metrics_of(c->res)->coordinator_msgs += 1;
        ver[m->shard] = m->version;
        ps_msg_free(c, m);
        int hi = ver[0];
        lo = ver[0];
        for (int k = 1; k < c->K; k++) {
            lo = ver[k] < lo ? ver[k] : lo;
            hi = ver[k] > hi ? ver[k] : hi;
        }
        ps_metrics_of(c->res)->coordinator_global = lo; /* the version every shard has reached */
        if (hi - lo > ps_metrics_of(c->res)->coordinator_spread)
            ps_metrics_of(c->res)->coordinator_spread = hi - lo;
        if (enforce) answer_ready(c, lo);
    }
}

void ps_coord_start(struct ps_ctx *c)
{
    sg_actor_t a = sg_actor_init("coordinator", c->coord_host);
    sg_actor_set_data(a, c);
    sg_actor_daemonize(a); /* it serves as long as the shards run, then goes with them */
    sg_actor_start(a, coordinator_actor, 0, NULL);
}
