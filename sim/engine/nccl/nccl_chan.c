/* nccl_chan.c - an nccl plan run as messages by channel and switch actors (see nccl_chan.h). */
#include "nccl_chan.h"

#include "nccl_topo.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The host of rank r, or of the SHARP switch when r is P (CollNet's root). */
static sg_host_t host_of(const struct coll_world *w, int r)
{
    return r == w->nranks ? w->topo->sharp : w->hosts[r];
}

/* What a hop from a to b costs beyond its route's latency under plan p. */
static double hop_extra(const struct coll_world *w, const struct nccl_topo *t,
                        const struct nccl_plan *p, int a, int b)
{
    bool inside = a < w->nranks && b < w->nranks && t->node[a] == t->node[b];
    double hop = inside ? p->intra_hop_s : p->inter_hop_s;
    return fmax(0, hop - sg_host_get_route_latency(host_of(w, a), host_of(w, b))) +
           (inside ? 0 : p->net_stage_s);
}

/* One channel of one call on one rank: what its program needs. Channels run in actors of their
 * own (the rank's actor runs channel 0), so a channel waits only on its own neighbours, as
 * NCCL's channels (one CUDA block each) do. */
struct chan {
    const struct coll_world *w;
    const struct nccl_plan *p;
    enum coll_op op;
    int rank, c;        /* rank and channel */
    double size_B;      /* the call's size */
    float *data;        /* the rank's buffer, or NULL */
    double dil;         /* calibration dilation */
    enum net_status st; /* result */
    sg_sem_t done;      /* released when a helper channel ends */
};

/* Posts the receive of a step (before the protocol's latency is slept), then the send, and
 * waits for the receive only: sends are buffered, as NCCL's FIFO slots are, and are waited for
 * at the end of the program (sends[] collects them). Over sockets a connection is a byte
 * stream (TCP is FIFO; nccl_socket.h): a message to a peer across nodes starts when the one
 * before it on that connection has arrived, so the connection's rate bound holds for all its
 * messages together. */
struct step_io {
    sg_comm_t *sends;   /* posted sends; NULL once waited for (a socket connection's) */
    void **payloads;    /* their data payloads (NULL: timing only), freed if a send fails */
    int *peer;          /* their destination when sent over a socket connection, else -1 */
    int nsends, cap;    /* count and capacity */
    enum net_status st; /* the worst of the sends already waited for */
};

static void keep_send(struct step_io *io, sg_comm_t c, void *payload, int peer)
{
    if (io->nsends == io->cap) {
        io->cap = io->cap ? 2 * io->cap : 16;
        io->sends = xbt_realloc(io->sends, (size_t)io->cap * sizeof *io->sends);
        io->payloads = xbt_realloc(io->payloads, (size_t)io->cap * sizeof *io->payloads);
        io->peer = xbt_realloc(io->peer, (size_t)io->cap * sizeof *io->peer);
    }
    io->payloads[io->nsends] = payload;
    io->peer[io->nsends] = peer;
    io->sends[io->nsends++] = c;
}

/* Waits for send i (once), keeping its status. */
static void wait_send(struct step_io *io, int i, double end)
{
    enum net_status x = net_wait(io->sends[i], end);
    if (x != NET_OK) free(io->payloads[i]); /* undelivered: still the sender's */
    io->st = net_worst(io->st, x);
    io->sends[i] = NULL;
}

static enum net_status finish_sends(const struct coll_world *w, struct step_io *io,
                                    enum net_status st)
{
    /* after a failure the peers have given up their receives: release at once, so the failure
     * is reported when it is seen, not one more timeout later */
    double end = simgrid_get_clock() + (st == NET_OK && io->st == NET_OK ? w->timeout_s : 0);
    for (int i = 0; i < io->nsends; i++) /* every handle is waited on, so every one is freed */
        if (io->sends[i]) wait_send(io, i, end);
    free(io->sends);
    free(io->payloads);
    free(io->peer);
    return net_worst(st, io->st);
}

/* Sends size_B to `to` on the channel and keeps the handle in io; across nodes over sockets, at
 * the connection's rate for NCCL's messages of msg_B (nccl_topo_conn_Bps), after the previous
 * message on that connection. */
static void chan_post(const struct chan *ch, struct step_io *io, int to, double size_B,
                      double msg_B, void *payload)
{
    const struct coll_world *w = ch->w;
    double rate = ch->rank < w->nranks ? nccl_topo_conn_Bps(w->topo, ch->rank, to, msg_B) : 0;
    for (int i = io->nsends - 1; rate > 0 && i >= 0; i--)
        if (io->peer[i] == to && io->sends[i]) {
            wait_send(io, i, simgrid_get_clock() + w->timeout_s);
            break;
        }
    sg_comm_t c =
            coll_post_send_bounded(w, ch->rank, host_of(w, ch->rank), host_of(w, to),
                                   coll_mailbox(w, ch->rank, to, ch->c), payload, size_B, rate);
    keep_send(io, c, payload, rate > 0 ? to : -1);
}

/* The data of a ring step: the block this rank sends (copied into a payload) and where the one
 * it receives goes; blocks of channel c's slice, by ring position. */
static void *step_payload(const struct chan *ch, int pos, int s, bool reduce, size_t *rf,
                          size_t *rl)
{
    int P = ch->w->nranks, shift = reduce ? 0 : 1;
    size_t f0, n0, sf, sl;
    coll_ring_block(coll_data_count(ch->w, ch->size_B), ch->p->nchannels, ch->c, &f0, &n0);
    coll_ring_block(n0, P, ((pos + shift - s) % P + P) % P, &sf, &sl);
    coll_ring_block(n0, P, ((pos + shift - s - 1) % P + P) % P, rf, rl);
    *rf += f0;
    return coll_block_new(ch->data + f0 + sf, sl);
}

/* One ring phase of channel ch: P - 1 steps (or one flow). */
/* The receives of a ring program: all posted when it starts, so a transfer starts when its
 * sender posts it (NCCL's FIFO slots are free) - also across the reduce-scatter / all-gather
 * boundary; messages from one sender match in order. */
struct ring_recvs {
    sg_comm_t *rc; /* handles */
    void **got;    /* payloads */
    int n, next;   /* posted, next to wait for */
};

static void ring_recvs_post(struct chan *ch, int left, int n, struct ring_recvs *r)
{
    r->rc = xbt_new(sg_comm_t, n);
    r->got = xbt_new0(void *, n);
    r->n = n;
    r->next = 0;
    for (int s = 0; s < n; s++)
        r->rc[s] = net_irecv(coll_mailbox(ch->w, left, ch->rank, ch->c), &r->got[s]);
}

static void ring_recvs_release(struct ring_recvs *r)
{
    for (; r->next < r->n; r->next++) /* after a failure: release the receives still posted */
        if (net_wait(r->rc[r->next], simgrid_get_clock()) == NET_OK)
            coll_payload_free(r->got[r->next]);
    free(r->rc);
    free(r->got);
}

/* The steps of one phase in a ring program (P - 1 of them, or one flow). */
static int phase_steps(const struct chan *ch)
{
    return ch->w->level == COLL_FLOW && ch->data == NULL ? 1 : ch->w->nranks - 1;
}

static enum net_status ring_phase(struct chan *ch, int right, int left, int pos, bool reduce,
                                  struct ring_recvs *rv, struct step_io *io)
{
    const struct coll_world *w = ch->w;
    int P = w->nranks, steps = phase_steps(ch);
    double step_B = ch->size_B / ((double)ch->p->nchannels * P) * ch->p->wire_factor * ch->dil;
    double extra = nccl_topo_ring_extra(w, w->topo, ch->p, ch->c) * ch->dil;
    bool flow = steps == 1 && P > 2;
    enum net_status st = NET_OK;
    for (int s = 0; s < steps && st == NET_OK; s++) {
        size_t rf = 0, rl = 0;
        void *payload = ch->data ? step_payload(ch, pos, s, reduce, &rf, &rl) : NULL;
        if (extra > 0) sg_actor_sleep_for(flow ? (P - 1) * extra : extra);
        chan_post(ch, io, right, flow ? (P - 1) * step_B : step_B, step_B, payload);
        int k = rv->next++;
        st = net_wait(rv->rc[k], simgrid_get_clock() + w->timeout_s);
        if (st == NET_OK && ch->data == NULL)
            coll_payload_free(rv->got[k]);
        else if (st == NET_OK && !coll_block_take(rv->got[k], ch->data + rf, rl, reduce))
            st = NET_FAILURE; /* not this step's block (collective.h): the step failed */
        if (st == NET_OK && flow)
            sg_actor_sleep_for((P - 2) *
                               sg_host_get_route_latency(w->hosts[left], w->hosts[ch->rank]));
    }
    return st;
}

/* Broadcast from rank 0 along channel ch's ring, in chunks: at step s a rank receives chunk s
 * from its predecessor and forwards chunk s - 1. */
static enum net_status ring_broadcast(struct chan *ch, int right, int left, int pos,
                                      struct step_io *io)
{
    const struct coll_world *w = ch->w;
    int P = w->nranks, k = nccl_topo_chunks_for(ch->size_B / ch->p->nchannels), a, b, root;
    nccl_topo_ring_of(w->topo, 0, ch->c, &a, &b, &root);
    int q = ((pos - root) % P + P) % P;
    double chunk_B = ch->size_B / ch->p->nchannels / k * ch->p->wire_factor * ch->dil;
    double extra = hop_extra(w, w->topo, ch->p, ch->rank, right) * ch->dil;
    enum net_status st = NET_OK;
    for (int s = 0; s <= k && st == NET_OK; s++) {
        void *got;
        sg_comm_t rc =
                q > 0 && s < k ? net_irecv(coll_mailbox(w, left, ch->rank, ch->c), &got) : NULL;
        if (q < P - 1 && s >= 1) { /* forward chunk s - 1 (the root has it from the start) */
            if (extra > 0) sg_actor_sleep_for(extra);
            chan_post(ch, io, right, chunk_B, chunk_B, NULL);
        }
        if (rc && (st = net_wait(rc, simgrid_get_clock() + w->timeout_s)) == NET_OK)
            coll_payload_free(got); /* a chunk carries no data */
    }
    return st;
}

static enum net_status ring_program(struct chan *ch)
{
    int right, left, pos;
    nccl_topo_ring_of(ch->w->topo, ch->rank, ch->c, &right, &left, &pos);
    struct step_io io = {0};
    if (ch->op == COLL_BROADCAST)
        return finish_sends(ch->w, &io, ring_broadcast(ch, right, left, pos, &io));
    bool rs = ch->op == COLL_ALLREDUCE || ch->op == COLL_REDUCESCATTER;
    bool ag = ch->op == COLL_ALLREDUCE || ch->op == COLL_ALLGATHER;
    struct ring_recvs rv;
    ring_recvs_post(ch, left, phase_steps(ch) * (rs + ag), &rv);
    enum net_status st = NET_OK;
    if (rs) st = ring_phase(ch, right, left, pos, true, &rv, &io);
    if (st == NET_OK && ag) st = ring_phase(ch, right, left, pos, false, &rv, &io);
    ring_recvs_release(&rv);
    return finish_sends(ch->w, &io, st);
}

/* The shape of channel c's tree for rank r under plan p: NCCL's double binary tree, or CollNet's
 * chains under the switch; D, the deepest rank's depth. */
static void tree_shape(const struct coll_world *w, const struct nccl_plan *p, int r, int c,
                       int *par, int *kids, int *nk, int *d, int *D)
{
    if (p->algo == NCCL_ALGO_COLLNET_CHAIN) {
        nccl_topo_collnet_of(w, r, c, par, kids, nk, d);
        *D = w->topo->gmax;
        return;
    }
    nccl_topo_tree_of(w->topo, r, c, par, kids, nk, d);
    *D = w->topo->depth_max[c % 2];
}

/* Channel ch's tree, in the schedule of the textbook tree (coll_tree.c): step s receives chunk
 * s - D + d from the children and s - D - d from the parent, sends chunk s - D + d - 1 up and
 * s - D - d - 1 down; receives are waited for, sends buffered. */
static enum net_status tree_program(struct chan *ch)
{
    const struct coll_world *w = ch->w;
    const struct nccl_topo *t = w->topo;
    int par, kids[3], nk, d, D;
    tree_shape(w, ch->p, ch->rank, ch->c, &par, kids, &nk, &d, &D);
    int chunks = nccl_topo_chunks_for(ch->size_B / ch->p->nchannels);
    double chunk_B = ch->size_B / ch->p->nchannels / chunks * ch->p->wire_factor * ch->dil;
    double up = par >= 0 ? hop_extra(w, t, ch->p, ch->rank, par) * ch->dil : 0, down = 0;
    for (int i = 0; i < nk; i++)
        down = fmax(down, hop_extra(w, t, ch->p, ch->rank, kids[i]) * ch->dil);
    struct step_io io = {0};
    enum net_status st = NET_OK;
    for (int s = 0; s <= chunks + 2 * D - 1 && st == NET_OK; s++) {
        sg_comm_t rc[4];
        int nr = 0;
        void *got;
        if (coll_in_range(s - D + d, chunks))
            for (int i = 0; i < nk; i++)
                rc[nr++] = net_irecv(coll_mailbox(w, kids[i], ch->rank, ch->c), &got);
        if (par >= 0 && coll_in_range(s - D - d, chunks))
            rc[nr++] = net_irecv(coll_mailbox(w, par, ch->rank, ch->c), &got);
        bool send_up = par >= 0 && coll_in_range(s - D + d - 1, chunks);
        bool send_down = coll_in_range(s - D - d - 1, chunks) && nk > 0;
        double extra = fmax(send_up ? up : 0, send_down ? down : 0);
        if (extra > 0) sg_actor_sleep_for(extra);
        if (send_up) chan_post(ch, &io, par, chunk_B, chunk_B, NULL);
        for (int i = 0; send_down && i < nk; i++)
            chan_post(ch, &io, kids[i], chunk_B, chunk_B, NULL);
        double end = simgrid_get_clock() + w->timeout_s;
        for (int i = 0; i < nr; i++) {
            enum net_status x = net_wait(rc[i], end);
            if (x > st) st = x;
        }
    }
    return finish_sends(w, &io, st);
}

static void chan_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct chan *ch = sg_actor_self_get_data();
    ch->st = ch->p->algo == NCCL_ALGO_RING ? ring_program(ch) : tree_program(ch);
    sg_sem_release(ch->done);
}

/* The SHARP switch's side of a CollNet call, "rank" P, the root of every channel's chains: at
 * step s it receives chunk s - D from every node's head and sends chunk s - D - 1 back down
 * (reduced in the switch at line rate), all channels at once. Started by rank 0 for the call. */
struct sharp_call {
    const struct coll_world *w;
    struct nccl_plan p;
    double size_B, dil;
};

static void sharp_switch(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct sharp_call *sc = sg_actor_self_get_data();
    const struct coll_world *w = sc->w;
    const struct nccl_topo *t = w->topo;
    int P = w->nranks, N = t->nnodes, nc = sc->p.nchannels, D = t->gmax;
    int chunks = nccl_topo_chunks_for(sc->size_B / nc);
    double chunk_B = sc->size_B / nc / chunks * sc->p.wire_factor * sc->dil;
    struct chan ch = {.w = w, .p = &sc->p, .rank = P};
    sg_comm_t *rc = xbt_new(sg_comm_t, (size_t)N * nc);
    struct step_io io = {0};
    enum net_status st = NET_OK;
    for (int s = 0; s <= chunks + 2 * D - 1 && st == NET_OK; s++) {
        int nr = 0;
        void *got;
        for (int c = 0; c < nc; c++)
            for (int n = 0; n < N; n++) {
                int head = nccl_topo_member(t, n, c);
                ch.c = c;
                if (coll_in_range(s - D, chunks))
                    rc[nr++] = net_irecv(coll_mailbox(w, head, P, c), &got);
                /* the heads pay the hop's protocol latency (NCCL counts it once) on the way up */
                if (coll_in_range(s - D - 1, chunks))
                    chan_post(&ch, &io, head, chunk_B, chunk_B, NULL);
            }
        double end = simgrid_get_clock() + w->timeout_s;
        for (int i = 0; i < nr; i++) {
            enum net_status x = net_wait(rc[i], end);
            if (x > st) st = x;
        }
    }
    finish_sends(w, &io, st);
    free(rc);
    free(sc);
}

static void start_sharp(const struct coll_world *w, const struct nccl_plan *p, double size_B,
                        double dil)
{
    struct sharp_call *sc = xbt_new(struct sharp_call, 1);
    *sc = (struct sharp_call){w, *p, size_B, dil};
    sg_actor_t a = sg_actor_init("sharp", w->topo->sharp);
    sg_actor_set_data(a, sc);
    sg_actor_start(a, sharp_switch, 0, NULL);
}

/* Runs the plan's channels: helpers for channels 1.., this actor for channel 0. */
enum net_status nccl_chan_run(const struct coll_world *w, const struct nccl_plan *p,
                              enum coll_op op, int rank, double size_B, float *data, double dil)
{
    int nc = p->nchannels;
    if (p->algo == NCCL_ALGO_COLLNET_CHAIN && rank == 0) start_sharp(w, p, size_B, dil);
    struct chan *chs = xbt_new0(struct chan, nc);
    sg_sem_t done = sg_sem_init(0);
    for (int c = nc - 1; c >= 0; c--) {
        chs[c] = (struct chan){w, p, op, rank, c, size_B, data, dil, NET_OK, done};
        if (c == 0) break;
        char name[40];
        snprintf(name, sizeof name, "rank%d-ch%d", rank, c);
        sg_actor_t a = sg_actor_init(name, w->hosts[rank]);
        sg_actor_set_data(a, &chs[c]);
        sg_actor_start(a, chan_actor, 0, NULL);
    }
    enum net_status st = p->algo == NCCL_ALGO_RING ? ring_program(&chs[0]) : tree_program(&chs[0]);
    for (int c = 1; c < nc; c++)
        sg_sem_acquire(done);
    for (int c = 1; c < nc; c++)
        if (chs[c].st > st) st = chs[c].st;
    sg_sem_destroy(done);
    free(chs);
    return st;
}

/* ---- NVLS: the NVSwitch reduces ---------------------------------------------------------- */

/* NVLS all-reduce of S on a node of G GPUs, in K chunks pipelined over 4 stages (one step
 * each): A: every GPU sends chunk k (S / K) into the switch; B: the switch returns to GPU i the
 * reduced i-th part of it (S / (K G), multimem.ld_reduce); C: GPU i stores that part back
 * (S / (K G), multimem.st); D: the switch multicasts it, so every GPU receives S / K. Each
 * GPU's link carries S (1 + 1 / G) each way, against 2 (G - 1) S / G for the ring. With two
 * nodes (NVLS tree) a stage X between B and C exchanges the reduced part with the same GPU of
 * the other node over the network. The switch's side runs in an actor on the node's switch host,
 * started for the call by the node's first GPU. Mailboxes are per pair and epoch: both sides post
 * in the same order, call after call, so messages match in order. */
struct nvls_call {
    const struct coll_world *w;
    int node;      /* the node */
    int K;         /* chunks */
    int X;         /* 1 with the network stage, else 0 */
    double up_B;   /* stage A and D bytes (S / K, on the wire) */
    double part_B; /* stage B and C bytes */
};

static sg_mailbox_t nvls_box(const struct nvls_call *v, int from, int to)
{
    char name[64];
    snprintf(name, sizeof name, "v%d:%d:%d>%d", v->w->epoch, v->node, from, to);
    return sg_mailbox_by_name(name);
}

static void nvls_switch(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct nvls_call *v = sg_actor_self_get_data();
    const struct nccl_topo *t = v->w->topo;
    int g = nccl_topo_node_size(t, v->node), first = t->node_start[v->node];
    sg_comm_t *c = xbt_new(sg_comm_t, 4 * g);
    enum net_status st = NET_OK;
    for (int s = 0; s < v->K + 3 + v->X && st == NET_OK; s++) {
        int nc = 0;
        void *p;
        double end = simgrid_get_clock() + v->w->timeout_s;
        for (int i = 0; i < g; i++) {
            int r = t->order[first + i];
            if (coll_in_range(s, v->K)) c[nc++] = net_irecv(nvls_box(v, r, -1), &p);
            if (coll_in_range(s - 1, v->K))
                c[nc++] = coll_post_send(v->w, -1, NULL, NULL, nvls_box(v, -1, r), NULL, v->part_B);
            if (coll_in_range(s - 2 - v->X, v->K)) c[nc++] = net_irecv(nvls_box(v, r, -1), &p);
            if (coll_in_range(s - 3 - v->X, v->K))
                c[nc++] = coll_post_send(v->w, -1, NULL, NULL, nvls_box(v, -1, r), NULL, v->up_B);
        }
        for (int i = 0; i < nc; i++) {
            enum net_status x = net_wait(c[i], end); /* every handle is waited on and freed */
            if (x > st) st = x;
        }
    }
    free(c);
    free(v);
}

/* A GPU's message of the NVLS protocol: posted, recorded. */
static sg_comm_t nvls_send(const struct nvls_call *v, int rank, sg_mailbox_t mb, sg_host_t to,
                           double size_B)
{
    return coll_post_send(v->w, rank, v->w->hosts[rank], to, mb, NULL, size_B);
}

static sg_mailbox_t cross_box(const struct nvls_call *v, int from, int to)
{
    char name[64];
    snprintf(name, sizeof name, "v%d:x:%d>%d", v->w->epoch, from, to);
    return sg_mailbox_by_name(name);
}

enum net_status nccl_chan_nvls(const struct coll_world *w, const struct nccl_plan *p, int rank,
                               double size_B, double dil)
{
    struct nccl_topo *t = w->topo;
    int n = t->node[rank], g = nccl_topo_node_size(t, n), K = nccl_topo_chunks_for(size_B / 16);
    struct nvls_call v = {.w = w,
                          .node = n,
                          .K = K,
                          .X = p->algo == NCCL_ALGO_NVLS_TREE,
                          .up_B = size_B / K * p->wire_factor * dil,
                          .part_B = size_B / K / g * p->wire_factor * dil};
    int peer = v.X ? nccl_topo_member(t, 1 - n, t->lpos[rank]) : -1;
    if (t->lpos[rank] == 0) { /* the node's first GPU starts the switch's side of the call */
        struct nvls_call *copy = xbt_new(struct nvls_call, 1);
        *copy = v;
        sg_actor_t a = sg_actor_init("nvswitch", t->nvs[n]);
        sg_actor_set_data(a, copy);
        sg_actor_start(a, nvls_switch, 0, NULL);
    }
    sg_host_t sw = t->nvs[n];
    enum net_status st = NET_OK;
    for (int s = 0; s < K + 3 + v.X && st == NET_OK; s++) {
        sg_comm_t c[6]; /* up, down, the cross pair, part up, part down can overlap */
        int nc = 0;
        void *pl;
        double end = simgrid_get_clock() + w->timeout_s;
        if (coll_in_range(s, K)) c[nc++] = nvls_send(&v, rank, nvls_box(&v, rank, -1), sw, v.up_B);
        if (coll_in_range(s - 1, K)) c[nc++] = net_irecv(nvls_box(&v, -1, rank), &pl);
        if (v.X && coll_in_range(s - 2, K)) { /* the reduced part crosses to the other node */
            c[nc++] = net_irecv(cross_box(&v, peer, rank), &pl);
            c[nc++] = nvls_send(&v, rank, cross_box(&v, rank, peer), w->hosts[peer],
                                size_B / K / g * dil);
        }
        if (coll_in_range(s - 2 - v.X, K))
            c[nc++] = nvls_send(&v, rank, nvls_box(&v, rank, -1), sw, v.part_B);
        if (coll_in_range(s - 3 - v.X, K)) c[nc++] = net_irecv(nvls_box(&v, -1, rank), &pl);
        for (int i = 0; i < nc; i++) {
            enum net_status x = net_wait(c[i], end);
            if (x > st) st = x;
        }
    }
    return st;
}
