/* strategies.h - the training strategies' names, as plain data (the strategy table, strategy.h,
 * says what each does). */
#ifndef DMLSIM_STRATEGIES_H
#define DMLSIM_STRATEGIES_H

/* The strategies as scenarios name them (<training strategy>), in the order of enum strategy_id;
 * what each does is its row in the strategy table (strategy.h). X(ID, name) */
#define STRATEGY_NAMES(X) \
    X(ALLREDUCE, "allreduce") /* synchronous data parallelism with all-reduce */ \
    X(PS, "ps")               /* parameter server */ \
    X(HYBRID, "hybrid")       /* tensor, pipeline and data parallelism composed (<parallel>) */

enum strategy_id {
    STRAT_NONE, /* no <training> */
#define STRAT_X_ID(id, name) STRAT_##id,
    STRATEGY_NAMES(STRAT_X_ID)
#undef STRAT_X_ID
            STRAT_COUNT
};

/* The name of a strategy ("allreduce"), "" for STRAT_NONE. */
const char *strategy_name(enum strategy_id id);

#endif
