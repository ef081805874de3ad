/* faultkind.h - the tables of fault kinds: one row per <faults> child and per plan event kind.
 *
 * FAULT_SPEC_KINDS has a row per child of <faults>: its kind (enum fault_spec_kind), its XML
 * element, what it may target, and the stem NAME of the functions that carry it: read_NAME in
 * scen_fault.c (its attributes and rules) and plan_NAME in fault.c (its events in the plan).
 * FAULT_EVENT_KINDS has a row per event of a plan: its kind (enum fault_kind), its name in the
 * printed plan and the events log, whether the plan prints its factor, and the stem NAME of
 * play_NAME in inject.c (what the injector does when a timed event comes). Each module expands a
 * table with the columns it owns (the X-macro of libuv's error table), so no switch or second list
 * names the kinds: adding a fault kind is a row here, its reader and plan builder, and its element
 * in scenarios/scenario.dtd (and, for a new kind of event, an event row and its play function).
 * This header is plain data: it names the functions but includes none of their modules.
 * Two kinds still act outside the plan: corrupt-shard and cache-crash are kept in the <data> spec
 * (data_spec.corrupt_shards, .cache_crashes) and played by the input pipeline (loader.c), so their
 * plan builders only check targets and add no event.
 */
#ifndef DMLSIM_FAULTKIND_H
#define DMLSIM_FAULTKIND_H

/* X(KIND, "element", "targets", NAME) */
#define FAULT_SPEC_KINDS(X)                                                                        \
    X(FS_CRASH, "crash", "a host, or a node's hosts", crash)                                       \
    X(FS_STRAGGLER, "straggler", "a GPU host or a node's, or every worker (jitter)", straggler)    \
    X(FS_LINK_DOWN, "link-down", "a link, or a node's NIC links", link_down)                       \
    X(FS_DEGRADE, "degrade", "a link, or a node's NIC links", degrade)                             \
    X(FS_PARTITION, "partition", "groups of nodes (the links between them)", partition)            \
    X(FS_CORRUPT, "corrupt-batch", "a worker's GPU host, or every worker", corrupt)                \
    X(FS_MTBF, "mtbf", "every GPU host", mtbf)                                                     \
    X(FS_CORRUPT_SHARD, "corrupt-shard", "a shard of the <data> pipeline", corrupt_shard)          \
    X(FS_CACHE_CRASH, "cache-crash", "a node's cache tier of the <data> pipeline", cache_crash)

/* X(KIND, "name", prints_factor, NAME) */
#define FAULT_EVENT_KINDS(X)                                                                       \
    X(FAULT_CRASH, "crash", 0, crash)             /* host goes down */                             \
    X(FAULT_RESTART, "restart", 0, restart)       /* host comes back */                            \
    X(FAULT_SLOW, "slow", 1, slow)                /* host slowed by `factor` */                    \
    X(FAULT_SLOW_END, "slow-end", 0, slow)        /* host back to full speed */                    \
    X(FAULT_LINK_DOWN, "link-down", 0, link)      /* link cut */                                   \
    X(FAULT_LINK_UP, "link-up", 0, link)          /* link restored */                              \
    X(FAULT_DEGRADE, "degrade", 1, link)          /* link bandwidth x factor */                    \
    X(FAULT_DEGRADE_END, "degrade-end", 0, link)  /* link bandwidth restored */                    \
    X(FAULT_CORRUPT, "corrupt-batch", 0, nothing) /* a worker's batch at a step is corrupt */      \
    X(FAULT_SHARD_CORRUPT, "corrupt-shard", 0, nothing) /* a shard fails to decode, all along */   \
    X(FAULT_CACHE_CRASH, "cache-crash", 0, cache)       /* a node's cache tier lost */             \
    X(FAULT_CACHE_RESTART, "cache-restart", 0, cache)   /* ... serves again, empty */

#endif
