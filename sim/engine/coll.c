/* coll.c - the building blocks of the collective algorithms (see coll.h). */
#include "coll.h"

#include "coll_replay.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

double coll_deadline(const struct coll_world *w)
{
    return simgrid_get_clock() + w->timeout_s;
}

sg_comm_t coll_post_send(const struct coll_world *w, int me, sg_host_t from, sg_host_t to,
                         sg_mailbox_t mb, void *payload, double size_B)
{
    return coll_post_send_bounded(w, me, from, to, mb, payload, size_B, 0);
}

sg_comm_t coll_post_send_bounded(const struct coll_world *w, int me, sg_host_t from, sg_host_t to,
                                 sg_mailbox_t mb, void *payload, double size_B, double rate_Bps)
{
    if (w->traffic && from && to) traffic_add(w->traffic, from, to, size_B);
    if (w->sent_msgs && me >= 0 && me < w->nranks) w->sent_msgs[me] += 1;
    if (w->rp && from && to && me >= 0 && me < w->nranks)
        coll_replay_note(w->rp, me, from, to, size_B);
    return net_isend_bounded(mb, payload ? payload : &token, size_B, rate_Bps);
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
                                    const int *to_tag, const double *to_B, int nto, const int *from,
                                    const int *from_tag, int nfrom)
{
    return coll_exchange_bounded(w, me, to, to_tag, to_B, NULL, nto, from, from_tag, nfrom);
}

enum net_status coll_exchange_bounded(const struct coll_world *w, int me, const int *to,
                                      const int *to_tag, const double *to_B, const double *to_rate,
                                      int nto, const int *from, const int *from_tag, int nfrom)
{
    double end = coll_deadline(w);
    sg_comm_t local[16], *c = nto + nfrom <= 16 ? local : xbt_new(sg_comm_t, nto + nfrom);
    void *p;
    for (int i = 0; i < nfrom; i++)
        c[i] = net_irecv(coll_mailbox(w, from[i], me, from_tag ? from_tag[i] : -1), &p);
    for (int i = 0; i < nto; i++)
        c[nfrom + i] = coll_post_send_bounded(w, me, w->hosts[me], w->hosts[to[i]],
                                              coll_mailbox(w, me, to[i], to_tag ? to_tag[i] : -1),
                                              NULL, to_B[i], to_rate ? to_rate[i] : 0);
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
    double end = coll_deadline(w);
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
