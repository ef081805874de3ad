/* ckpt.h - checkpoints: how long writing and restoring the training state takes.
 *
 * Size: every parameter's weight (training dtype) and optimizer state (plus the FP32 master copy
 * in mixed precision), and 4 KiB for the step, RNG state and data position. Writes and reads are
 * real transfers and disk operations on the platform (SimGrid comms and sg_disk_write/read):
 *   local-nvme  GPU -> its node's CPU host (PCIe) -> the node's NVMe disk; every node keeps its
 *               own copy (written in parallel; modelled on the writer's node), restored locally;
 *   cache       GPU -> node CPU memory (the cache: the checkpoint counts once it is there), then
 *               a background flush to the storage host over the network and its disk;
 *   remote      GPU -> storage host over the network -> its disk; restored from there.
 * With <checkpoint store="NAME"> (storeio.h) the node's CPU host is the store's client: the
 * snapshot goes GPU -> CPU host (PCIe), then the CPU host writes it in the store's parts
 * (part-size; a request each, over its connections, each paced, with its latency and its
 * bytes through the network, the store's disk and the connection's rate), and counts when the
 * last part is written (cache: on receipt, the parts a background flush); a restore reads the
 * parts back to the CPU host and sends the state to the GPU.
 * Sync mode: the writer waits until the checkpoint counts (durable on disk, or in the cache).
 * Async mode: the writer waits only for the snapshot to reach its node's memory; the rest runs in
 * the background and the checkpoint counts when it is durable. Only counted checkpoints are
 * restored from.
 */
#ifndef DMLSIM_CKPT_H
#define DMLSIM_CKPT_H

#include "model.h"
#include "platform.h"
#include "scenario.h"
#include "run.h"

/* A checkpoint write or read is given up after this (s): checkpoint I/O is not watched by the
 * collective watchdog; the run's own watchdog (progress.h) counts with it. */
#define CKPT_IO_DEADLINE_S 3600.0

struct ckpt {
    const struct scenario *sc;
    const struct platform *pf;
    double size_B;       /* bytes of one checkpoint */
    int last_step;       /* steps captured by the last checkpoint that counts (0 = none) */
    double last_version; /* PS: per-use version captured (see ps.c) */
    double completed;    /* checkpoints that counted */
    double overhead_s;   /* time writers spent blocked */
    struct run_record *rec; /* where completions are logged, or NULL */
    int seq;             /* unique mailbox names */
    int epoch;           /* writes started before the last ckpt_abandon do not count */
    struct ckpt_sync *live; /* the writes whose semaphores someone still holds (ckpt.c) */
    struct storeio *store;  /* <checkpoint store>: its requests (storeio.h), or NULL */
};

/* Bytes of the state of `params` parameters (a replica or a shard). */
double ckpt_size(const struct model *m, double params, enum gpu_dtype dtype, enum optimizer opt);

void ckpt_init(struct ckpt *c, const struct scenario *sc, const struct platform *pf, double size_B,
               struct run_record *rec);

/* Is a checkpoint due after `steps_done` steps, at time now (every N steps / every T)? */
bool ckpt_due(struct ckpt *c, int steps_done, double last_time_s, double now_s);

/* Writes the state after `steps_done` steps from `host` (called by an actor on it). Returns the
 * time the writer was blocked. On completion (durable / in the cache) last_step = steps_done and
 * *version_slot (if not NULL) = version. */
double ckpt_write(struct ckpt *c, sg_host_t host, int steps_done, double version,
                  double *version_slot);

/* Split brain's merge: the lineage of the checkpoints after `step` is given up; the last counted
 * checkpoint is `step`'s (0: none), and writes still in flight complete without counting. */
void ckpt_abandon(struct ckpt *c, int step);

/* Restores the last counted checkpoint to `host` (called by an actor on it); returns the time it
 * took (0 when there is none), or -1 when it failed: the host holding the copy (the node's CPU
 * host for local-nvme and cache) is down (logged), or the transfer failed.
 * Writes and restores never start an actor on a host that is off: a write whose first stage's
 * host is down writes nothing (logged, the writer not blocked). A write started before a
 * split-brain merge gave its lineage up (ckpt_abandon) completes without counting and is logged
 * as given up. */
double ckpt_restore(struct ckpt *c, sg_host_t host);

/* After simgrid_run: destroys what the writes left (the semaphores of a write whose writer died
 * waiting on them) and the store's runtime. */
void ckpt_release(struct ckpt *c);

#endif
