/* loader.h - the input pipeline (<data>): how each worker's batches get from storage to its GPU,
 * as SimGrid actors, so a step can be input-bound.
 *
 * Per worker (a "lane"), on its node's CPU host, as PyTorch's DataLoader runs it
 * (torch/utils/data/dataloader.py):
 *   - W loader worker actors (loader-workers; processes, each on one CPU core). Batch k of the
 *     current iterator goes to worker (k - base) mod W (round robin, itertools.cycle over the
 *     workers); a worker starts batch k once k <= got + W x prefetch, got being the last batch
 *     the training loop took (prefetch_factor: "number of batches loaded in advance by each
 *     worker", W x prefetch primed when the iterator starts). W = 0 loads in the training loop:
 *     one actor that starts batch k only once the loop asks for it.
 *     Each batch is read (format and source below), then decoded on the worker's core (an exec
 *     bounded to one core's speed, CATALOG_CPU_FLOPS / CATALOG_CPU_CORES, so the node's cores
 *     are shared only past 64 busy workers).
 *   - one copier actor: takes the decoded batches in order and copies batch k to the GPU when
 *     the loop asks for it (in_order delivery; the .cuda() of the training loop, so the copy is
 *     on the step's critical path as in PyTorch without a side-stream prefetcher): pageable
 *     memory first copies into a pinned staging buffer (CATALOG_STAGING_COPY_BPS, on one core),
 *     then the DMA is a transfer of the decoded bytes over the node's PCIe to the GPU host.
 *   - one device actor on the GPU host receiving the DMAs (respawned after its host restarts).
 * GPUDirect Storage (gds): the worker's read streams from the NVMe into GPU memory (disk read
 * and PCIe transfer at once), with no decode and no copier.
 *
 * Reads: format -> requests per batch, each request-latency before its bytes flow, in turn:
 *   idx         one per batch (a worker's batches are not adjacent in the file);
 *   webdataset  one per tar shard begun (shard-samples samples read sequentially, whole shards
 *               to a worker);
 *   mds         one per sample (random access through the shard index);
 *   parquet     one per row group begun (shard-samples rows), reading columns x the bytes.
 * source: local-nvme reads the node's NVMe (SimGrid disk, 7 GB/s shared by its readers);
 * remote sends each request to the storage host, whose disk read, the network transfer to the
 * node and the connection's rate limit run at once (a streamed GET: the slowest sets the time);
 * memory costs nothing to read.
 *
 * The training loop waits in the strategy's input hook (worker.h) until its batch is on the
 * GPU, or the job is over (loader_finish). A loop that asks for another batch than the next (a
 * rollback, a restarted worker joining at the resume step) starts a new iterator there: the old
 * one's loads are discarded as they finish. Stage occupancy (the fraction of the run each
 * stage's actors were busy) and bytes go to the run record; the stage most occupied is the
 * slowest link.
 * Its faults come from the fault plan like every other: the corrupt shards it asks of the plan
 * (fault_sample_corrupt: read, not decoded or copied, logged once an epoch where met), and the
 * injector plays the cache crashes and restarts through its hooks (loader_fault_hooks).
 */
#ifndef DMLSIM_LOADER_H
#define DMLSIM_LOADER_H

#include "fault.h"
#include "inject.h"
#include "order.h"
#include "platform.h"
#include "run.h"
#include "scenario.h"

/* A remote read's deadline (s; the network's, or the store's, failure ends it sooner); the run's
 * own watchdog (progress.h) counts with it. */
#define LOADER_FETCH_S 3600.0
#include "traffic.h"
#include "worker.h"

struct loader;

/* A pipeline for the first P GPUs of pf, batches of `batch` samples of a dataset of `samples`
 * (<numerics>' training set when it trains, so the order is its examples'), its corrupt shards
 * those of the fault plan (NULL: none). Returns a new loader owned by the caller (loader_free,
 * after simgrid_run). */
struct loader *loader_new(const struct data_spec *d, const struct fault_plan *plan,
                          const struct platform *pf, int P, int batch, long long samples,
                          struct run_record *rec, struct traffic *traffic);

/* <data store>: the pipeline reads through store s's requests (storeio.h), its request-latency
 * and connection-rate those of <data> (the store's unless given); NULL: none. Call before
 * loader_start. */
void loader_set_store(struct loader *l, const struct store_spec *s);

/* Where the trace puts the pipeline (before loader_start): its lanes' tracks from `first` on (W
 * loaders and the copier a lane), lane r's waits for a batch on wait_track[r] (kept by the
 * caller; NULL: track 2 r), a lane named "LANE_NAME r" in its tracks' names. By default the
 * tracks follow a strategy's 2 a rank (2 P on), the waits on 2 r, the lanes named "rank". */
void loader_set_tracks(struct loader *l, int first, const int *wait_track, const char *lane_name);

/* The "# data" configuration line of d. */
void loader_describe(const struct data_spec *d, FILE *out);

/* Starts its actors (daemons); call before simgrid_run. */
void loader_start(struct loader *l);

/* Host h is back after a crash: the loaders it ran (a node's CPU) or the receiver of its DMAs
 * (a GPU) start again; the strategy calls it from its restart hook. */
void loader_restarted(struct loader *l, sg_host_t h);

/* The hook the strategy's workers call before each forward. */
struct input_hook loader_hook(struct loader *l);

/* The hooks the injector plays the plan's cache-crash and cache-restart events through
 * (inject_set_input): the node's cache tier loses what it held, logged, and reads go to the
 * store while it is down. */
struct inject_input loader_fault_hooks(struct loader *l);

/* The job is over (done or failed): a training loop still waiting for a batch that cannot come
 * (its node cut off from the store for good: a remote read retried every LOADER_RETRY_S) gets
 * none and goes on, so its worker can leave, and no read is retried any more. Without it such a
 * worker waited forever, and the run never ended (issue 28). */
void loader_finish(struct loader *l);

/* After simgrid_run, once rec->total_s is the run time: the stages' figures into the record. */
void loader_report(const struct loader *l, struct run_record *rec);

void loader_free(struct loader *l);

#endif
