/* net.c - asynchronous transfers with deadlines (see net.h). */
#include "net.h"

#include "net_rate.h"
#include "net_sendto.h"
#include "trace.h"

#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define FLIGHT_TRACK "bytes in flight (B)"

/* A send in flight: its handle, its sender's host and its bytes (comm NULL: a free slot). */
struct flight {
    sg_comm_t comm;
    sg_host_t host;
    double size_B;
};

/* The sends in flight while a trace counts them: an open-addressing table (linear probing,
 * at most half full), and their bytes. */
static struct {
    struct trace *tr;     /* where the counter goes, or NULL: nothing counted */
    struct flight *slots; /* cap slots */
    size_t cap, n;        /* capacity (a power of two), sends in it */
    double bytes_B;       /* their bytes (whole numbers: sums are exact) */
} fl;

static size_t slot_of(sg_comm_t comm)
{
    return (size_t)(((uintptr_t)comm >> 4) * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (fl.cap - 1);
}

static void flight_put(struct flight f)
{
    size_t i = slot_of(f.comm);
    while (fl.slots[i].comm != NULL)
        i = (i + 1) & (fl.cap - 1);
    fl.slots[i] = f;
    fl.n++;
}

/* Rebuilds the table with `cap` slots, leaving out the sends of host `drop` (or none: NULL). */
static void flight_rebuild(size_t cap, sg_host_t drop)
{
    struct flight *old = fl.slots;
    size_t ocap = fl.cap;
    fl.slots = xbt_new0(struct flight, cap);
    fl.cap = cap;
    fl.n = 0;
    for (size_t i = 0; i < ocap; i++) {
        if (old[i].comm == NULL) continue;
        if (drop != NULL && old[i].host == drop)
            fl.bytes_B -= old[i].size_B;
        else
            flight_put(old[i]);
    }
    free(old);
}

static void flight_count(void)
{
    trace_counter(fl.tr, FLIGHT_TRACK, fl.bytes_B, simgrid_get_clock());
}

static void flight_start_from(sg_comm_t comm, sg_host_t from, long size_B)
{
    if (fl.tr == NULL) return;
    if (2 * (fl.n + 1) > fl.cap) flight_rebuild(fl.cap ? 2 * fl.cap : 256, NULL);
    flight_put((struct flight){comm, from, (double)size_B});
    fl.bytes_B += (double)size_B;
    flight_count();
}

static void flight_start(sg_comm_t comm, long size_B)
{
    if (fl.tr != NULL) flight_start_from(comm, sg_host_self(), size_B);
}

/* A wait on `comm` returned: if it was a send in flight, it is not any more (backward-shift
 * deletion keeps every probe chain whole). */
static void flight_end(sg_comm_t comm)
{
    if (fl.tr == NULL || fl.n == 0) return;
    size_t i = slot_of(comm);
    while (fl.slots[i].comm != NULL && fl.slots[i].comm != comm)
        i = (i + 1) & (fl.cap - 1);
    if (fl.slots[i].comm == NULL) return; /* a receive */
    fl.bytes_B -= fl.slots[i].size_B;
    fl.n--;
    for (size_t j = (i + 1) & (fl.cap - 1); fl.slots[j].comm != NULL; j = (j + 1) & (fl.cap - 1)) {
        size_t home = slot_of(fl.slots[j].comm);
        /* j's entry may move to the hole at i unless its home lies cyclically in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            fl.slots[i] = fl.slots[j];
            i = j;
        }
    }
    fl.slots[i].comm = NULL;
    flight_count();
}

void net_trace_flight(struct trace *tr)
{
    free(fl.slots);
    fl.slots = NULL;
    fl.cap = fl.n = 0;
    fl.bytes_B = 0;
    fl.tr = tr;
}

void net_host_down(sg_host_t h)
{
    if (fl.tr == NULL || fl.n == 0) return;
    double before = fl.bytes_B;
    flight_rebuild(fl.cap, h);
    if (fl.bytes_B != before) flight_count();
}

static enum net_status status_of(sg_error_t e)
{
    switch (e) {
    case SG_OK:
        return NET_OK;
    case SG_ERROR_TIMEOUT:
        return NET_TIMEOUT;
    default:
        return NET_FAILURE;
    }
}

/* SimGrid sizes are whole bytes; round rather than truncate fractional chunk sizes. */
static long whole_bytes(double size_B)
{
    return (long)(size_B + 0.5);
}

enum net_status net_send(sg_mailbox_t mb, void *payload, double size_B, double timeout_s)
{
    assert(payload != NULL && size_B >= 0 && timeout_s > 0);
    sg_comm_t comm = sg_mailbox_put_async(mb, payload, whole_bytes(size_B));
    flight_start(comm, whole_bytes(size_B));
    enum net_status st = status_of(sg_comm_wait_for(comm, timeout_s));
    flight_end(comm);
    return st;
}

sg_comm_t net_isend(sg_mailbox_t mb, void *payload, double size_B)
{
    assert(payload != NULL && size_B >= 0);
    sg_comm_t comm = sg_mailbox_put_async(mb, payload, whole_bytes(size_B));
    flight_start(comm, whole_bytes(size_B));
    return comm;
}

sg_comm_t net_isend_bounded(sg_mailbox_t mb, void *payload, double size_B, double rate_Bps)
{
    if (rate_Bps <= 0) return net_isend(mb, payload, size_B);
    assert(payload != NULL && size_B >= 0);
    sg_comm_t comm = net_rate_put_start(mb, payload, whole_bytes(size_B), rate_Bps);
    flight_start(comm, whole_bytes(size_B));
    return comm;
}

sg_comm_t net_sendto(sg_host_t from, sg_host_t to, double size_B)
{
    assert(size_B >= 0);
    sg_comm_t comm = net_sendto_start(from, to, whole_bytes(size_B));
    flight_start_from(comm, from, whole_bytes(size_B)); /* counted as the sending host's */
    return comm;
}

sg_comm_t net_irecv(sg_mailbox_t mb, void **payload)
{
    return sg_mailbox_get_async(mb, payload);
}

enum net_status net_wait(sg_comm_t comm, double deadline_s)
{
    double left = deadline_s - simgrid_get_clock();
    /* A deadline already passed still gets a zero-length wait, which releases the handle. */
    enum net_status st = status_of(sg_comm_wait_for(comm, left > 0 ? left : 0));
    flight_end(comm);
    return st;
}

enum net_status net_recv(sg_mailbox_t mb, void **payload, double timeout_s)
{
    assert(payload != NULL && timeout_s > 0);
    *payload = NULL;
    sg_comm_t comm = sg_mailbox_get_async(mb, payload);
    enum net_status st = status_of(sg_comm_wait_for(comm, timeout_s));
    if (st != NET_OK) *payload = NULL;
    return st;
}

enum net_status net_worst(enum net_status a, enum net_status b)
{
    return a > b ? a : b;
}

const char *net_status_str(enum net_status st)
{
    switch (st) {
    case NET_OK:
        return "ok";
    case NET_TIMEOUT:
        return "timeout";
    case NET_FAILURE:
        return "failure";
    }
    return "?";
}
