/* storeio.h - requests to a store (<storage>, storage.h) as a client's actors make them.
 *
 * A transfer of B bytes in n requests (a batch's reads, a checkpoint's parts) runs over
 * k = min(connections, n) streams: actors on the client host, each taking the next request
 * until none is left, so at most `connections` requests are in flight. Each request:
 *   1. the client's request-overhead (signing, the RPC: a delay of the stream);
 *   2. the store's request-rate limit: the store hands out one admission a 1/rate seconds for
 *      each kind (read, write), the next free one to each request in turn (a token pacing shared
 *      by every client of the store, so n requests of any number of clients take at least
 *      (n - 1) / rate); 0: none;
 *   3. latency, its first byte;
 *   4. its bytes B / n: the network between the client and the storage host (a remote store;
 *      none for a local drive), the store's disk (the storage host's "store.NAME" disk at the
 *      store's aggregate rates, or the client node's NVMe for a local store) and the
 *      connection's rate, at once: the slowest sets the time (a streamed GET or PUT).
 * So one stream reading n objects of S bytes takes n (overhead + L + S / min(net, disk, conn));
 * many streams meet the store's aggregate rate on its disk and its request rate in the pacing.
 * A transfer with n = 0 requests moves its bytes on a stream already open (WebDataset's shard
 * read on): step 4 only.
 */
#ifndef DMLSIM_STOREIO_H
#define DMLSIM_STOREIO_H

#include "platform.h"
#include "scenario.h"

#include <simgrid/forward.h>

#include <stdbool.h>

enum storeio_op { STOREIO_READ, STOREIO_WRITE };

struct storeio;

/* The runtime of store s with the numbers p (s's own, or with a caller's overrides) on pf.
 * Returns a new object owned by the caller (storeio_free, after simgrid_run). */
struct storeio *storeio_new(const struct store_spec *s, const struct store_params *p,
                            const struct platform *pf);

/* Moves total_B bytes in n requests between `client` and the store (the calling actor runs on
 * client and blocks until every request is done or deadline_s). Returns false if a transfer
 * failed (a cut route, a host down) or the deadline passed. */
bool storeio_transfer(struct storeio *io, enum storeio_op op, sg_host_t client, double n,
                      double total_B, double deadline_s);

/* The requests of a transfer of total_B written or read in the store's parts (part-size; 0:
 * one request). */
double storeio_parts(const struct storeio *io, double total_B);

/* Whether the store is remote (its bytes cross the network to the storage host). */
bool storeio_remote(const struct storeio *io);

/* The storage host's disk of a remote store (NULL: a local store, or none). */
sg_disk_t storeio_disk(const struct storeio *io);

/* The store's name and numbers. */
const struct store_spec *storeio_spec(const struct storeio *io);

void storeio_free(struct storeio *io);

#endif
