/* level.c - level="auto": message level for small steps, flow level above (see level.h). */
#include "level.h"

#include <math.h>
#include <stdio.h>

#define NCCL_MAX_CHANNELS 32 /* NCCL's MAXCHANNELS (src/include/device.h) */

/* Messages of `calls` all-reduces over groups of n ranks, P ranks in all: every rank sends
 * 2 (n - 1) messages per channel and call. */
static double calls_messages(double calls, int n, int P, int channels)
{
    return n < 2 ? 0 : calls * P * 2.0 * (n - 1) * channels;
}

double level_step_messages(const struct scenario *sc, const struct model *m, int P)
{
    const struct train_spec *ts = &sc->train;
    int ch = ts->algo == COLL_ALGO_NCCL ? NCCL_MAX_CHANNELS : 1;
    double grad_B = model_params(m) * model_dtype_bytes(ts->dtype);
    if (ts->strategy == STRAT_ALLREDUCE)
        return calls_messages(ceil(grad_B / ts->bucket_B), P, P, ch);
    if (ts->strategy != STRAT_HYBRID) return 0;
    const struct parallel_spec *p = &ts->par;
    double blocks = sc->model.gpt.layers > 0 ? sc->model.gpt.layers : 1;
    double tp_calls = 4.0 * ceil(blocks / p->pp) * p->microbatches;
    double dp_calls = ceil(grad_B / (p->tp * p->pp) / ts->bucket_B);
    return calls_messages(tp_calls, p->tp, P, ch) + calls_messages(dp_calls, p->dp, P, ch);
}

void level_resolve(struct scenario *sc, const struct model *m, int P, char *why, size_t len)
{
    struct train_spec *ts = &sc->train;
    if (ts->level != COLL_AUTO) {
        snprintf(why, len, "%s", "");
        return;
    }
    double msgs = level_step_messages(sc, m, P);
    bool flow = msgs > LEVEL_AUTO_MESSAGES && coll_algo_has_flow(ts->algo);
    ts->level = flow ? COLL_FLOW : COLL_MESSAGE;
    snprintf(why, len, "auto: at most %.3g messages a step at message level, %s 2^22", msgs,
             flow ? ">" : "<=");
}

const char *level_describe(const struct train_spec *ts, char *buf, size_t len)
{
    snprintf(buf, len, "%s level%s%s", ts->level == COLL_FLOW ? "flow" : "message",
             ts->level_why[0] ? "; " : "", ts->level_why);
    return buf;
}
