/* ps_account.c - the parameter server's accounting (see ps_account.h). */
#include "ps_account.h"

#include "inject.h"

void ps_account_lose_slices(struct ps_ctx *c, double n, double samples, double rows)
{
    ps_metrics_of(c->res)->rows_lost += rows;
    c->res->lost_gradients += n;
    c->res->replayed_samples += samples;
}

void ps_account_drop_slice(struct ps_ctx *c, double *counter, double samples, double rows)
{
    ps_metrics_of(c->res)->rows_dropped += rows;
    *counter += 1;
    c->res->dropped_samples += samples;
}

void ps_account_noticed(struct ps_ctx *c)
{
    inject_detected(&c->kit->inj);
    c->res->failures_detected += 1;
}

void ps_account_unfinished(struct ps_worker *w)
{
    struct ps_ctx *c = w->c;
    if (!w->in_step) return;
    if (w->handed > 0) { /* what its shards did not receive (the ports count receipts) */
        double per = w->carry / c->K;
        ps_account_lose_slices(c, w->handed - w->delivered, (w->handed - w->delivered) * per,
                               w->rows_handed - w->rows_delivered);
        w->rows_handed = w->rows_delivered = 0;
        c->res->replayed_samples += (c->K - w->handed) * per;
    } else {
        c->res->replayed_samples += w->carry; /* its batch (unless corrupt), its followers' */
    }
    w->in_step = false;
    w->gathering = false;
}
