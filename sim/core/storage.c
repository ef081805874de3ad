/* storage.c - the storage presets (see storage.h). */
#include "storage.h"

#include "catalog.h"

#include <stdio.h>
#include <string.h>

#define MIB 1048576.0

/* S3's client settings, used by the other object stores too (their own clients' defaults are not
 * in the sources): s3transfer's TransferConfig, which the AWS CLI's `aws s3` commands use,
 * max_request_concurrency 10 ("max_concurrent_requests - The maximum number of concurrent
 * requests", default 10) and multipart_chunksize 8 MB = 8 x 1024 x 1024 B (AWS CLI S3
 * Configuration, docs.aws.amazon.com/cli/latest/topic/s3-config). */
#define S3_CLIENT_CONNECTIONS 10
#define S3_CLIENT_PART_B      (8 * MIB)

static const struct store_preset presets[] = {
        {"server-ssd",
         STORE_PFS,
         {.read_Bps = CATALOG_STORE_BPS, /* today's default store: one 3 GB/s SSD */
          .write_Bps = CATALOG_STORE_BPS,
          .conn_Bps = CATALOG_OBJECT_CONN_BPS,
          .latency_s = CATALOG_OBJECT_REQUEST_S,
          .connections = 1,
          .part_B = 0},
         "the default remote store as a preset: its 3 GB/s SSD (CATALOG_STORE_BPS, the seed "
         "notes), "
         "requests as an object store's (S3 design patterns: 10 ms, 87.5 MB/s a connection), one "
         "stream, a checkpoint one request"},
        {"s3",
         STORE_OBJECT,
         {.read_Bps = 0, /* no aggregate limit published: S3 "scales" with prefixes */
          .write_Bps = 0,
          .conn_Bps = CATALOG_OBJECT_CONN_BPS,   /* 85-90 MB/s a connection (S3 design patterns) */
          .latency_s = CATALOG_OBJECT_REQUEST_S, /* "tens of milliseconds": 10 ms, the low end */
          .get_per_s = 5500, /* "5,500 GET/HEAD requests per second per partitioned prefix" */
          .put_per_s = 3500, /* "3,500 PUT/COPY/POST/DELETE" (S3 performance guidelines) */
          .connections = S3_CLIENT_CONNECTIONS,
          .part_B = S3_CLIENT_PART_B},
         "AWS, Amazon S3 performance guidelines and design patterns (3,500 PUT and 5,500 GET a "
         "second a prefix; 85-90 MB/s a connection; tens of ms a small request); AWS CLI S3 "
         "configuration (10 concurrent requests, 8 MB parts)"},
        {"gcs",
         STORE_OBJECT,
         {.read_Bps = 0, /* no aggregate limit in the sources */
          .write_Bps = 0,
          .conn_Bps = CATALOG_OBJECT_CONN_BPS,   /* not published by Google: S3's */
          .latency_s = CATALOG_OBJECT_REQUEST_S, /* not published by Google: S3's */
          .get_per_s = 5000, /* "approximately 5000 object read requests per second" */
          .put_per_s = 1000, /* "approximately 1000 object write requests per second" */
          .connections = S3_CLIENT_CONNECTIONS,
          .part_B = S3_CLIENT_PART_B},
         "Google Cloud Storage, request rate and access distribution guidelines (a bucket's "
         "initial IO capacity: about 5,000 reads and 1,000 writes a second); latency, "
         "connection rate and client settings S3's (not published for GCS)"},
        {"azure-blob",
         STORE_OBJECT,
         {.read_Bps = 25e9,                    /* default maximum egress, major regions: 200 Gbps */
          .write_Bps = 7.5e9,                  /* default maximum ingress, major regions: 60 Gbps */
          .conn_Bps = CATALOG_OBJECT_CONN_BPS, /* not published by Microsoft: S3's */
          .latency_s = CATALOG_OBJECT_REQUEST_S, /* not published by Microsoft: S3's */
          .get_per_s = 40000, /* 40,000 requests a second an account (all kinds together; */
          .put_per_s = 40000, /* here each kind has the budget: a simplification) */
          .connections = S3_CLIENT_CONNECTIONS,
          .part_B = S3_CLIENT_PART_B},
         "Microsoft, Scalability and performance targets for standard storage accounts (GPv2, "
         "major regions: 40,000 requests/s, 60 Gbps ingress, 200 Gbps egress); latency, "
         "connection rate and client settings S3's"},
        {"fsx-lustre",
         STORE_PFS,
         {.read_Bps = 100e9, /* Persistent 2 at 1,000 MB/s/TiB x a 100 TiB file system */
          .write_Bps = 100e9,
          .conn_Bps = 0,     /* no per-stream limit: the client's network sets it */
          .latency_s = 1e-3, /* "sub-millisecond latencies": the bound */
          .connections = 8,  /* osc max_rpcs_in_flight's default 8 (Lustre Operations Manual;
                                not in the stored sources) */
          .part_B = MIB},    /* "1MB is ... the typical size used by clients for all IO" */
         "AWS, FSx for Lustre: Persistent 2 SSD 125-1000 MB/s per TiB (managing throughput "
         "capacity), sub-millisecond latencies; 100 TiB at 1000 MB/s/TiB chosen (set read-bw, "
         "write-bw for another size); 1 MB RPCs (A. Dilger, lustre-discuss, 2010-08)"},
        {"tectonic",
         STORE_PFS,
         {.read_Bps = 2e12, /* "a sustainable throughput of 2 TB/s" */
          .write_Bps = 2e12,
          .connections = 1,
          .part_B = 0},
         "Meta's Tectonic for Llama 3: sustainable 2 TB/s (peak 7 TB/s), arXiv:2407.21783 "
         "sec. 3.3.1; latency and requests not published (none modelled, as store-bw)"},
        {"nvme-gen4",
         STORE_LOCAL,
         {.read_Bps = CATALOG_NVME_BPS,        /* PM1733: 7,000 MB/s sequential read */
          .write_Bps = CATALOG_NVME_BPS,       /* writes taken as fast as reads (catalog.h) */
          .latency_s = CATALOG_NVME_REQUEST_S, /* 88 us, a 4 KiB read at queue depth 1 */
          .connections = 1,
          .part_B = 0},
         "a node's PCIe Gen4 NVMe: 7 GB/s (Samsung PM1733 spec, reference/hardware.md), 88 us a "
         "request (PM963, CrystalDiskMark Q1T1)"},
        {"nvme-gen5",
         STORE_LOCAL,
         {.read_Bps = 13e9,                    /* PM1743: 13,000 MB/s sequential read */
          .write_Bps = 6.6e9,                  /* 6,600 MB/s sequential write */
          .latency_s = CATALOG_NVME_REQUEST_S, /* not published: Gen4's measured 88 us */
          .connections = 1,
          .part_B = 0},
         "a node's PCIe Gen5 NVMe: Samsung PM1743 announcement (Dec 2021), 13,000 MB/s read, "
         "6,600 MB/s write; request latency Gen4's (not published)"},
};

const struct store_preset *storage_preset(const char *name)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(presets[i].name, name) == 0) return &presets[i];
    return NULL;
}

const struct store_preset *storage_presets(size_t *n)
{
    *n = sizeof presets / sizeof presets[0];
    return presets;
}

const char *storage_preset_names(void)
{
    static char buf[256];
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof presets / sizeof presets[0] && off < sizeof buf; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s", i ? ", " : "",
                                presets[i].name);
    return buf;
}

const char *storage_kind_name(enum store_kind k)
{
    static const char *const names[] = {"object", "pfs", "local"};
    return names[k];
}
