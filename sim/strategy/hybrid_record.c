/* hybrid_record.c - the hybrid strategy's figures into its run record (see hybrid_record.h). */
#include "hybrid_record.h"

#include "hybrid_metrics.h"

#include <math.h>
#include <stdio.h>

/* The run's hybrid figures: a rank's mean per step, MFU and tokens/s. */
void hybrid_record(struct hy_ctx *c, struct run_record *rec, const struct model *full)
{
    const struct train_spec *ts = &c->sc->train;
    int n = ts->steps;
    double P = c->P, dp_in = 0;
    struct hybrid_record *h = hybrid_metrics_attach(rec);
    for (int s = 0; s < n; s++) {
        h->par_pipe_s += c->pipe[s] / n;
        h->par_compute_s += c->compute[s] / P / n;
        h->par_tp_s += c->tp[s] / P / n;
        h->par_dp_s += c->dp[s] / P / n;
        dp_in += c->dp_in[s] / P / n;
        h->par_update_s += c->update[s] / P / n;
    }
    /* the pipeline phase less its compute and collectives (ZeRO-2's and -3's inside it) */
    h->par_bubble_s = fmax(0, h->par_pipe_s - h->par_compute_s - h->par_tp_s - dp_in);
    h->par_bubble_frac = h->par_pipe_s > 0 ? h->par_bubble_s / h->par_pipe_s : 0;
    double samples = rec->global_batch * n;
    double flops = samples * (model_fwd_flops(full) + model_bwd_flops(full));
    double peak = c->j->pf->models[0]->peak_flops[ts->dtype];
    h->mfu = rec->total_s > 0 ? flops / rec->total_s / (P * peak) : 0;
    h->tokens_s = rec->total_s > 0 ? samples * c->sc->model.gpt.seq / rec->total_s : 0;
    for (int i = 0; i < 4; i++) {
        h->par_bytes[i] = traffic_bytes(c->traffic[i]);
        size_t nc = traffic_nclasses(c->traffic[i]);
        h->group_nclasses[i] = nc < RUN_CLASSES ? nc : RUN_CLASSES;
        for (size_t k = 0; k < h->group_nclasses[i]; k++)
            snprintf(h->group_class[i][k], sizeof h->group_class[i][k], "%s",
                     traffic_class(c->traffic[i], k, &h->group_class_B[i][k]));
    }
    /* the memory per GPU: the stage that needs the most, not the tensor share replicated */
    struct par_memory x =
            par_memory(c->p, c->sc->model.preset, &c->sc->model.gpt, ts->dtype, ts->opt, ts->batch);
    rec->mem = (struct memory_need){x.weights_B, x.grads_B, x.optimizer_B, x.act_B, x.total_B, 0,
                                    true};
}
