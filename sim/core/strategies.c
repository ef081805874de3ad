/* strategies.c - the strategies' names (see strategies.h). */
#include "strategies.h"

const char *strategy_name(enum strategy_id id)
{
    static const char *const names[] = {"",
#define STRAT_X_NAME(id, name) name,
                                        STRATEGY_NAMES(STRAT_X_NAME)
#undef STRAT_X_NAME
    };
    return id >= 0 && id < STRAT_COUNT ? names[id] : "?";
}
