/* storeio.c - requests to a store (see storeio.h). */
#include "storeio.h"

#include "net.h"

#include <simgrid/actor.h>
#include <simgrid/disk.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One transfer's shared state: its streams take requests from it. */
struct xfer {
    struct storeio *io;
    enum storeio_op op;
    sg_host_t client;
    double n, taken; /* requests, and those a stream took */
    double each_B;   /* bytes a request */
    double deadline_s;
    bool failed;
    sg_sem_t done;     /* a stream releases it when it has no request left */
    struct xfer *next; /* io->live */
};

struct storeio {
    struct store_spec spec; /* its name, kind and numbers (with the overrides) */
    sg_host_t store;        /* the storage host (remote), or NULL */
    sg_disk_t disk;         /* its "store.NAME" disk (remote), or NULL: the client's NVMe */
    double next_s[2];       /* per op: the next free admission (request-rate pacing) */
    struct xfer *live;      /* transfers whose caller has not collected them (a crash) */
};

/* The storage host's disk named "store.NAME", or NULL. */
static sg_disk_t named_disk(sg_host_t h, const char *store)
{
    unsigned int n = 0;
    sg_disk_t *disks = NULL, d = NULL;
    char want[48];
    snprintf(want, sizeof want, "store.%s", store);
    if (h) sg_host_get_disks(h, &n, &disks);
    for (unsigned int i = 0; i < n && d == NULL; i++)
        if (strcmp(sg_disk_get_name(disks[i]), want) == 0) d = disks[i];
    free(disks);
    return d;
}

struct storeio *storeio_new(const struct store_spec *s, const struct store_params *p,
                            const struct platform *pf)
{
    struct storeio *io = xbt_new0(struct storeio, 1);
    io->spec = *s;
    io->spec.p = *p;
    if (s->kind != STORE_LOCAL) {
        io->store = pf->storage;
        io->disk = named_disk(pf->storage, s->name);
    }
    return io;
}

bool storeio_remote(const struct storeio *io)
{
    return io->spec.kind != STORE_LOCAL;
}

sg_disk_t storeio_disk(const struct storeio *io)
{
    return io->disk;
}

const struct store_spec *storeio_spec(const struct storeio *io)
{
    return &io->spec;
}

double storeio_parts(const struct storeio *io, double total_B)
{
    double part = io->spec.p.part_B;
    return part > 0 && total_B > part ? ceil(total_B / part) : 1;
}

/* Step 2: waits for the next admission of op's kind (none without a rate limit). */
static void pace(struct storeio *io, enum storeio_op op)
{
    double rate = op == STOREIO_READ ? io->spec.p.get_per_s : io->spec.p.put_per_s;
    if (rate <= 0) return;
    double now = simgrid_get_clock(), t = io->next_s[op] > now ? io->next_s[op] : now;
    io->next_s[op] = t + 1 / rate;
    if (t > now) sg_actor_sleep_until(t);
}

/* Step 4: the bytes over the network, the disk and the connection at once; false if the
 * network failed them. */
static bool move_bytes(struct storeio *io, enum storeio_op op, sg_host_t client, double bytes,
                       double deadline_s)
{
    const struct store_params *p = &io->spec.p;
    double t0 = simgrid_get_clock();
    sg_comm_t c = NULL;
    if (io->store && io->store != client && bytes > 0)
        c = op == STOREIO_READ ? net_sendto(io->store, client, bytes)
                               : net_sendto(client, io->store, bytes);
    sg_disk_t disk = io->store ? io->disk : platform_host_disk(client);
    if (disk && bytes > 0) {
        if (op == STOREIO_READ)
            sg_disk_read(disk, (sg_size_t)bytes);
        else
            sg_disk_write(disk, (sg_size_t)bytes);
    }
    if (p->conn_Bps > 0) sg_actor_sleep_until(t0 + bytes / p->conn_Bps);
    return c == NULL || net_wait(c, deadline_s) == NET_OK;
}

/* One request (steps 1-4), or with counted == false the bytes alone. */
static bool one_request(struct xfer *x, bool counted)
{
    struct storeio *io = x->io;
    if (counted && io->spec.p.request_s > 0) sg_actor_sleep_for(io->spec.p.request_s);
    if (counted) pace(io, x->op);
    if (counted && io->spec.p.latency_s > 0) sg_actor_sleep_for(io->spec.p.latency_s);
    return move_bytes(io, x->op, x->client, x->each_B, x->deadline_s);
}

static void stream_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct xfer *x = sg_actor_self_get_data();
    while (x->taken < x->n && !x->failed) {
        x->taken += 1;
        if (!one_request(x, true)) x->failed = true;
    }
    sg_sem_release(x->done); /* the last touch of x */
}

static void xfer_unlink(struct storeio *io, struct xfer *x)
{
    for (struct xfer **p = &io->live; *p; p = &(*p)->next)
        if (*p == x) {
            *p = x->next;
            break;
        }
    sg_sem_destroy(x->done);
    free(x);
}

bool storeio_transfer(struct storeio *io, enum storeio_op op, sg_host_t client, double n,
                      double total_B, double deadline_s)
{
    struct xfer one = {.io = io,
                       .op = op,
                       .client = client,
                       .n = n,
                       .each_B = n > 0 ? total_B / n : total_B,
                       .deadline_s = deadline_s};
    int k = (int)fmin(io->spec.p.connections, n);
    if (k <= 1) { /* one stream: the calling actor is it */
        bool ok = true;
        for (double i = 0; i < (n > 0 ? n : 1) && ok; i++)
            ok = one_request(&one, n > 0);
        return ok;
    }
    struct xfer *x = xbt_new0(struct xfer, 1);
    *x = one;
    x->done = sg_sem_init(0);
    x->next = io->live;
    io->live = x;
    for (int s = 0; s < k; s++) {
        sg_actor_t a = sg_actor_init("store-stream", client);
        sg_actor_set_data(a, x);
        sg_actor_start(a, stream_actor, 0, NULL);
    }
    int got = 0;
    while (got < k && sg_sem_acquire_timeout(x->done, deadline_s - simgrid_get_clock()) == 0)
        got++;
    bool ok = got == k && !x->failed;
    if (got == k) xfer_unlink(io, x); /* else streams still hold it: storeio_free frees it */
    return ok;
}

void storeio_free(struct storeio *io)
{
    if (io == NULL) return;
    while (io->live)
        xfer_unlink(io, io->live);
    free(io);
}
