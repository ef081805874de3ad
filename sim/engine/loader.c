/* loader.c - the input pipeline (see loader.h). */
#include "loader.h"

#include "catalog.h"
#include "net.h"
#include "storeio.h"
#include "trace.h"

#include <simgrid/actor.h>
#include <simgrid/cond.h>
#include <simgrid/disk.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/mutex.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOADER_RETRY_S \
    0.05 /* a failed read or copy is tried again (as the rendezvous retries: \
           rendezvous.h, RDZV_RETRY_S) */

enum { STAGE_READ, STAGE_DECODE, STAGE_COPY }; /* run_stage_names' order */
enum { RES_NVME, RES_STORE, RES_NET, RES_CPU, RES_PCIE }; /* run_resource_names' order */

/* A batch of the window: which batch the slot holds and how far it got. */
struct slot {
    int batch;      /* -1: empty */
    bool decoded;   /* in host memory (or, with GDS, already on the GPU) */
    bool ready;     /* on the GPU */
    double stage_s[RUN_STAGES]; /* the time each stage spent on it */
    int hits;                   /* its samples found in the cache tier */
    int bad;                    /* its samples in corrupt shards (read, not decoded or copied) */
    double bytes[RUN_STAGES];   /* ... and the bytes it moved */
    double res[RUN_RESOURCES];  /* what it took of each resource */
};

struct worker_arg;

struct fetch {
    double bytes;
    char box[32];   /* the worker's mailbox for its remote reads */
};

/* One loader worker process: its lane, its index, and its remote read in flight. */
struct worker_arg {
    struct lane *ln;
    int w;
    struct fetch fetch;
};

/* A node's cache tier: which samples it holds (a bit each) and their bytes. */
struct node_cache {
    sg_host_t cpu;        /* the node's CPU host */
    unsigned char *bits;  /* samples bits */
    double used_B;        /* bytes held */
    bool down;            /* crashed, until its restart (<cache-crash restart-after>) */
};

struct lane {
    struct loader *l;
    int rank;
    struct node_cache *cache; /* its node's cache tier, or NULL */
    struct worker_arg *args; /* W */
    int alive;           /* its worker and copier actors running */
    sg_host_t cpu, gpu;  /* where its loader actors run, and the GPU they feed */
    sg_disk_t disk;      /* the node's NVMe (local-nvme, gds) */
    sg_mutex_t mu;       /* guards what follows */
    sg_cond_t cv;
    int gen;             /* the iterator: +1 each time the loop asks out of order */
    int base;            /* the iterator's first batch */
    int got;             /* the last batch the loop took (base - 1 before) */
    int want;            /* the batch the loop waits for, or -1 */
    int copy_next;       /* the next batch the copier copies */
    struct slot *slots;  /* window: batch k in slots[k % nslots] */
    int nslots;
    bool device_up;      /* its device actor is running */
    double *waits;       /* the loop's waits for batches: start, end, ... */
    int nwaits, capwaits;
    bool started;        /* its actors were started once */
    char box[24];        /* the DMA mailbox of the device actor */
};

struct loader {
    const struct data_spec *d;
    const struct fault_plan *plan; /* its corrupt shards (fault_sample_corrupt) */
    const struct platform *pf;
    struct run_record *rec;
    struct traffic *traffic;
    int P, batch;
    int W;                 /* worker actors per lane (1 when loading in the training loop) */
    int ahead;             /* batches a worker may start beyond the last taken (W x prefetch) */
    double core_flops;     /* one core of a node's CPU */
    sg_disk_t store_disk;  /* the storage host's disk (remote reads), or NULL */
    struct storeio *store; /* <data store>: its requests (storeio.h), or NULL */
    struct lane *lanes;
    struct order order;        /* which sample a slot holds (<data shuffle>) */
    long long samples;         /* in the dataset */
    struct node_cache *caches; /* one per node with a lane (<data cache>) */
    double res[RUN_RESOURCES]; /* what the batches trained on took */
    int ncaches;
    double busy_s[RUN_STAGES], bytes[RUN_STAGES];
    long long *logged_epoch;   /* per corrupt shard (plan->shards): the last epoch its skip was
                                  logged in */
    bool over;                 /* the job is over (loader_finish) */
    int track0;                /* its lanes' first trace track (loader_set_tracks) */
    const int *wait_track;     /* per lane: the track of its waits for a batch, or NULL: 2 r */
    const char *lane_name;     /* a lane's name in its tracks' names ("rank") */
};

/* ---- the window ------------------------------------------------------------------------ */

static struct slot *slot_of(struct lane *ln, int k)
{
    return &ln->slots[k % ln->nslots];
}

/* A new iterator from batch `base` (the loop asked for it out of order). Called locked. */
static void restart(struct lane *ln, int base)
{
    ln->gen++;
    ln->base = base;
    ln->got = base - 1;
    ln->copy_next = base;
    for (int i = 0; i < ln->nslots; i++)
        ln->slots[i] = (struct slot){.batch = -1};
    sg_cond_notify_all(ln->cv);
}

/* May worker w of the current iterator start batch k? */
static bool may_start(const struct lane *ln, int k)
{
    const struct loader *l = ln->l;
    if (l->d->workers == 0) return ln->want == k; /* in the training loop: on demand */
    return k <= ln->got + l->ahead;
}

/* ---- the stages -------------------------------------------------------------------------- */

/* Read requests a batch needs, for a worker whose stream is at sample `pos` of its own. */
static double requests(const struct data_spec *d, double pos, int batch)
{
    switch (d->format) {
    case DATA_MDS:
        return batch;
    case DATA_WEBDATASET:
    case DATA_PARQUET: /* the shards or row groups this batch begins */
        return floor((pos + batch - 1) / d->shard_samples) - floor((pos - 1) / d->shard_samples);
    default:
        return 1;
    }
}

/* The storage host's side of a remote read: it sends the bytes (the worker reads the store's
 * disk meanwhile). */
static void fetch_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct fetch *f = sg_actor_self_get_data();
    static int token;
    net_send(sg_mailbox_by_name(f->box), &token, f->bytes, LOADER_FETCH_S);
}

/* A remote read of `bytes` by worker `a`: the storage host's disk, the network and the
 * connection's rate at once (the slowest sets the time); a read the network fails (a cut
 * route, a crashed store) is tried again after LOADER_RETRY_S. */
static void read_remote(struct worker_arg *a, double bytes)
{
    struct lane *ln = a->ln;
    struct loader *l = ln->l;
    sg_host_t store = l->pf->storage;
    struct fetch *f = &a->fetch;
    f->bytes = bytes;
    for (;;) {
        double t0 = simgrid_get_clock();
        sg_actor_t act = sg_actor_init("fetch", store);
        sg_actor_set_data(act, f); /* not a daemon: a read in flight ends before the run does */
        sg_actor_start(act, fetch_actor, 0, NULL);
        void *p;
        sg_comm_t c = net_irecv(sg_mailbox_by_name(f->box), &p);
        if (l->store_disk) sg_disk_read(l->store_disk, (sg_size_t)bytes);
        sg_actor_sleep_until(t0 + bytes / l->d->conn_Bps); /* the connection's limit */
        if (net_wait(c, t0 + LOADER_FETCH_S) == NET_OK) break;
        if (l->over) return; /* nobody waits for it: no more fetch actors keep the run going */
        sg_actor_sleep_for(LOADER_RETRY_S);
    }
    traffic_add(l->traffic, store, ln->cpu, bytes);
}

/* A read of `bytes` in `req` requests from <data store> (storeio.h); a read the network fails
 * is tried again after LOADER_RETRY_S, as read_remote's. */
static void read_store(struct worker_arg *a, double req, double bytes)
{
    struct lane *ln = a->ln;
    struct loader *l = ln->l;
    while (!storeio_transfer(l->store, STOREIO_READ, ln->cpu, req, bytes,
                             simgrid_get_clock() + LOADER_FETCH_S)) {
        if (l->over) return;
        sg_actor_sleep_for(LOADER_RETRY_S);
    }
    if (storeio_remote(l->store)) traffic_add(l->traffic, l->pf->storage, ln->cpu, bytes);
}

/* The bytes of batch k to GPU memory straight from the NVMe (GPUDirect Storage). */
static void read_gds(struct lane *ln, double bytes)
{
    static int token;
    for (;;) { /* until the GPU takes it (its host may be down) */
        sg_comm_t c = net_isend(sg_mailbox_by_name(ln->box), &token, bytes);
        if (ln->disk) sg_disk_read(ln->disk, (sg_size_t)bytes);
        if (net_wait(c, simgrid_get_clock() + LOADER_FETCH_S) == NET_OK) break;
        sg_actor_sleep_for(LOADER_RETRY_S);
    }
    traffic_add(ln->l->traffic, ln->cpu, ln->gpu, bytes);
}

/* Sample j of batch k of lane ln, in the pipeline's order: the examples <numerics> trains on. */
static long long sample_of(const struct lane *ln, int k, int j)
{
    return order_sample(&ln->l->order, ln->rank, k, j);
}

/* Sample i's size over the mean: 1, or a lognormal draw exp(sigma z - sigma^2 / 2) of mean 1,
 * the same for the sample in every epoch (z from SplitMix64 seeded by the seed and i, and
 * Box-Muller). */
static double size_factor(const struct data_spec *d, long long i)
{
    if (d->sample_sigma <= 0) return 1;
    uint64_t x = d->seed * 0x9E3779B97F4A7C15ull + (uint64_t)i, u[2];
    for (int n = 0; n < 2; n++)
        u[n] = order_splitmix(&x);
    double u1 = ((double)(u[0] >> 11) + 0.5) / 9007199254740992.0,
           u2 = (double)(u[1] >> 11) / 9007199254740992.0;
    double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2), s = d->sample_sigma;
    return exp(s * z - s * s / 2);
}

/* Lane ln's cache tier as it stands now, or NULL (none, or down: <cache-crash>). */
static struct node_cache *live_cache(struct lane *ln)
{
    return ln->cache != NULL && !ln->cache->down ? ln->cache : NULL;
}

/* The size factors of a batch's samples summed: all of them, those the cache tier does not
 * hold (it keeps the first samples its node reads: later epochs hit), those outside corrupt
 * shards (decoded). */
struct batch_size {
    double all, missed, good;
    int hits, bad;
};

static struct batch_size batch_sizes(struct lane *ln, int k)
{
    struct loader *l = ln->l;
    struct node_cache *c = live_cache(ln);
    struct batch_size z = {0};
    for (int j = 0; j < l->batch; j++) {
        long long i = sample_of(ln, k, j);
        double f = size_factor(l->d, i);
        z.all += f;
        if (fault_sample_corrupt(l->plan, l->d->shard_samples, i))
            z.bad++;
        else
            z.good += f;
        if (c != NULL && c->bits[i / 8] & (1u << (i % 8)))
            z.hits++;
        else
            z.missed += f;
    }
    return z;
}

/* After batch k's read: the cache tier takes in its samples it lacks, while it has room (none
 * while it is down). */
static void cache_insert(struct lane *ln, int k)
{
    struct loader *l = ln->l;
    struct node_cache *c = live_cache(ln);
    for (int j = 0; c && j < l->batch; j++) {
        long long i = sample_of(ln, k, j);
        double B = size_factor(l->d, i) * l->d->sample_B;
        if (c->bits[i / 8] & (1u << (i % 8)) || c->used_B + B > l->d->cache_B) continue;
        c->bits[i / 8] |= (unsigned char)(1u << (i % 8));
        c->used_B += B;
    }
}

/* Worker a reads batch k (its stream at sample pos) into sl; returns the bytes read and sets
 * *size the size factors of its samples outside corrupt shards summed (for the decode). */
static double read_batch(struct worker_arg *a, int k, double pos, struct slot *sl, double *size)
{
    struct lane *ln = a->ln;
    struct loader *l = ln->l;
    const struct data_spec *d = l->d;
    double sample_B = d->sample_B * (d->format == DATA_PARQUET ? d->columns : 1);
    struct batch_size z = batch_sizes(ln, k);
    sl->hits = z.hits;
    sl->bad = z.bad;
    *size = z.good;
    double bytes = z.missed * sample_B, hit_B = (z.all - z.missed) * sample_B;
    double req = requests(d, pos, l->batch);
    bool store = l->store && !d->gds && bytes > 0;
    if (!store && bytes > 0 && req > 0 && d->request_s > 0) sg_actor_sleep_for(req * d->request_s);
    if (store) {
        read_store(a, req, bytes);
        bool remote = storeio_remote(l->store);
        sl->res[remote ? RES_STORE : RES_NVME] = bytes;
        sl->res[RES_NET] = remote ? bytes : 0;
    } else if (d->gds) {
        read_gds(ln, bytes);
        sl->res[RES_NVME] = sl->res[RES_PCIE] = bytes;
    } else if (d->source == DATA_REMOTE && bytes > 0) {
        read_remote(a, bytes);
        sl->res[RES_STORE] = sl->res[RES_NET] = bytes;
    } else if (d->source == DATA_LOCAL_NVME && ln->disk) {
        sg_disk_read(ln->disk, (sg_size_t)bytes);
        sl->res[RES_NVME] = bytes;
    }
    if (hit_B > 0 && d->cache == CACHE_NVME && ln->disk) { /* the tier on the node's NVMe */
        sg_disk_read(ln->disk, (sg_size_t)hit_B);
        sl->res[RES_NVME] += hit_B;
    }
    cache_insert(ln, k);
    return z.all * sample_B;
}

/* `seconds` of work on one core of the current host (seconds at its nominal speed: a slowed
 * host, a straggling loader, takes longer). */
static void on_one_core(struct loader *l, double seconds)
{
    if (seconds <= 0) return;
    sg_exec_t e = sg_actor_exec_init(seconds * l->core_flops);
    sg_exec_set_bound(e, sg_host_get_speed(sg_host_self()) / CATALOG_CPU_CORES);
    sg_exec_start(e);
    sg_exec_wait(e);
}

/* One stage's work on a batch: into `sl` (counted when the loop takes the batch: loads past
 * the run's end or of an abandoned iterator are not) and the trace. */
static void account(struct lane *ln, struct slot *sl, int stage, int track, double t0,
                    double bytes)
{
    double now = simgrid_get_clock();
    sl->stage_s[stage] = now - t0;
    sl->bytes[stage] = bytes;
    trace_slice(ln->l->rec->trace, track, run_stage_names[stage], t0, now);
}

/* ---- the actors ------------------------------------------------------------------------- */

/* The trace tracks of a lane: after the strategy's 2 per rank, W workers and the copier. */
static int track_of(const struct lane *ln, int which)
{
    return ln->l->track0 + ln->rank * (ln->l->W + 1) + which;
}

/* Worker w's next batch of the current iterator at or after `from`. Called locked. */
static int next_of(const struct lane *ln, int w, int from)
{
    int W = ln->l->W, k = from > ln->base ? from : ln->base;
    return k + ((w - (k - ln->base)) % W + W) % W;
}

/* A lane actor ends: killed by its node's crash, a memory cache tier is lost with it. */
static void lane_exit(int failed, void *data)
{
    struct lane *ln = data;
    ln->alive--;
    if (failed && ln->cache && ln->l->d->cache == CACHE_MEMORY) {
        memset(ln->cache->bits, 0, (size_t)(ln->l->samples / 8 + 1));
        ln->cache->used_B = 0;
    }
}

static void worker_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct worker_arg *a = sg_actor_self_get_data();
    struct lane *ln = a->ln;
    sg_actor_on_exit(lane_exit, ln);
    struct loader *l = ln->l;
    int w = a->w, gen = -1, k = 0;
    for (;;) { /* a daemon */
        sg_mutex_lock(ln->mu);
        k = gen == ln->gen ? next_of(ln, w, k + 1) : next_of(ln, w, ln->base);
        gen = ln->gen;
        while (gen == ln->gen && !may_start(ln, k))
            sg_cond_wait(ln->cv, ln->mu);
        bool current = gen == ln->gen;
        sg_mutex_unlock(ln->mu);
        if (!current) {
            gen = -1;
            continue;
        }
        struct slot done = {.batch = k, .decoded = true, .ready = l->d->gds};
        double t0 = simgrid_get_clock();
        double pos = (double)(k / l->W) * l->batch; /* this worker's own stream */
        double size, bytes = read_batch(a, k, pos, &done, &size);
        account(ln, &done, STAGE_READ, track_of(ln, w), t0, bytes);
        t0 = simgrid_get_clock();
        on_one_core(l, size * l->d->decode_s); /* decoding scales with the bytes */
        done.res[RES_CPU] = size * l->d->decode_s;
        account(ln, &done, STAGE_DECODE, track_of(ln, w), t0, 0);
        sg_mutex_lock(ln->mu);
        if (gen == ln->gen) {
            *slot_of(ln, k) = done;
            sg_cond_notify_all(ln->cv);
        }
        sg_mutex_unlock(ln->mu);
    }
}

static void device_exit(int failed, void *data)
{
    (void)failed;
    struct lane *ln = data;
    ln->device_up = false;
}

/* Receives the DMAs to its GPU (they carry no data the simulation uses). */
static void device_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct lane *ln = sg_actor_self_get_data();
    sg_actor_on_exit(device_exit, ln);
    for (;;) {
        void *p;
        net_recv(sg_mailbox_by_name(ln->box), &p, 1e9);
    }
}

static void start_device(struct lane *ln)
{
    sg_actor_t a = sg_actor_init("h2d", ln->gpu);
    sg_actor_set_data(a, ln);
    sg_actor_start(a, device_actor, 0, NULL);
    sg_actor_daemonize(a); /* after the start: SimGrid 3.32 crashes killing a daemon started in
                              the round the last non-daemon ends */
    ln->device_up = true;
}

/* Copies a batch to the GPU (its stage time into *sl); false if the DMA failed (the GPU's host
 * is down). */
static bool copy_batch(struct lane *ln, struct slot *sl, int bad)
{
    struct loader *l = ln->l;
    double bytes = (l->batch - bad) * l->d->decoded_B, t0 = simgrid_get_clock();
    if (!l->d->pinned) on_one_core(l, bytes / CATALOG_STAGING_COPY_BPS);
    sl->res[RES_CPU] = l->d->pinned ? 0 : bytes / CATALOG_STAGING_COPY_BPS;
    sl->res[RES_PCIE] = bytes;
    static int token;
    traffic_add(l->traffic, ln->cpu, ln->gpu, bytes);
    enum net_status st = net_send(sg_mailbox_by_name(ln->box), &token, bytes, 1e9);
    account(ln, sl, STAGE_COPY, track_of(ln, l->W), t0, st == NET_OK ? bytes : 0);
    return st == NET_OK;
}

static void copier_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct lane *ln = sg_actor_self_get_data();
    sg_actor_on_exit(lane_exit, ln);
    for (;;) { /* a daemon */
        sg_mutex_lock(ln->mu);
        int k = ln->copy_next;
        while (!(slot_of(ln, k)->batch == k && slot_of(ln, k)->decoded && ln->want == k)) {
            sg_cond_wait(ln->cv, ln->mu);
            k = ln->copy_next;
        }
        int gen = ln->gen, bad = slot_of(ln, k)->bad;
        sg_mutex_unlock(ln->mu);
        struct slot copied = {0};
        bool ok = copy_batch(ln, &copied, bad);
        sg_mutex_lock(ln->mu);
        if (ok && gen == ln->gen && slot_of(ln, k)->batch == k) {
            slot_of(ln, k)->ready = true;
            slot_of(ln, k)->stage_s[STAGE_COPY] = copied.stage_s[STAGE_COPY];
            slot_of(ln, k)->bytes[STAGE_COPY] = copied.bytes[STAGE_COPY];
            slot_of(ln, k)->res[RES_CPU] += copied.res[RES_CPU];
            slot_of(ln, k)->res[RES_PCIE] += copied.res[RES_PCIE];
            ln->copy_next = k + 1;
            sg_cond_notify_all(ln->cv);
        }
        sg_mutex_unlock(ln->mu);
        if (!ok) sg_actor_sleep_for(LOADER_RETRY_S);
    }
}

static void start_actors(struct lane *ln);

void loader_restarted(struct loader *l, sg_host_t h)
{
    for (int r = 0; r < l->P; r++) {
        struct lane *ln = &l->lanes[r];
        if (ln->cpu == h && ln->alive < l->W + !l->d->gds) start_actors(ln);
        if (ln->gpu == h && !ln->device_up) start_device(ln);
    }
}

/* ---- the hook ---------------------------------------------------------------------------- */

/* The training loop of `rank` takes batch `step`: waits until it is on the GPU. */
static void wait_batch(void *ctx, int rank, int step)
{
    struct loader *l = ctx;
    struct lane *ln = &l->lanes[rank];
    double t0 = simgrid_get_clock();
    if (!ln->device_up) start_device(ln); /* its GPU restarted */
    sg_mutex_lock(ln->mu);
    if (step != ln->got + 1) restart(ln, step);
    ln->want = step;
    sg_cond_notify_all(ln->cv);
    while (!(slot_of(ln, step)->batch == step && slot_of(ln, step)->ready) && !l->over)
        sg_cond_wait(ln->cv, ln->mu); /* a node that restarts gets its loaders back first */
    if (!(slot_of(ln, step)->batch == step && slot_of(ln, step)->ready)) { /* loader_finish */
        ln->want = -1;
        sg_mutex_unlock(ln->mu);
        return;
    }
    ln->got = step;
    ln->want = -1;
    struct slot *sl = slot_of(ln, step);
    for (int s = 0; s < RUN_STAGES; s++) { /* the work that went into a batch trained on */
        l->busy_s[s] += sl->stage_s[s];
        l->bytes[s] += sl->bytes[s];
    }
    for (int i = 0; i < RUN_RESOURCES; i++)
        l->res[i] += sl->res[i];
    if (ln->cache) {
        l->rec->cache_hits += sl->hits;
        l->rec->cache_misses += l->batch - sl->hits;
    }
    sl->batch = -1; /* taken: its slot is free */
    sg_cond_notify_all(ln->cv);
    sg_mutex_unlock(ln->mu);
    l->rec->input_wait_total_s += simgrid_get_clock() - t0;
    if (ln->nwaits == ln->capwaits) {
        ln->capwaits = ln->capwaits ? 2 * ln->capwaits : 64;
        ln->waits = xbt_realloc(ln->waits, 2 * (size_t)ln->capwaits * sizeof *ln->waits);
    }
    ln->waits[2 * ln->nwaits] = t0;
    ln->waits[2 * ln->nwaits++ + 1] = simgrid_get_clock();
    l->rec->input_batches += 1;
    trace_slice(l->rec->trace, l->wait_track ? l->wait_track[rank] : 2 * rank, "input wait", t0,
                simgrid_get_clock());
}

void loader_finish(struct loader *l)
{
    if (l->over) return;
    l->over = true;
    for (int r = 0; r < l->P; r++) {
        struct lane *ln = &l->lanes[r];
        if (ln->mu == NULL) continue;
        sg_mutex_lock(ln->mu);
        sg_cond_notify_all(ln->cv);
        sg_mutex_unlock(ln->mu);
    }
}

void loader_describe(const struct data_spec *d, FILE *out)
{
    fprintf(out,
            "# data          %.0f samples of %.0f B (decoded %.0f B, %.3f ms a sample on a core), "
            "%s",
            d->samples, d->sample_B, d->decoded_B, d->decode_s * 1e3,
            scenario_data_format_name(d->format));
    if (d->format != DATA_IDX)
        fprintf(out, " (%s of %.0f %s)", d->format == DATA_PARQUET ? "row groups" : "shards",
                d->shard_samples, d->format == DATA_PARQUET ? "rows" : "samples");
    fprintf(out, " from %s, %s", scenario_data_source_name(d->source),
            d->by_class ? "stored by class, " : "");
    if (d->workers == 0)
        fprintf(out, "loaded in the training loop");
    else
        fprintf(out, "%d loader worker(s) x prefetch %d per GPU", d->workers, d->prefetch);
    fprintf(out, ", %s%s", d->pinned ? "pinned" : "pageable", d->gds ? ", GPUDirect Storage" : "");
    if (d->cache != CACHE_NONE)
        fprintf(out, ", a %.0f B %s cache tier per node", d->cache_B,
                scenario_data_cache_name(d->cache));
    fputc('\n', out);
}

/* The samples of rank's batch at data position `step` in corrupt shards; the first time an
 * epoch meets a corrupt shard, an event. */
static int corrupt_in(void *ctx, int rank, int step, int members)
{
    struct loader *l = ctx;
    const struct data_spec *d = l->d;
    const struct fault_plan *plan = l->plan;
    int bad = 0;
    for (int j = 0; plan && plan->nshards > 0 && j < l->batch; j++) {
        long long i = order_sample(&l->order, rank, step, j);
        if (!fault_sample_corrupt(plan, d->shard_samples, i)) continue;
        bad++;
        long long shard = (long long)((double)i / d->shard_samples),
                  epoch = (((long long)step * l->P + rank) * l->batch + j) / l->samples;
        for (size_t c = 0; c < plan->nshards; c++) {
            if (plan->shards[c] != shard || l->logged_epoch[c] >= epoch) continue;
            l->logged_epoch[c] = epoch;
            run_event_add(l->rec, simgrid_get_clock(), RUN_FAULT, step, members,
                          "corrupt shard %lld skipped: its samples fail to decode (epoch %lld, "
                          "first met by rank %d)", shard, epoch, rank);
        }
    }
    return bad;
}

struct input_hook loader_hook(struct loader *l)
{
    return (struct input_hook){wait_batch, corrupt_in, l};
}

/* The cache tier on CPU host h (NULL: no lane's node). */
static struct node_cache *cache_on(struct loader *l, sg_host_t h)
{
    for (int c = 0; c < l->ncaches; c++)
        if (l->caches[c].cpu == h) return &l->caches[c];
    return NULL;
}

/* <cache-crash>: the tier's contents are lost; it is down until its restart (down_s > 0). */
static void cache_crash(void *ctx, sg_host_t cpu, double down_s)
{
    struct loader *l = ctx;
    struct node_cache *c = cache_on(l, cpu);
    if (c == NULL) return;
    const char *name = sg_host_get_name(cpu);
    run_event_add(l->rec, simgrid_get_clock(), RUN_FAULT, -1, -1,
                  "cache tier of %.*s crashed: %.0f B lost, reads go to the store for %g s",
                  (int)(strlen(name) - strlen(".cpu")), name, c->used_B, down_s);
    memset(c->bits, 0, (size_t)(l->samples / 8 + 1));
    c->used_B = 0;
    c->down = down_s > 0;
}

static void cache_restart(void *ctx, sg_host_t cpu)
{
    struct node_cache *c = cache_on(ctx, cpu);
    if (c) c->down = false;
}

struct inject_input loader_fault_hooks(struct loader *l)
{
    return (struct inject_input){cache_crash, cache_restart, l};
}

/* ---- setup ------------------------------------------------------------------------------- */

/* One cache tier per node (its CPU host) that feeds a lane. */
static void attach_caches(struct loader *l)
{
    l->caches = xbt_new0(struct node_cache, l->P);
    for (int r = 0; r < l->P; r++) {
        struct lane *ln = &l->lanes[r];
        for (int c = 0; c < l->ncaches && ln->cache == NULL; c++)
            if (l->caches[c].cpu == ln->cpu) ln->cache = &l->caches[c];
        if (ln->cache) continue;
        ln->cache = &l->caches[l->ncaches++];
        ln->cache->cpu = ln->cpu;
        ln->cache->bits = xbt_new0(unsigned char, (size_t)(l->samples / 8 + 1));
    }
}

struct loader *loader_new(const struct data_spec *d, const struct fault_plan *plan,
                          const struct platform *pf, int P, int batch, long long samples,
                          struct run_record *rec, struct traffic *traffic)
{
    struct loader *l = xbt_new0(struct loader, 1);
    *l = (struct loader){.d = d, .plan = plan, .pf = pf, .rec = rec, .traffic = traffic, .P = P,
                         .batch = batch, .W = d->workers > 0 ? d->workers : 1,
                         .ahead = d->workers * d->prefetch,
                         .core_flops = CATALOG_CPU_FLOPS / CATALOG_CPU_CORES,
                         .samples = samples,
                         .store_disk = pf->storage ? platform_host_disk(pf->storage) : NULL,
                         .track0 = 2 * P, /* after the strategy's 2 a rank */
                         .lane_name = "rank"};
    order_init(&l->order, (enum data_shuffle)d->shuffle, samples, P, batch, d->seed,
               d->shuffle_buffer);
    l->lanes = xbt_new0(struct lane, P);
    for (int r = 0; r < P; r++) {
        struct lane *ln = &l->lanes[r];
        ln->l = l;
        ln->rank = r;
        ln->gpu = pf->gpus[r];
        ln->cpu = platform_node_cpu(pf, ln->gpu);
        if (ln->cpu == NULL) ln->cpu = ln->gpu; /* a user platform without CPU hosts */
        ln->disk = platform_host_disk(ln->cpu);
        ln->nslots = l->ahead + 2;
        ln->args = xbt_new0(struct worker_arg, l->W);
        for (int w = 0; w < l->W; w++) {
            ln->args[w] = (struct worker_arg){.ln = ln, .w = w};
            snprintf(ln->args[w].fetch.box, sizeof ln->args[w].fetch.box, "fetch-%d.%d", r, w);
        }
        ln->slots = xbt_new0(struct slot, ln->nslots);
        ln->want = -1;
        snprintf(ln->box, sizeof ln->box, "h2d-%d", r);
    }
    if (d->cache != CACHE_NONE) attach_caches(l);
    size_t nshards = plan ? plan->nshards : 0;
    l->logged_epoch = xbt_new(long long, nshards + 1);
    for (size_t c = 0; c < nshards; c++)
        l->logged_epoch[c] = -1;
    rec->input = true;
    rec->cache = d->cache != CACHE_NONE;
    return l;
}

/* The lane's worker and copier actors (again after its node restarted: a new iterator; actors
 * of the old one still alive keep running). */
static void start_actors(struct lane *ln)
{
    struct loader *l = ln->l;
    if (ln->started) {
        sg_mutex_lock(ln->mu);
        restart(ln, ln->got + 1);
        sg_mutex_unlock(ln->mu);
    }
    ln->started = true;
    for (int w = 0; w < l->W; w++) {
        struct worker_arg *a = &ln->args[w];
        char name[32];
        snprintf(name, sizeof name, "loader-%d.%d", ln->rank, w);
        sg_actor_t act = sg_actor_init(name, ln->cpu);
        sg_actor_set_data(act, a);
        sg_actor_start(act, worker_actor, 0, NULL);
        sg_actor_daemonize(act);
        ln->alive++;
    }
    if (l->d->gds) return;
    sg_actor_t act = sg_actor_init("copier", ln->cpu);
    sg_actor_set_data(act, ln);
    sg_actor_start(act, copier_actor, 0, NULL);
    sg_actor_daemonize(act);
    ln->alive++;
}

static void start_lane(struct lane *ln)
{
    ln->mu = sg_mutex_init();
    ln->cv = sg_cond_init();
    ln->gen = -1;
    restart(ln, 0);
    start_actors(ln);
    start_device(ln);
}

void loader_set_tracks(struct loader *l, int first, const int *wait_track, const char *lane_name)
{
    l->track0 = first;
    l->wait_track = wait_track;
    l->lane_name = lane_name;
}

void loader_start(struct loader *l)
{
    for (int r = 0; r < l->P; r++) {
        start_lane(&l->lanes[r]);
        for (int w = 0; w < l->W; w++) {
            char *name = bprintf("%s %d loader %d", l->lane_name, r, w);
            trace_track(l->rec->trace, track_of(&l->lanes[r], w), name);
            free(name);
        }
        char *name = bprintf("%s %d copy to GPU", l->lane_name, r);
        trace_track(l->rec->trace, track_of(&l->lanes[r], l->W), name);
        free(name);
    }
}

/* The resources' capacities a second: every node's NVMe, cores and CPU-to-switch PCIe, the
 * store's disk and the route to it (its NIC). */
static void capacities(const struct loader *l, double *per_s)
{
    int nodes = 0;
    for (int r = 0; r < l->P; r++) {
        const struct lane *ln = &l->lanes[r];
        bool first = true;
        for (int q = 0; q < r && first; q++)
            first = l->lanes[q].cpu != ln->cpu;
        if (!first) continue;
        nodes++;
        per_s[RES_NVME] += ln->disk ? sg_disk_read_bandwidth(ln->disk) : 0;
        per_s[RES_PCIE] += ln->cpu != ln->gpu ? sg_host_get_route_bandwidth(ln->cpu, ln->gpu) : 0;
    }
    per_s[RES_CPU] = (double)nodes * CATALOG_CPU_CORES;
    sg_host_t store = l->pf->storage;
    per_s[RES_STORE] = l->store_disk ? sg_disk_read_bandwidth(l->store_disk) : 0;
    per_s[RES_NET] = store ? sg_host_get_route_bandwidth(store, l->lanes[0].cpu) : 0;
}

void loader_report(const struct loader *l, struct run_record *rec)
{
    double per_s[RUN_RESOURCES] = {0}, T = rec->total_s;
    for (int r = 0; r < l->P; r++) /* the waits within the run's time */
        for (int i = 0; i < l->lanes[r].nwaits; i++)
            rec->input_wait_run_s += fmin(l->lanes[r].waits[2 * i + 1], T) -
                                     fmin(l->lanes[r].waits[2 * i], T);
    capacities(l, per_s);
    for (int i = 0; i < RUN_RESOURCES; i++)
        rec->resources[i] = (struct resource_report){l->res[i], per_s[i]};
    if (l->d->shuffle == SHUFFLE_BUFFER) { /* per GPU: a buffer a loader worker */
        rec->shuffle_buffer_B = l->W * l->d->shuffle_buffer * l->d->sample_B;
        rec->shuffle_moved = l->order.outputs > 0 ? l->order.moved / l->order.outputs : 0;
    }
    double lanes[RUN_STAGES] = {l->P * l->W, l->P * l->W, l->d->gds ? 0 : l->P};
    for (int s = 0; s < RUN_STAGES; s++) {
        struct stage_report *st = &rec->stages[s];
        snprintf(st->name, sizeof st->name, "%s", run_stage_names[s]);
        st->busy_s = l->busy_s[s];
        st->lanes = lanes[s];
        st->bytes = l->bytes[s];
    }
}

void loader_set_store(struct loader *l, const struct store_spec *s)
{
    if (s == NULL || l->store != NULL) return;
    struct store_params p = s->p; /* <data request-latency, connection-rate> over the store's */
    p.latency_s = l->d->request_s;
    p.conn_Bps = l->d->conn_Bps;
    l->store = storeio_new(s, &p, l->pf);
    if (s->kind != STORE_LOCAL) l->store_disk = storeio_disk(l->store); /* its own disk */
}

void loader_free(struct loader *l)
{
    if (l == NULL) return;
    storeio_free(l->store);
    for (int r = 0; r < l->P; r++) {
        free(l->lanes[r].slots);
        free(l->lanes[r].waits);
        free(l->lanes[r].args);
        if (l->lanes[r].mu) sg_mutex_destroy(l->lanes[r].mu);
        if (l->lanes[r].cv) sg_cond_destroy(l->lanes[r].cv);
    }
    order_release(&l->order);
    for (int c = 0; c < l->ncaches; c++)
        free(l->caches[c].bits);
    free(l->caches);
    free(l->logged_epoch);
    free(l->lanes);
    free(l);
}
