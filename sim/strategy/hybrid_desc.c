/* hybrid_desc.c - the hybrid strategy's configuration lines (see hybrid_desc.h). */
#include "hybrid_desc.h"

#include "level.h"
#include "par_stages.h"
#include "parallel.h"

void hybrid_describe(const struct job *j, FILE *out)
{
    const struct train_spec *ts = &j->sc->train;
    char lv[160];
    const struct parallel_spec *p = &ts->par;
    struct par_memory x =
            par_memory(p, j->sc->model.preset, &j->sc->model.gpt, ts->dtype, ts->opt, ts->batch);
    char ep[40] = "", sched[48], st[160] = "", list[140], cp[40] = "";
    if (p->ep > 1) snprintf(ep, sizeof ep, ", experts over ep %d", p->ep);
    if (par_cp(p) > 1) /* context parallelism and its exchange */
        snprintf(cp, sizeof cp, " x cp %d (%s)", p->cp, p->cp_allgather ? "all-gather" : "p2p");
    if (par_uneven(p)) { /* par_stages.h */
        par_stages_describe(p, j->sc->model.gpt.layers, list, sizeof list);
        snprintf(st, sizeof st, ", blocks a stage %s", list);
    }
    snprintf(sched, sizeof sched, "%s", scenario_pp_schedule_name(p->schedule));
    if (p->vstages > 1)
        snprintf(sched, sizeof sched, "interleaved (%d chunks a stage)", p->vstages);
    char sp[96]; /* sequence parallelism, its overlap; or the pipeline's scatter/gather */
    snprintf(sp, sizeof sp, "%s%s", p->sp ? ", sequence parallel" : "",
             p->tp_overlap                                     ? " (tp comm overlapped)"
             : p->tp > 1 && p->pp > 1 && !p->no_scatter_gather ? ", pipeline scatter/gather"
                                                               : "");
    fprintf(out,
            "# training      hybrid: tp %d x pp %d x dp %d%s = %d GPUs (order %s%s%s), %d "
            "microbatch(es) of %d x %d tokens, %s, ZeRO-%d%s, recompute %s, %s (%s), %s, %s, "
            "%d step(s)\n",
            p->tp, p->pp, p->dp, cp, p->tp * p->pp * p->dp * par_cp(p),
            p->dp_outer ? "tp-pp-dp" : "tp-dp-pp", ep, st, p->microbatches, ts->batch,
            j->sc->model.gpt.seq, sched, p->zero, sp, scenario_recompute_name(p->recompute),
            coll_algo_name(ts->algo), level_describe(ts, lv, sizeof lv),
            catalog_dtype_name(ts->dtype), model_optimizer_name(ts->opt), ts->steps);
    fprintf(out,
            "# memory/gpu    %.2f GB on stage %d = weights %.2f + gradients %.2f + optimizer %.2f "
            "+ activations %.2f (%.2f microbatches in flight)\n",
            x.total_B / 1e9, x.stage, x.weights_B / 1e9, x.grads_B / 1e9, x.optimizer_B / 1e9,
            x.act_B / 1e9, par_in_flight(p, x.stage));
}
