/* collective.h - collectives as real message protocols between rank actors.
 *
 * Algorithms are a table of function pointers, as nccl-tests' struct testColl: adding one is one
 * file (sim/coll_<name>.c) and one row in collective.c. A row is the whole contract: its name,
 * the operations it implements, whether it has a flow level and can carry data, its check of the
 * world it is given (called by every user at start-up and again after every membership change),
 * the run function, and an optional description of what it would do for a size (NCCL's choice of
 * algorithm, protocol and channels). Every list of names is generated from the table.
 * Levels:
 *   COLL_MESSAGE: every step of every algorithm is a message (chunk level);
 *   COLL_FLOW:    for the rings, one flow per rank (per channel) per phase carrying the whole
 *                 phase's bytes, plus the latencies of the steps it stands for, which serves very
 *                 large P. Only algorithms whose row says so have it.
 * Sizes follow nccl-tests: all-reduce and broadcast of S bytes leave S bytes on every rank;
 * all-gather and reduce-scatter of S bytes move S / P from or to each rank.
 * Data: a run may carry a real float buffer per rank (NULL = timing only): all-reduce sums the
 * ranks' buffers of S / 4 floats into every rank's, whatever the algorithm. Reduce-scatter and
 * all-gather place blocks as the algorithm's rings own them: the ring's position idx holds block
 * (idx + 1) mod n (coll_ring_block); the nccl family cuts the buffer into one slice per channel
 * and each slice into blocks by the rank's position in that channel's ring. Messages then carry
 * copies of the blocks; the simulated sizes are unchanged.
 * The world and the messages between ranks, which the algorithm files build on, are coll.h.
 */
#ifndef DMLSIM_COLLECTIVE_H
#define DMLSIM_COLLECTIVE_H

#include "coll.h"
#include "coll_op.h"

#include <simgrid/forward.h>

#include <stdbool.h>
#include <stddef.h>

struct coll_algo {
    enum coll_algo_id id; /* its row in COLL_ALGO_TABLE (coll_op.h) */
    const char *name; /* as written in scenarios: "nccl", "ring", ... */
    unsigned ops;     /* COLL_OP_BIT of every operation it implements */
    bool flow;        /* has a flow level */
    bool data;        /* can carry data buffers */
    /* NULL if it can run on `w`, else why not; NULL pointer: any world. */
    const char *(*check)(const struct coll_world *w);
    /* Runs `op` of size_B bytes on this rank; data: this rank's coll_data_count(w, S) floats
     * (S / 4), or NULL. */
    enum net_status (*run)(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                           float *data);
    /* Optional: what it does for `op` of size_B on `w` ("ring/Simple/16ch"), into buf. */
    void (*describe)(const struct coll_world *w, enum coll_op op, double size_B, char *buf,
                     size_t len);
};

/* Fills a world of `nranks` ranks on hosts[0..nranks) (copied), nodes from each host's "node"
 * property (a host without one is a node of its own), with deadline timeout_s, message level,
 * one chunk and automatic NCCL choices; release with collective_world_release. */
void collective_world_init(struct coll_world *w, int nranks, const sg_host_t *hosts,
                           double timeout_s);
void collective_world_release(struct coll_world *w);

/* NULL if `algo` can run `op` (with data if `data`) on `w`, else why not: the one check every
 * caller makes, at start-up and after every membership change. */
const char *collective_check(const struct coll_world *w, const struct coll_algo *algo,
                             enum coll_op op, bool data);

/* The row of algorithm `id` / the algorithm called `name` (NULL if none). */
const struct coll_algo *collective_get(enum coll_algo_id id);
const struct coll_algo *collective_find(const char *name);

/* Runs `op` on this rank with `algo` (which must implement it: collective_check). */
enum net_status collective_run(const struct coll_world *w, const struct coll_algo *algo,
                               enum coll_op op, int rank, double size_B, float *data);

/* What `algo` does for a size ("" when its row has no describe), into buf; returns buf. */
const char *collective_describe(const struct coll_world *w, const struct coll_algo *algo,
                                enum coll_op op, double size_B, char *buf, size_t len);

/* The algorithms (one file each; the nccl family: coll_nccl.h). */
enum net_status coll_naive_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                               float *data);
enum net_status coll_ring_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                              float *data);
enum net_status coll_hd_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                            float *data);
enum net_status coll_tree_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                              float *data);
enum net_status coll_hier_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                              float *data);
const char *coll_hier_check(const struct coll_world *w);

#endif
