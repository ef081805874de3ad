/* strategy.c - the strategy table (see strategy.h). */
#include "strategy.h"

#include "allreduce.h"
#include "allreduce_metrics.h"
#include "hybrid.h"
#include "hybrid_metrics.h"
#include "ps.h"
#include "ps_metrics.h"

#include <stddef.h>

static const struct strategy strategies[] = {
        /* id, name, check, describe, run, metrics */
        {STRAT_ALLREDUCE, "allreduce", allreduce_check, allreduce_describe, allreduce_run,
         &allreduce_metrics},
        {STRAT_PS, "ps", ps_check, ps_describe, ps_run, &ps_metrics},
        {STRAT_HYBRID, "hybrid", hybrid_check, hybrid_describe, hybrid_run, &hybrid_metrics},
};

const struct strategy *strategy_get(enum strategy_id id)
{
    for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++)
        if (strategies[i].id == id) return &strategies[i];
    return NULL;
}
