/* coll_op.h - the collectives as plain data: operations, levels, and the one table of algorithms.
 *
 * COLL_ALGO_TABLE is the single list of algorithms. Each row names the algorithm as scenarios
 * write it, the operations it implements, whether it has a flow level and can carry data, and
 * the engine functions that check, run and describe it (collective.h). The plain-data layer
 * expands only the first columns (names and capabilities, for checking a scenario at load); the
 * engine expands the function columns (collective.c). Adding an algorithm is one file
 * (engine/coll_NAME.c) and one row here.
 */
#ifndef DMLSIM_COLL_OP_H
#define DMLSIM_COLL_OP_H

#include <stdbool.h>

enum coll_level {
    COLL_MESSAGE, /* one message per algorithm step and chunk */
    COLL_FLOW,    /* one flow per rank and ring edge per phase */
    COLL_AUTO,    /* level="auto": resolved to one of the two before a run (level.h) */
};

enum coll_op {
    COLL_ALLREDUCE,
    COLL_ALLGATHER,
    COLL_REDUCESCATTER,
    COLL_BROADCAST,
    COLL_ALLTOALL, /* every rank S / P to every other: the pairwise sends of NCCL's all-to-all */
    COLL_NOPS,
};
#define COLL_OP_BIT(op) (1u << (op))
#define COLL_ALL_OPS    (COLL_OP_BIT(COLL_NOPS) - 1)
#define COLL_AR_ONLY    COLL_OP_BIT(COLL_ALLREDUCE)

/* X(ID, name, ops, flow, data, check, run, describe); check and describe may be NULL. */
#define COLL_ALGO_TABLE(X) \
    X(NCCL, "nccl", COLL_ALL_OPS, true, true, coll_nccl_check, coll_nccl_run, coll_nccl_describe) \
    X(RING, "ring", COLL_ALL_OPS, true, true, NULL, coll_ring_run, NULL) \
    X(NAIVE, "naive", COLL_AR_ONLY, false, false, NULL, coll_naive_run, NULL) \
    X(HD, "halving-doubling", COLL_AR_ONLY, false, false, NULL, coll_hd_run, NULL) \
    X(TREE, "tree", COLL_AR_ONLY, false, false, NULL, coll_tree_run, NULL) \
    X(HIER, "hierarchical", COLL_AR_ONLY, false, true, coll_hier_check, coll_hier_run, NULL)

enum coll_algo_id {
#define COLL_X_ID(id, name, ops, flow, data, check, run, describe) COLL_ALGO_##id,
    COLL_ALGO_TABLE(COLL_X_ID)
#undef COLL_X_ID
            COLL_NALGOS
};

/* The default algorithm of benchmarks and training (the first row: nccl). */
#define COLL_ALGO_DEFAULT COLL_ALGO_NCCL

const char *coll_algo_name(enum coll_algo_id a);
unsigned coll_algo_ops(enum coll_algo_id a);
bool coll_algo_has_flow(enum coll_algo_id a);
bool coll_algo_has_data(enum coll_algo_id a);

/* The algorithm called `name`; false if there is none. */
bool coll_algo_find(const char *name, enum coll_algo_id *out);

/* The names of the algorithms: all of them, or those that implement `op` (COLL_NOPS: any) and
 * have a flow level if `flow`: "nccl, ring, ...". Static storage. */
const char *coll_algo_names(void);
const char *coll_algo_names_for(enum coll_op op, bool flow);

/* "allreduce", "allgather", "reducescatter", "broadcast", "alltoall". */
const char *collective_op_name(enum coll_op op);

/* The collective called `s`: a name as collective_op_name writes it, or one that starts with
 * nccl-tests' name of it ("all_reduce", "all_reduce_perf", ...); false if none. */
bool coll_op_of_name(const char *s, enum coll_op *op);

/* nccl-tests' bus bandwidth factor (doc/PERFORMANCE.md): all-reduce 2(n-1)/n; all-gather,
 * reduce-scatter and all-to-all (n-1)/n; broadcast 1. */
double collective_busbw_factor(enum coll_op op, int nranks);

#endif
