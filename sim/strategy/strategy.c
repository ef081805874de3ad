/* strategy.c - the strategy table (see strategy.h). */
#include "strategy.h"

#include "allreduce.h"
#include "allreduce_metrics.h"
#include "hybrid.h"
#include "hybrid_check.h"
#include "hybrid_desc.h"
#include "hybrid_metrics.h"
#include "ps.h"
#include "ps_metrics.h"

#include <stddef.h>

static const struct strategy strategies[] = {
        /* id, name, check, describe, services, begin, run, metrics */
        {STRAT_ALLREDUCE, "allreduce", allreduce_check, allreduce_describe,
         RUNKIT_TRACE | RUNKIT_TRAFFIC | RUNKIT_NUMERICS | RUNKIT_INJECT | RUNKIT_INPUT |
                 RUNKIT_CKPT,
         allreduce_begin, allreduce_run, &allreduce_metrics},
        {STRAT_PS, "ps", ps_check, ps_describe,
         RUNKIT_TRACE | RUNKIT_TRAFFIC | RUNKIT_NUMERICS | RUNKIT_INJECT | RUNKIT_INPUT |
                 RUNKIT_CKPT,
         ps_begin, ps_run, &ps_metrics},
        /* its input pipeline feeds the replicas' first stages only: its own (hybrid_input.h,
           runkit_input), not RUNKIT_INPUT's */
        {STRAT_HYBRID, "hybrid", hybrid_check, hybrid_describe,
         RUNKIT_TRACE | RUNKIT_TRAFFIC | RUNKIT_NUMERICS | RUNKIT_INJECT | RUNKIT_CKPT,
         hybrid_begin, hybrid_run, &hybrid_metrics},
};

const struct strategy *strategy_get(enum strategy_id id)
{
    for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++)
        if (strategies[i].id == id) return &strategies[i];
    return NULL;
}

void strategy_run(const struct strategy *st, const struct job *j, struct run_record *rec)
{
    struct runkit kit;
    st->begin(j, rec);
    runkit_open(&kit, j, rec, st->uses);
    st->run(&kit);
    runkit_release(&kit);
}
