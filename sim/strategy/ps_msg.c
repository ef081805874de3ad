/* ps_msg.c - the parameter server's messages and names (see ps_msg.h). */
#include "ps_msg.h"

#include "owned.h"
#include "runkit.h"
#include "traffic.h"

#include <simgrid/actor.h>
#include <simgrid/mailbox.h>

#include <stdio.h>
#include <stdlib.h>

double ps_msg_copy_s(const struct transport *tp, double bytes, bool gpu_side)
{
    return gpu_side && tp->copy_Bps > 0 ? bytes / tp->copy_Bps : 0;
}

void ps_msg_cost(const struct ps_ctx *c, double bytes, bool gpu_side, int msgs)
{
    const struct transport *tp = c->sc->train.ps.transport;
    if (tp == NULL) return;
    double t = msgs * tp->msg_s + bytes * tp->byte_s + ps_msg_copy_s(tp, bytes, gpu_side);
    if (t > 0) sg_actor_sleep_for(t);
}

sg_mailbox_t ps_msg_to_port(int k, int r)
{
    return runkit_mailbox("ps%d<w%d", k, r);
}

sg_mailbox_t ps_msg_to_worker(int r, int k)
{
    return runkit_mailbox("w%d<ps%d", r, k);
}

sg_mailbox_t ps_msg_to_follower(int f)
{
    return runkit_mailbox("w%d<lead%d", f, 0);
}

sg_mailbox_t ps_msg_to_leader(int l, int f)
{
    return runkit_mailbox("lead%d<w%d", l, f);
}

sg_mailbox_t ps_msg_reply_box(int rank, int buf)
{
    return runkit_mailbox("w%d<coord%d", rank, buf);
}

struct ps_msg *ps_msg_new(struct ps_ctx *c, enum msg_type type, int version)
{
    struct ps_msg *m = owned_alloc(&c->msgs, sizeof *m);
    m->type = type;
    m->version = version;
    return m;
}

struct ps_msg *ps_msg_new_data(struct ps_ctx *c, enum msg_type type, int version, size_t n)
{
    struct ps_msg *m = owned_alloc(&c->msgs, sizeof *m + n * sizeof(float));
    m->type = type;
    m->version = version;
    m->n = n;
    return m;
}

void ps_msg_free(struct ps_ctx *c, struct ps_msg *m)
{
    owned_free(&c->msgs, m);
}

void ps_msg_rec_free(struct ps_ctx *c, struct push_rec *r)
{
    ps_msg_free(c, r->m);
    free(r);
}

enum net_status ps_msg_send(struct ps_ctx *c, sg_host_t from, sg_host_t to, sg_mailbox_t mb,
                            struct ps_msg *m, double size_B)
{
    traffic_add(c->kit->traffic, from, to, size_B);
    enum net_status st = net_send(mb, m, size_B, c->sc->train.timeout_s);
    if (st != NET_OK) ps_msg_free(c, m);
    return st;
}

void ps_msg_start(const char *fmt, int a, int b, sg_host_t host, xbt_main_func_t code, void *data,
                  bool daemon)
{
    char name[48];
    snprintf(name, sizeof name, fmt, a, b);
    sg_actor_t actor = sg_actor_init(name, host);
    sg_actor_set_data(actor, data);
    if (daemon) sg_actor_daemonize(actor);
    sg_actor_start(actor, code, 0, NULL);
}
