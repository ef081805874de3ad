/* collective.c - the algorithm table and the send/receive building blocks (see collective.h). */
#include "collective.h"
#include "coll_replay.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((int)COLL_ALLREDUCE == NCCL_FUNC_ALLREDUCE &&
                       (int)COLL_BROADCAST == NCCL_FUNC_BROADCAST,
               "enum coll_op and enum nccl_func share their order");

static const struct coll_algo algos[] = {
#define COLL_X_ROW(id, name, ops, flow, data, check, run, describe) \
    {COLL_ALGO_##id, name, ops, flow, data, check, run, describe},
        COLL_ALGO_TABLE(COLL_X_ROW)
#undef COLL_X_ROW
};

const struct coll_algo *collective_get(enum coll_algo_id id)
{
    assert(id >= 0 && id < COLL_NALGOS);
    return &algos[id];
}

const struct coll_algo *collective_find(const char *name)
{
    enum coll_algo_id id;
    return coll_algo_find(name, &id) ? &algos[id] : NULL;
}

void collective_world_init(struct coll_world *w, int nranks, const sg_host_t *hosts,
                           double timeout_s)
{
    memset(w, 0, sizeof *w);
    w->nranks = nranks;
    w->hosts = xbt_new(sg_host_t, nranks);
    w->node_of = xbt_new(int, nranks);
    w->timeout_s = timeout_s;
    w->chunks = 1;
    w->data_scale = 1;
    w->level = COLL_MESSAGE;
    w->nccl = (struct nccl_opts){.algo = -1, .proto = -1, .max_channels = 0};
    for (int r = 0; r < nranks; r++) {
        w->hosts[r] = hosts[r];
        const char *node = sg_host_get_property_value(hosts[r], "node");
        w->node_of[r] = node ? atoi(node) : -1 - r;
    }
    /* Equal, consecutive groups: blocks of G ranks, one node per block, no node twice. */
    int G = 1;
    while (G < nranks && w->node_of[G] == w->node_of[0])
        G++;
    bool uniform = nranks % G == 0;
    for (int r = 1; r < nranks && uniform; r++) {
        bool block_start = r % G == 0;
        uniform = block_start ? w->node_of[r] != w->node_of[r - 1]
                              : w->node_of[r] == w->node_of[r - 1];
    }
    w->per_node = uniform ? G : 0;
}

void collective_world_release(struct coll_world *w)
{
    coll_nccl_topo_free(w->topo);
    coll_replay_free(w->rp);
    free(w->hosts);
    free(w->node_of);
    memset(w, 0, sizeof *w);
}

const char *collective_check(const struct coll_world *w, const struct coll_algo *algo,
                             enum coll_op op, bool data)
{
    static char why[320];
    if (!(algo->ops & COLL_OP_BIT(op))) {
        snprintf(why, sizeof why, "%s does not implement %s; expected one of: %s", algo->name,
                 collective_op_name(op), coll_algo_names_for(op, false));
        return why;
    }
    if (w->level == COLL_FLOW && !algo->flow) {
        snprintf(why, sizeof why, "%s has no flow level; expected one of: %s", algo->name,
                 coll_algo_names_for(op, true));
        return why;
    }
    if (data && (!algo->data || op == COLL_BROADCAST)) {
        snprintf(why, sizeof why, "%s cannot carry data buffers for %s", algo->name,
                 collective_op_name(op));
        return why;
    }
    return algo->check ? algo->check(w) : NULL;
}

/* Payloads carry no data (the bytes are simulated); every message points at this token. */
static int token;

/* Writes v in decimal at p; returns the end. Mailbox names are built for every message,
 * and snprintf's format parsing was a twentieth of a message-level run. */
static char *put_int(char *p, int v)
{
    char tmp[12];
    int n = 0;
    unsigned u = v < 0 ? (unsigned)(-(long)v) : (unsigned)v;
    if (v < 0) *p++ = '-';
    do
        tmp[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

/* "cEPOCH:FROM>TO", and "#TAG" when tag >= 0. */
sg_mailbox_t coll_mailbox(const struct coll_world *w, int from, int to, int tag)
{
    char name[56], *p = name;
    *p++ = 'c';
    p = put_int(p, w->epoch);
    *p++ = ':';
    p = put_int(p, from);
    *p++ = '>';
    p = put_int(p, to);
    if (tag >= 0) {
        *p++ = '#';
        p = put_int(p, tag);
    }
    *p = '\0';
    return sg_mailbox_by_name(name);
}

static double deadline(const struct coll_world *w)
{
    return simgrid_get_clock() + w->timeout_s;
}

sg_comm_t coll_post_send(const struct coll_world *w, int me, sg_host_t from, sg_host_t to,
                         sg_mailbox_t mb, void *payload, double size_B)
{
    if (w->traffic && from && to) traffic_add(w->traffic, from, to, size_B);
    if (w->sent_msgs && me >= 0 && me < w->nranks) w->sent_msgs[me] += 1;
    if (w->rp && from && to && me >= 0 && me < w->nranks) coll_replay_note(w->rp, me, from, to, size_B);
    return net_isend(mb, payload ? payload : &token, size_B);
}

sg_comm_t coll_post_flow(const struct coll_world *w, int me, sg_host_t from, sg_host_t to,
                         double size_B)
{
    if (me >= 0 && me < w->nranks) { /* a switch's side is no rank's, as at message level */
        if (w->traffic) traffic_add(w->traffic, from, to, size_B);
        if (w->sent_msgs) w->sent_msgs[me] += 1;
        if (w->rp) coll_replay_note(w->rp, me, from, to, size_B);
    }
    return net_sendto(from, to, size_B);
}

static void account(const struct coll_world *w, int me, int to, double size_B)
{
    if (w->traffic) traffic_add(w->traffic, w->hosts[me], w->hosts[to], size_B);
    if (w->sent_msgs) w->sent_msgs[me] += 1;
}

enum net_status coll_send(const struct coll_world *w, int me, int to, double size_B)
{
    account(w, me, to, size_B);
    return net_send(coll_mailbox(w, me, to, -1), &token, size_B, w->timeout_s);
}

enum net_status coll_recv(const struct coll_world *w, int me, int from)
{
    void *p;
    return net_recv(coll_mailbox(w, from, me, -1), &p, w->timeout_s);
}

enum net_status coll_exchange_sized(const struct coll_world *w, int me, const int *to,
                                    const int *to_tag, const double *to_B, int nto,
                                    const int *from, const int *from_tag, int nfrom)
{
    double end = deadline(w);
    sg_comm_t local[16], *c = nto + nfrom <= 16 ? local : xbt_new(sg_comm_t, nto + nfrom);
    void *p;
    for (int i = 0; i < nfrom; i++)
        c[i] = net_irecv(coll_mailbox(w, from[i], me, from_tag ? from_tag[i] : -1), &p);
    for (int i = 0; i < nto; i++)
        c[nfrom + i] = coll_post_send(w, me, w->hosts[me], w->hosts[to[i]],
                                      coll_mailbox(w, me, to[i], to_tag ? to_tag[i] : -1), NULL,
                                      to_B[i]);
    enum net_status st = NET_OK;
    for (int i = 0; i < nto + nfrom; i++) /* every handle is waited on, so every one is freed */
        st = net_worst(st, net_wait(c[i], end));
    if (c != local) free(c);
    return st;
}

enum net_status coll_exchange_tagged(const struct coll_world *w, int me, const int *to,
                                     const int *to_tag, int nto, double size_B, const int *from,
                                     const int *from_tag, int nfrom)
{
    double local[16] = {0}, *sizes = nto <= 16 ? local : xbt_new(double, nto);
    for (int i = 0; i < nto; i++)
        sizes[i] = size_B;
    enum net_status st = coll_exchange_sized(w, me, to, to_tag, sizes, nto, from, from_tag, nfrom);
    if (sizes != local) free(sizes);
    return st;
}

enum net_status coll_exchange(const struct coll_world *w, int me, const int *to, int nto,
                              double size_B, const int *from, int nfrom)
{
    return coll_exchange_tagged(w, me, to, NULL, nto, size_B, from, NULL, nfrom);
}

/* A data message's payload: the count of floats it carries, then the floats. */
struct coll_block {
    size_t n;  /* floats */
    float v[]; /* the copy of the sender's block */
};

void *coll_block_new(const float *src, size_t n)
{
    struct coll_block *b = xbt_malloc(sizeof *b + (n ? n : 1) * sizeof *b->v);
    b->n = n;
    memcpy(b->v, src, n * sizeof *b->v);
    return b;
}

bool coll_block_take(void *payload, float *dst, size_t n, bool reduce)
{
    if (payload == NULL || payload == &token) return false; /* not data: nothing to read or free */
    const struct coll_block *b = payload;
    bool fits = b->n == n;
    for (size_t i = 0; fits && i < n; i++)
        dst[i] = reduce ? dst[i] + b->v[i] : b->v[i];
    free(payload);
    return fits;
}

void coll_payload_free(void *payload)
{
    if (payload != NULL && payload != &token) free(payload);
}

enum net_status coll_sendrecv_data(const struct coll_world *w, int me, int to, double size_B,
                                   const float *src, size_t nsrc, int from, float *dst, size_t ndst,
                                   bool reduce)
{
    double end = deadline(w);
    void *copy = coll_block_new(src, nsrc), *got = NULL;
    sg_comm_t rc = net_irecv(coll_mailbox(w, from, me, -1), &got);
    account(w, me, to, size_B);
    sg_comm_t sc = net_isend(coll_mailbox(w, me, to, -1), copy, size_B);
    enum net_status rs = net_wait(rc, end), ss = net_wait(sc, end);
    if (ss != NET_OK) free(copy); /* a payload whose transfer failed stays with its sender */
    /* only a receive that completed delivered a payload (it is then this rank's); one that is not
     * the block expected (a timing-only message of a protocol that failed in this membership,
     * taken in order from the same pair's mailbox) fails the step: the membership is re-formed */
    if (rs == NET_OK && !coll_block_take(got, dst, ndst, reduce)) rs = NET_FAILURE;
    return net_worst(rs, ss);
}

enum net_status coll_sendrecv(const struct coll_world *w, int me, int to, double size_B, int from)
{
    return coll_exchange(w, me, &to, to >= 0, size_B, &from, from >= 0);
}

enum net_status coll_recv_all(const struct coll_world *w, int me, const int *from, int n)
{
    return coll_exchange(w, me, NULL, 0, 0, from, n);
}

enum net_status coll_send_all(const struct coll_world *w, int me, const int *to, int n,
                              double size_B)
{
    return coll_exchange(w, me, to, n, size_B, NULL, 0);
}

size_t coll_data_count(const struct coll_world *w, double size_B)
{
    return (size_t)llround(size_B / (4 * w->data_scale));
}

void coll_ring_block(size_t count, int n, int b, size_t *first, size_t *len)
{
    size_t lo = count * (size_t)b / (size_t)n, hi = count * (size_t)(b + 1) / (size_t)n;
    *first = lo;
    *len = hi - lo;
}

/* One ring phase: n - 1 steps of size_B / n, or at flow level one flow of (n - 1) size_B / n and
 * the n - 2 step latencies it stands for. With data, step s of the reduce-scatter sends block
 * (idx - s) and adds the left neighbour's block (idx - s - 1) into this rank's; the all-gather
 * sends block (idx + 1 - s) and copies block (idx - s). */
static enum net_status ring_phase(const struct coll_world *w, const int *members, int n, int idx,
                                  double size_B, float *data, bool reduce)
{
    if (n < 2) return NET_OK;
#define MEMBER(i) (members ? members[(i)] : (i)) /* NULL members: the whole world in rank order */
    int me = MEMBER(idx), right = MEMBER((idx + 1) % n), left = MEMBER((idx + n - 1) % n);
#undef MEMBER
    enum net_status st = NET_OK;
    if (w->level == COLL_FLOW && data == NULL) {
        st = coll_sendrecv(w, me, right, (n - 1) * size_B / n, left);
        if (st == NET_OK && n > 2)
            sg_actor_sleep_for((n - 2) * sg_host_get_route_latency(w->hosts[me], w->hosts[right]));
        return st;
    }
    size_t count = coll_data_count(w, size_B), sf, sl, rf, rl;
    int shift = reduce ? 0 : 1;
    for (int step = 0; step < n - 1 && st == NET_OK; step++) {
        if (data == NULL) {
            st = coll_sendrecv(w, me, right, size_B / n, left);
            continue;
        }
        coll_ring_block(count, n, ((idx + shift - step) % n + n) % n, &sf, &sl);
        coll_ring_block(count, n, ((idx + shift - step - 1) % n + n) % n, &rf, &rl);
        st = coll_sendrecv_data(w, me, right, size_B / n, data + sf, sl, left, data + rf, rl,
                                reduce);
    }
    return st;
}

enum net_status coll_ring_reduce_scatter(const struct coll_world *w, const int *members, int n,
                                         int idx, double size_B, float *data)
{
    return ring_phase(w, members, n, idx, size_B, data, true);
}

enum net_status coll_ring_allgather(const struct coll_world *w, const int *members, int n, int idx,
                                    double size_B, float *data)
{
    return ring_phase(w, members, n, idx, size_B, data, false);
}

/* All-to-all: every rank posts its S / P for each other rank and a receive from each, all at
 * once, then waits for them: NCCL's all-to-all is these pairwise ncclSend / ncclRecv in one group
 * (nccl-tests src/alltoall.cu), so the same for every algorithm and level; P (P - 1) messages in
 * all (the seed notes' "O(N*N) fan out": 9,900 for 100 workers). */
static enum net_status alltoall(const struct coll_world *w, int rank, double size_B)
{
    int P = w->nranks, n = 0;
    if (P < 2) return NET_OK;
    sg_comm_t *c = xbt_new(sg_comm_t, 2 * (P - 1));
    void **in = xbt_new(void *, P);
    for (int k = 1; k < P; k++) { /* posted in the order rank + 1, rank + 2, ... */
        int to = (rank + k) % P, from = (rank - k + P) % P;
        c[n++] = coll_post_send(w, rank, w->hosts[rank], w->hosts[to],
                                coll_mailbox(w, rank, to, -1), NULL, size_B / P);
        c[n++] = net_irecv(coll_mailbox(w, from, rank, -1), &in[from]);
    }
    enum net_status st = NET_OK, s;
    double end = deadline(w);
    for (int i = 0; i < n; i++)
        if ((s = net_wait(c[i], end)) != NET_OK && st == NET_OK) st = s;
    free(c);
    free(in);
    return st;
}

enum net_status collective_run(const struct coll_world *w, const struct coll_algo *algo,
                               enum coll_op op, int rank, double size_B, float *data)
{
    assert(rank >= 0 && rank < w->nranks && w->chunks >= 1);
    if (op == COLL_ALLTOALL) return alltoall(w, rank, size_B); /* whatever the algorithm */
    assert(algo->ops & COLL_OP_BIT(op));
    return algo->run(w, op, rank, size_B, data);
}

const char *collective_describe(const struct coll_world *w, const struct coll_algo *algo,
                                enum coll_op op, double size_B, char *buf, size_t len)
{
    buf[0] = '\0';
    if (op == COLL_ALLTOALL)
        snprintf(buf, len, "p2p/%d peers", w->nranks - 1);
    else if (algo->describe)
        algo->describe(w, op, size_B, buf, len);
    return buf;
}
