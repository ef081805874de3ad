/* storage.h - the storage presets scenarios name (<storage preset>): object stores, parallel file
 * systems and local NVMe drives, with the source of every number.
 *
 * A store is what a client meets when it reads or writes: an aggregate read and write rate (the
 * service's, or the drive's: SimGrid disk bandwidths), a rate per connection (one stream's), a
 * first-byte latency per request, a per-request overhead on the client, request-rate limits
 * (GET-like and PUT-like requests a second, for the whole store: S3 states its limit per
 * partitioned prefix, and a store here is one prefix), the concurrent connections (streams) a
 * client keeps, and the part size a checkpoint is written and read in. Kept in C like catalog.h,
 * so the binary needs no data file; `dmlsim catalog stores` prints the table with its sources.
 */
#ifndef DMLSIM_STORAGE_H
#define DMLSIM_STORAGE_H

#include <stddef.h>

enum store_kind {
    STORE_OBJECT, /* an object store behind the network (S3, GCS, Azure Blob) */
    STORE_PFS,    /* a parallel file system behind the network (Lustre, Tectonic) */
    STORE_LOCAL,  /* a node's own drive (NVMe): every node has one */
};

/* The numbers of a store. 0 in a rate limit: none; every other number > 0. */
struct store_params {
    double read_Bps;  /* aggregate read rate of the whole store (a local drive: one node's) */
    double write_Bps; /* aggregate write rate */
    double conn_Bps;  /* one connection's (stream's) rate */
    double latency_s; /* first byte of a request after it is sent */
    double request_s; /* client-side cost of each request (signing, the RPC), before it */
    double get_per_s; /* read requests a second the store admits, 0: no limit */
    double put_per_s; /* write requests a second, 0: no limit */
    int connections;  /* concurrent requests (streams) one client keeps in flight */
    double part_B;    /* a checkpoint's request size (multipart part, stripe) */
};

struct store_preset {
    const char *name; /* catalog name used in scenarios, e.g. "s3" */
    enum store_kind kind;
    struct store_params p;
    const char *source; /* where the numbers come from */
};

/* The preset `name`, or NULL. */
const struct store_preset *storage_preset(const char *name);

/* The whole table (n of them), and "a, b, c": every name. */
const struct store_preset *storage_presets(size_t *n);
const char *storage_preset_names(void);

/* "object", "pfs", "local". */
const char *storage_kind_name(enum store_kind k);

#endif
