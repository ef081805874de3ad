/* calib_types.h - a calibration profile as plain data: struct calib and its records, shared by
 * its two readers, calib.c (calibration files) and nccl_log.c (nccl-tests logs).
 *
 * The records' file format, and what the simulator makes of them, are told in calib.h, the API
 * that callers include (it includes this).
 */
#ifndef DMLSIM_CALIB_TYPES_H
#define DMLSIM_CALIB_TYPES_H

#include "catalog.h"
#include "coll_op.h"
#include "netcal.h"

#include <stddef.h>

#define CALIB_DEFAULT_GEMM_EFF 0.78 /* H100 GEMMs, Meta pytorch/ao roofline_utils.py */
#define CALIB_DEFAULT_MEM_EFF  0.92 /* H100 memory-bound kernels, same source */

struct calib_gemm {
    enum gpu_dtype dtype; /* precision */
    double m, n, k;       /* shape */
    double flops_s;       /* achieved FLOP/s */
    int line;             /* its line in the file */
};

struct calib_rate {
    int line;      /* its line in the file */
    char kind[64]; /* copy kind or kernel name */
    double bytes;  /* transfer size */
    double Bps;    /* achieved bytes/s */
};

struct calib_coll {
    enum coll_op op;       /* which collective */
    int nranks;            /* GPUs */
    double bytes;          /* size (nccl-tests convention) */
    double time_s;         /* measured time */
    double algbw;          /* GB/s as printed */
    double busbw;          /* GB/s as printed */
    int nodes;             /* nodes the ranks spanned (1: one node; 0: unknown, taken as 1) */
    double time_inplace_s; /* in-place time when the log has one, else 0 */
    int gpus_per_thread;   /* GPUs one thread of the test drove ("# nThread T nGpus G": G); 0
                              unknown (a calibration file's rows) */
};

/* What the reader made of one nccl-tests run (one invocation) of a log, and from what: every
 * inference is told, none silent. */
struct calib_run {
    size_t first, n;  /* its rows in c->coll (n 0: a test dmlsim does not model, rows dropped) */
    int line;         /* the line of its first row */
    enum coll_op op;  /* its collective (COLL_NOPS: not modelled) */
    int nranks;       /* GPUs */
    int nodes;        /* nodes (0: nothing in the log or the options told; rows say 1) */
    char read[1200];  /* "allgather from the command line at line 3 (all_gather_perf); 16 ranks
                         from the rank lines (lines 5-20); busbw/algbw agrees; 2 nodes from ..." */
};

/* What the user states about a log's runs (validate --nranks, --nodes, --op): a source like the
 * log's own, checked against them. 0 (op -1): not stated. */
struct calib_opts {
    int nranks, nodes;
    int op; /* enum coll_op, COLL_NOPS for a test dmlsim does not model, or -1 */
};

struct calib {
    char path[512];     /* the file it came from ("" for the default) */
    char source[1024];  /* "spec-derived default ..." or the file and its origin */
    char gpu_name[640]; /* e.g. "NVIDIA H200" ("" if unknown) */
    int gpu_count;      /* GPUs on the measured machine (all nodes) */
    int nodes;          /* hosts the measurement ran on (nccl-tests "# Rank" lines); 0 unknown */
    int skipped;        /* log lines neither understood nor comments, skipped */
    char net[32];       /* NCCL's network transport named in the log ("IB", "Socket"), or "" */
    char driver[64], cuda[64], nccl[64], date[64]; /* versions and date ("" if unknown) */
    double gemm_eff;                               /* default fraction of peak FLOP/s */
    double mem_eff;                                /* default fraction of memory bandwidth */
    struct calib_gemm *gemm;                       /* measured GEMMs */
    size_t ngemm;
    struct calib_rate *copy; /* measured copies */
    size_t ncopy;
    struct calib_rate *kernel; /* measured kernels */
    size_t nkernel;
    struct calib_coll *coll; /* measured collectives */
    size_t ncoll;
    char nocoll[640];      /* why no collectives were measured, or "" */
    struct calib_run *run; /* nccl-tests logs: what each run was read as, in file order */
    size_t nrun;
    struct netcal *netcal; /* network calibration fitted from the coll records (netcal.h, by the
                           CLI), or NULL; owned by whoever set it */
};

#endif
