/* ckpt.c - checkpoint writes and restores as transfers and disk operations (see ckpt.h). */
#include "ckpt.h"

#include "net.h"
#include "storeio.h"

#include <simgrid/actor.h>
#include <simgrid/disk.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STATE_EXTRA_B 4096.0 /* step, RNG state and data position */

double ckpt_size(const struct model *m, double params, enum gpu_dtype dtype, enum optimizer opt)
{
    (void)m;
    struct model one;
    model_init(&one, "one");
    model_add(&one, "p", params, 0, 0, 0);
    struct memory_need need = model_memory(&one, dtype, opt, 0);
    model_release(&one);
    return need.weights_B + need.optimizer_B + STATE_EXTRA_B;
}

void ckpt_init(struct ckpt *c, const struct scenario *sc, const struct platform *pf, double size_B,
               struct run_record *rec)
{
    memset(c, 0, sizeof *c);
    c->sc = sc;
    c->pf = pf;
    c->size_B = size_B;
    c->rec = rec;
    const struct store_spec *st = scenario_store(sc, sc->ckpt.store_id);
    if (st) c->store = storeio_new(st, &st->p, pf);
}

bool ckpt_due(struct ckpt *c, int steps_done, double last_time_s, double now_s)
{
    const struct checkpoint_spec *s = &c->sc->ckpt;
    if (!s->present || steps_done <= 0) return false;
    if (s->every_steps > 0) return steps_done % s->every_steps == 0;
    return floor(now_s / s->every_s) > floor(last_time_s / s->every_s);
}

/* The semaphores one write shares between its writer and its stages, with a count of those
 * that hold it: the last to let go destroys them (a stage lets go when its actor ends, even
 * killed by a crash); ckpt_release destroys the ones a writer killed while waiting still held. */
struct ckpt_sync {
    sg_sem_t received, counted;
    int refs;
    struct ckpt_sync *next; /* the ckpt's live list */
};

static struct ckpt_sync *sync_new(struct ckpt *c)
{
    struct ckpt_sync *y = xbt_new0(struct ckpt_sync, 1);
    y->received = sg_sem_init(0);
    y->counted = sg_sem_init(0);
    y->refs = 1;
    y->next = c->live;
    c->live = y;
    return y;
}

static void sync_free(struct ckpt_sync *y)
{
    sg_sem_destroy(y->received);
    sg_sem_destroy(y->counted);
    free(y);
}

static void sync_unref(struct ckpt *c, struct ckpt_sync *y)
{
    if (y == NULL || --y->refs > 0) return;
    for (struct ckpt_sync **p = &c->live; *p; p = &(*p)->next)
        if (*p == y) {
            *p = y->next;
            break;
        }
    sync_free(y);
}

void ckpt_release(struct ckpt *c)
{
    storeio_free(c->store);
    c->store = NULL;
    while (c->live) {
        struct ckpt_sync *y = c->live;
        c->live = y->next;
        sync_free(y);
    }
}

/* One stage of a write or restore, run by an actor on the stage's host. */
struct job {
    struct ckpt *c;
    char in[32];            /* mailbox to receive the data from, or "" to start with it */
    int disk_read;          /* read it from this host's disk first */
    int disk_write;         /* write it to this host's disk after receiving */
    sg_host_t next;         /* forward to this host next (another job there), or NULL */
    char out[32];           /* or send it to this mailbox (a waiting actor), or "" */
    sg_sem_t received;      /* released once the data is here (the snapshot point), or NULL */
    sg_sem_t counted;       /* released when the checkpoint counts, or NULL */
    int counts_after;       /* 1: after the disk write, 2: on receipt (the cache) */
    int steps;              /* steps it captures */
    double t0_s;            /* when the write began (the trace's checkpoint slice) */
    int epoch;              /* the checkpoint's epoch when it was started (ckpt_abandon) */
    double version;         /* version it captures (PS) */
    double *version_slot;   /* where to record the version when it counts */
    int flush_to_store;     /* cache: after counting, flush to the storage host */
    int store_write;        /* <checkpoint store>: this host writes it through the store's parts */
    struct ckpt_sync *sync; /* the write's semaphores (one reference), or NULL (a restore) */
};

static int token;

static void job_actor(int argc, char **argv);

/* A write's stage, or a restore's, cannot start on `h`: it is down (a crash of the node's CPU
 * host, or of the whole node). SimGrid refuses to start an actor on a host that is off (it
 * raises HostFailureException); the stage is the failure it is instead: logged, and its job
 * freed. */
static void stage_lost(struct job *j, sg_host_t h)
{
    if (j->c->rec)
        run_event_add(j->c->rec, simgrid_get_clock(), RUN_CHECKPOINT, j->steps, 0,
                      "checkpoint of step %d %s: %s is down", j->steps,
                      j->out[0] ? "not restored" : "not written", sg_host_get_name(h))
                ->start_s = j->t0_s;
    free(j);
}

/* Starts stage j on h, which takes a reference to the write's semaphores; false (j freed) when
 * h is down. */
static bool spawn_job(struct job *j, sg_host_t h)
{
    if (!sg_host_is_on(h)) {
        stage_lost(j, h);
        return false;
    }
    if (j->sync) j->sync->refs++;
    sg_actor_t a = sg_actor_init("ckpt-job", h);
    sg_actor_set_data(a, j);
    sg_actor_start(a, job_actor, 0, NULL);
    return true;
}

/* The write reached the point where it counts: it does, unless a split-brain merge gave its
 * lineage up since it started (ckpt_abandon): then it is durable but nobody's state, and it is
 * logged as given up, not as counting. Either way a writer waiting for it goes on. */
static void count(struct job *j)
{
    struct ckpt *c = j->c;
    bool given_up = j->epoch != c->epoch;
    if (!given_up && (j->steps > c->last_step || j->version_slot != NULL)) {
        c->last_step = j->steps > c->last_step ? j->steps : c->last_step;
        if (j->version_slot) *j->version_slot = j->version;
    }
    if (!given_up) c->completed += 1;
    if (c->rec)
        run_event_add(c->rec, simgrid_get_clock(), RUN_CHECKPOINT, j->steps, 0,
                      given_up ? "checkpoint of step %d given up (written across a split-brain "
                                 "merge)"
                               : "checkpoint of step %d counts",
                      j->steps)
                ->start_s = j->t0_s;
    if (j->counted) sg_sem_release(j->counted);
}

/* A stage's actor ends (done, or killed with its host): it lets go of the write and its job. */
static void job_exit(int failed, void *data)
{
    (void)failed;
    struct job *j = data;
    sync_unref(j->c, j->sync);
    free(j);
}

static void job_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct job *j = sg_actor_self_get_data();
    struct ckpt *c = j->c;
    sg_actor_on_exit(job_exit, j); /* frees j */
    double timeout = CKPT_IO_DEADLINE_S;
    sg_disk_t disk = platform_host_disk(sg_host_self());
    if (j->in[0]) {
        void *p;
        if (net_recv(sg_mailbox_by_name(j->in), &p, timeout) != NET_OK) return;
        if (j->received) sg_sem_release(j->received);
    }
    if (j->store_write) { /* the store's client: its parts, then it counts (cache: before) */
        if (j->counts_after == 2) count(j);
        bool ok = storeio_transfer(c->store, STOREIO_WRITE, sg_host_self(),
                                   storeio_parts(c->store, c->size_B), c->size_B,
                                   simgrid_get_clock() + timeout);
        if (ok && j->counts_after == 1) count(j);
        return;
    }
    if (j->disk_read && disk) sg_disk_read(disk, (sg_size_t)c->size_B);
    if (j->counts_after == 2) count(j);
    if (j->disk_write && disk) sg_disk_write(disk, (sg_size_t)c->size_B);
    if (j->counts_after == 1) count(j);
    if (j->next != NULL) {
        struct job *n = xbt_new0(struct job, 1);
        *n = *j;
        snprintf(n->in, sizeof n->in, "ckpt-%d", c->seq++);
        n->next = NULL;
        n->received = NULL;
        n->disk_read = 0;
        n->disk_write = 1;
        n->counts_after = j->counts_after == 2 ? 0 : 1; /* the cache already counted */
        n->counted = j->counts_after == 2 ? NULL : j->counted;
        if (spawn_job(n, j->next)) net_send(sg_mailbox_by_name(n->in), &token, c->size_B, timeout);
    }
    if (j->out[0]) net_send(sg_mailbox_by_name(j->out), &token, c->size_B, timeout);
}

double ckpt_write(struct ckpt *c, sg_host_t host, int steps_done, double version,
                  double *version_slot)
{
    const struct checkpoint_spec *s = &c->sc->ckpt;
    double t0 = simgrid_get_clock(), timeout = CKPT_IO_DEADLINE_S;
    sg_host_t cpu = platform_node_cpu(c->pf, host), store = c->pf->storage;
    struct job *j = xbt_new0(struct job, 1);
    j->c = c;
    j->steps = steps_done;
    j->t0_s = t0;
    j->version = version;
    j->version_slot = version_slot;
    j->epoch = c->epoch;
    snprintf(j->in, sizeof j->in, "ckpt-%d", c->seq++);
    struct ckpt_sync *y = sync_new(c); /* the writer's reference */
    j->sync = y;
    j->received = y->received;
    j->counted = y->counted;
    sg_host_t first;
    if (c->store) { /* the node's CPU host writes it through the store */
        first = cpu ? cpu : host;
        j->store_write = 1;
        j->counts_after = s->target == CKPT_CACHE ? 2 : 1;
    } else if (s->target == CKPT_REMOTE && !s->async) { /* straight to the store */
        first = store ? store : cpu;
        j->disk_write = 1;
        j->counts_after = 1;
    } else if (s->target == CKPT_REMOTE) { /* snapshot to host memory, then to the store */
        first = cpu ? cpu : store;
        j->next = cpu && store ? store : NULL;
        j->disk_write = j->next ? 0 : 1;
        j->counts_after = j->next ? 0 : 1;
    } else if (s->target == CKPT_LOCAL_NVME) {
        first = cpu ? cpu : store;
        j->disk_write = 1;
        j->counts_after = 1;
    } else { /* cache: counts on receipt in node memory, flushed to the store afterwards */
        first = cpu ? cpu : store;
        j->counts_after = 2;
        j->next = cpu && store ? store : NULL;
    }
    sg_sem_t received = j->received, counted = j->counted;
    if (!spawn_job(j, first)) { /* its node's CPU host is down: nothing is written */
        sync_unref(c, y);
        return 0;
    }
    net_send(sg_mailbox_by_name(j->in), &token, c->size_B, timeout);
    if (s->async)
        sg_sem_acquire_timeout(received, timeout);
    else
        sg_sem_acquire_timeout(counted, timeout);
    double blocked = simgrid_get_clock() - t0;
    c->overhead_s += blocked;
    sync_unref(c, y); /* a background stage may still hold (and release) the semaphores */
    return blocked;
}

void ckpt_abandon(struct ckpt *c, int step)
{
    c->last_step = step;
    c->epoch += 1;
}

/* A restore from <checkpoint store>: the node's CPU host reads the parts, then sends the state
 * to `host`; its time, or -1 when the client is down or a transfer failed. */
static double restore_store(struct ckpt *c, sg_host_t host, sg_host_t cpu)
{
    double t0 = simgrid_get_clock(), deadline = t0 + CKPT_IO_DEADLINE_S;
    sg_host_t client = cpu ? cpu : host;
    if (!sg_host_is_on(client)) {
        if (c->rec)
            run_event_add(c->rec, t0, RUN_CHECKPOINT, c->last_step, 0,
                          "checkpoint of step %d not restored: %s is down", c->last_step,
                          sg_host_get_name(client));
        return -1;
    }
    bool ok = storeio_transfer(c->store, STOREIO_READ, client, storeio_parts(c->store, c->size_B),
                               c->size_B, deadline);
    if (ok && client != host)
        ok = net_wait(net_sendto(client, host, c->size_B), deadline) == NET_OK;
    return ok ? simgrid_get_clock() - t0 : -1;
}

double ckpt_restore(struct ckpt *c, sg_host_t host)
{
    if (c->completed == 0) return 0;
    const struct checkpoint_spec *s = &c->sc->ckpt;
    if (c->store && s->target != CKPT_CACHE)
        return restore_store(c, host, platform_node_cpu(c->pf, host));
    double t0 = simgrid_get_clock();
    sg_host_t cpu = platform_node_cpu(c->pf, host), src;
    src = s->target == CKPT_REMOTE || cpu == NULL ? c->pf->storage : cpu;
    if (src == NULL) return 0;
    struct job *j = xbt_new0(struct job, 1);
    j->c = c;
    j->steps = c->last_step;
    j->t0_s = t0;
    j->disk_read = s->target != CKPT_CACHE;
    snprintf(j->out, sizeof j->out, "ckpt-%d", c->seq++);
    char mb[32];
    snprintf(mb, sizeof mb, "%s", j->out);
    if (!spawn_job(j, src)) return -1; /* the node's copy is on a host that is down */
    void *p;
    if (net_recv(sg_mailbox_by_name(mb), &p, CKPT_IO_DEADLINE_S) != NET_OK) return -1;
    return simgrid_get_clock() - t0;
}
