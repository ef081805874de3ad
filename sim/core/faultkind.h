/* faultkind.h - the tables of fault kinds: one row per <faults> child and per plan event kind.
 *
 * FAULT_SPEC_KINDS has a row per child of <faults>: its kind (enum fault_spec_kind), its XML
 * element, what it may target, the stems of its reader (read_READ in scen_fault.c: its
 * attributes and rules) and of its plan builder (plan_PLAN in fault.c: its events), and the plan
 * events it makes (START, and END or FAULT_NO_EVENT). FAULT_EVENT_KINDS has a row per event of
 * a plan: its kind (enum fault_kind), its name in the printed plan and the events log, whether
 * the plan prints its factor, and the stem of play_PLAY in inject.c (what the injector does when
 * the event's time comes). Each module expands a table with the columns it owns (the X-macro of
 * libuv's error table), so no switch or second list names the kinds.
 *
 * Every kind goes the one route: reader -> fault_spec -> plan builder -> events of the plan
 * (fault_plan_print shows them all) -> the injector, which plays the timed ones at their time;
 * an effect that is another module's goes through a hook (struct inject_hooks: the strategy's;
 * struct inject_input: the input pipeline's cache crashes and restarts), and an event that is a
 * condition rather than a moment is asked of the plan where it applies (a corrupt batch at its
 * step: inject_corrupt; a corrupt shard, standing from time 0: fault_sample_corrupt).
 *
 * Adding a fault kind that is "from at, for a while, on a host, a link or a node's NIC links"
 * (READ and PLAN `window`, generic: at="TIME", optional for="TIME", one of host/link/node) is:
 * its row here and its two event rows, its play function in inject.c, and its element in
 * scenarios/scenario.dtd: two files and the DTD. A kind with attributes or targets of its own
 * adds its reader (scen_fault.c) and/or plan builder (fault.c).
 * This header is plain data: it names the functions but includes none of their modules.
 */
#ifndef DMLSIM_FAULTKIND_H
#define DMLSIM_FAULTKIND_H

/* X(KIND, "element", "targets", READ, PLAN, START, END): START and END are its plan events (END
 * FAULT_NO_EVENT: none); READ and PLAN `window` are the generic ones. */
#define FAULT_SPEC_KINDS(X)                                                                        \
    X(FS_CRASH, "crash", "a host, or a node's hosts", crash, crash, FAULT_CRASH, FAULT_RESTART)    \
    X(FS_STRAGGLER, "straggler", "a GPU host or a node's, or every worker (jitter)", straggler,    \
      straggler, FAULT_SLOW, FAULT_SLOW_END)                                                       \
    X(FS_LINK_DOWN, "link-down", "a link, or a node's NIC links", link_down, window,               \
      FAULT_LINK_DOWN, FAULT_LINK_UP)                                                              \
    X(FS_DEGRADE, "degrade", "a link, or a node's NIC links", degrade, window, FAULT_DEGRADE,      \
      FAULT_DEGRADE_END)                                                                           \
    X(FS_PARTITION, "partition", "groups of nodes (the links between them)", partition,            \
      partition, FAULT_LINK_DOWN, FAULT_LINK_UP)                                                   \
    X(FS_CORRUPT, "corrupt-batch", "a worker's GPU host, or every worker", corrupt, corrupt,       \
      FAULT_CORRUPT, FAULT_NO_EVENT)                                                               \
    X(FS_MTBF, "mtbf", "every GPU host", mtbf, mtbf, FAULT_CRASH, FAULT_RESTART)                   \
    X(FS_CORRUPT_SHARD, "corrupt-shard", "a shard of the <data> pipeline", corrupt_shard,          \
      corrupt_shard, FAULT_SHARD_CORRUPT, FAULT_NO_EVENT)                                          \
    X(FS_CACHE_CRASH, "cache-crash", "a node's cache tier of the <data> pipeline", cache_crash,    \
      cache_crash, FAULT_CACHE_CRASH, FAULT_CACHE_RESTART)

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
