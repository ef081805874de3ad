/* nccl_log_run.h - what one nccl-tests run (one invocation) of a log was: its operation, GPU
 * count and node count, decided when it ends from every source that speaks of them; and the
 * state of the reader (nccl_log.c) that gathers those sources line by line.
 *
 * The reader fills struct log_run as it reads a run's lines (rank lines, "# nThread", rows) and
 * the names, annotations and options in struct log_reader; nccl_log_run_close decides, gives the
 * run's rows what was decided, and tells it in c->run. Sources that disagree are an error naming
 * both (LOG_FAIL keeps the first).
 */
#ifndef DMLSIM_NCCL_LOG_RUN_H
#define DMLSIM_NCCL_LOG_RUN_H

#include "calib_types.h"
#include "error.h"

#include <stdbool.h>
#include <stddef.h>

#define LOG_MAX_RANKS 65536 /* rank ids told apart in one run */
#define LOG_MAX_HOSTS 4096  /* host names told apart in one run */
#define LOG_HOST_LEN  64    /* host names are cut to this (longer ones may then merge) */
#define LOG_WHAT      200   /* one source's description */
#define LOG_UNMODELLED COLL_NOPS /* a test dmlsim has no collective for (sendrecv, reduce, ...) */

/* A test's name and where it was given: "all_gather_perf" on a command line, ... */
struct log_name {
    int op;               /* enum coll_op, LOG_UNMODELLED, or -1: none given */
    int line;             /* where (0: the command line of dmlsim) */
    char what[LOG_WHAT];  /* "the command line at line 3 (all_gather_perf)" */
};

struct log_run {
    size_t first;                /* index in c->coll of the run's first row */
    int first_line;              /* line of that row, for messages */
    int nthread, ngpus;          /* from "# nThread T nGpus G"; 0 unseen */
    int nthread_line;            /* its line */
    int nranks;                  /* distinct rank ids among its "# Rank" lines */
    int max_id;                  /* the largest of them */
    int rank_line[2];            /* first and last "# Rank" line */
    int elided_line;             /* a "..." line after rank lines, before the rows; 0 none */
    unsigned char *rank_seen;    /* LOG_MAX_RANKS bits: rank ids seen */
    char (*hosts)[LOG_HOST_LEN]; /* distinct host names of those lines */
    int nhosts;                  /* entries in hosts */
    bool redacted;               /* a rank line without its host name */
    /* the rows, as their own columns describe them */
    int nrows;
    int red, none, noredop;      /* rows with a reduction, with redop "none", without redop */
    int rooted, unrooted, noroot; /* rows with root >= 0, root -1, without a root column */
    long k;                      /* size / (count x type size), the same in every row; 0 none */
    bool k_unknown;              /* a row whose k is unknown or differs */
    char k_text[96];             /* the first row's: "count = size / (16 x 4 B)" */
    char redop[16], root[16];    /* the first row's redop and root ("" none) */
    int inplace_checked, inplace_na; /* rows whose out-of-place #wrong is a number and whose
                                        in-place one is a number, or N/A */
    double rlo, rhi;             /* busbw/algbw, within the printed digits of every row */
    int rlo_line, rhi_line;      /* the rows that set them */
    char rlo_text[64], rhi_text[64]; /* "115.64 / 59.68" */
};

struct log_reader {
    const char *path;          /* for messages */
    struct calib *c;           /* being filled */
    const struct calib_opts *opt; /* the user's statements (--nranks, --nodes, --op) */
    struct dmlsim_error *err;  /* the first error */
    enum dmlsim_err rc;        /* its code (DMLSIM_OK: none yet) */
    int lineno;                /* current line, from 1 */
    int prev_line;             /* the last line before it that was not blank */
    struct log_name name;      /* the test named for the next run (command line, "Collective
                                  test starting"); consumed by the run it names */
    int ncols;                 /* fields of the last header line; 0: none, guess from each row */
    int time_col, inplace_col; /* where that header puts the two "time" columns (-1: none) */
    int redop_col, root_col;   /* where it puts redop and root (-1: not there) */
    int annot_ranks, annot_nodes;   /* "# dmlsim-nranks N", "# dmlsim-nodes N"; 0 none */
    int annot_ranks_line, annot_nodes_line;
    struct log_name annot_op;  /* "# dmlsim-op NAME" */
    char annot_gpu[640];       /* "# dmlsim-gpu NAME..."; "" none */
    int net_rank;              /* how direct the evidence behind c->net is: 0 none .. 3 */
    int rccl_line;             /* first line showing an rccl-tests log (AMD's RCCL); 0 none */
    char rccl_what[96];        /* what it showed */
    struct log_run run;        /* the invocation being read */
};

/* Records the reader's first error (later ones would only follow from it). */
#define LOG_FAIL(r, ...) \
    do { \
        if ((r)->rc == DMLSIM_OK) (r)->rc = dmlsim_fail((r)->err, DMLSIM_EVALUE, __VA_ARGS__); \
    } while (0)

/* A test binary's name ("all_gather_perf", "alltoall_perf_mpi", "allgather"): its collective
 * (enum coll_op), or LOG_UNMODELLED for the tests dmlsim has none for. */
int nccl_log_run_op_of_name(const char *s);

/* Ends the run being read (r->run): decides what it was, gives its rows their operation, GPU
 * and node counts (rows of a test dmlsim does not model are dropped and counted as skipped),
 * records the account in c->run, and starts the next run empty. A disagreement is recorded in
 * r->rc (the first one only). */
void nccl_log_run_close(struct log_reader *r);

#endif
