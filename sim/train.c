/* train.c - the data-parallel worker loop (see train.h). */
#include "train.h"

#include "collective.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct train_ctx;

struct worker {
    struct train_ctx *t; /* shared state */
    int rank;            /* data-parallel rank */
    double flop_scale;   /* exec amount per model FLOP on this host */
    double update_amt;   /* exec amount of the optimizer update */
    sg_sem_t ready;      /* released once per bucket handed to the comm actor */
    sg_sem_t done;       /* released once per bucket reduced */
    double *end_s;       /* per step: when this worker's update ended */
    double *compute_s;   /* per step: this worker's compute time */
};

struct train_ctx {
    const struct scenario *sc;
    const struct model *m;
    struct coll_world world;     /* the P workers */
    double *bucket_B;            /* bytes of each bucket */
    int *bucket_close;           /* layer whose backward closes each bucket */
    size_t nbuckets;             /* buckets per step */
    struct worker *workers;      /* P workers */
    double failures;             /* collectives that failed */
};

double train_flop_scale(sg_host_t host, const struct gpu_model *gpu, const struct calib *cal,
                        enum gpu_dtype dtype)
{
    return sg_host_get_speed(host) / calib_compute_rate(cal, gpu, dtype);
}

/* Runs `amount` on the current host (skipping empty work) and returns the time it took. */
double train_timed_exec(double amount)
{
    double t0 = simgrid_get_clock();
    if (amount > 0)
        sg_actor_execute(amount);
    return simgrid_get_clock() - t0;
}

static void compute_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct worker *w = sg_actor_self_get_data();
    struct train_ctx *t = w->t;
    const struct model *m = t->m;
    const struct train_spec *ts = &t->sc->train;
    double scale = w->flop_scale * ts->batch;
    for (int s = 0; s < ts->steps; s++) {
        double busy = 0;
        for (size_t l = 0; l < m->nlayers; l++)
            busy += train_timed_exec(m->layers[l].fwd_flops * scale);
        size_t b = 0;
        for (size_t l = m->nlayers; l-- > 0;) {
            busy += train_timed_exec(m->layers[l].bwd_flops * scale);
            for (; b < t->nbuckets && t->bucket_close[b] == (int)l; b++)
                if (ts->overlap)
                    sg_sem_release(w->ready);
        }
        for (size_t k = 0; k < t->nbuckets; k++) {
            if (!ts->overlap)
                sg_sem_release(w->ready);
        }
        for (size_t k = 0; k < t->nbuckets; k++)
            sg_sem_acquire(w->done);
        busy += train_timed_exec(w->update_amt);
        w->end_s[s] = simgrid_get_clock();
        w->compute_s[s] = busy;
    }
}

static void comm_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct worker *w = sg_actor_self_get_data();
    struct train_ctx *t = w->t;
    for (int s = 0; s < t->sc->train.steps; s++) {
        for (size_t b = 0; b < t->nbuckets; b++) {
            sg_sem_acquire(w->ready);
            enum net_status st = collective_run(&t->world, t->sc->train.algo, COLL_ALLREDUCE,
                                                w->rank, t->bucket_B[b]);
            if (st != NET_OK && w->rank == 0)
                t->failures += 1;
            sg_sem_release(w->done);
        }
    }
}

/* Buckets in backward order: a bucket closes at the layer that brings it to >= bucket_B. */
static void make_buckets(struct train_ctx *t, double grad_elem_B, double bucket_B)
{
    const struct model *m = t->m;
    t->bucket_B = xbt_new0(double, m->nlayers + 1);
    t->bucket_close = xbt_new0(int, m->nlayers + 1);
    double acc = 0;
    for (size_t l = m->nlayers; l-- > 0;) {
        acc += m->layers[l].params * grad_elem_B;
        if (acc > 0 && (acc >= bucket_B || l == 0)) {
            t->bucket_B[t->nbuckets] = acc;
            t->bucket_close[t->nbuckets++] = (int)l;
            acc = 0;
        }
    }
}

static int workers_of(const struct scenario *sc, const struct platform *pf)
{
    return sc->train.gpus > 0 ? sc->train.gpus : (int)pf->ngpus;
}

enum dmlsim_err train_check(const struct scenario *sc, const struct platform *pf,
                            const struct model *m, struct dmlsim_error *err)
{
    const struct train_spec *ts = &sc->train;
    int P = workers_of(sc, pf);
    if (P < 1 || P > (int)pf->ngpus)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <training gpus=\"%d\">: the platform has %zu GPU(s); expected "
                           "1 to %zu",
                           sc->path, ts->line, P, pf->ngpus, pf->ngpus);
    for (int r = 0; r < P; r++) {
        const struct gpu_model *g = pf->models[r];
        if (g->peak_flops[ts->dtype] <= 0)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: <training dtype=\"%s\">: %s has no %s support; expected "
                               "one of its dtypes (see dmlsim catalog)",
                               sc->path, ts->line, catalog_dtype_name(ts->dtype), g->name,
                               catalog_dtype_name(ts->dtype));
        char why[512];
        if (model_check_fit(m, ts->dtype, ts->opt, ts->batch, g, why, sizeof why) != 0)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: <training>: %s; expected a smaller batch-per-gpu or model",
                               sc->path, ts->line, why);
    }
    struct coll_world w;
    collective_world_init(&w, P, pf->gpus, 1);
    const char *why = collective_check(&w, ts->algo);
    collective_world_release(&w);
    if (why != NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: <training algo=\"%s\">: %s", sc->path,
                           ts->line, ts->algo->name, why);
    return DMLSIM_OK;
}

enum dmlsim_err train_run(const struct scenario *sc, const struct platform *pf,
                          const struct model *m, const struct calib *cal, struct train_result *res,
                          struct dmlsim_error *err)
{
    const struct train_spec *ts = &sc->train;
    enum dmlsim_err rc = train_check(sc, pf, m, err);
    if (rc != DMLSIM_OK)
        return rc;
    int P = workers_of(sc, pf);
    struct train_ctx t = {.sc = sc, .m = m};
    memset(res, 0, sizeof *res);
    res->traffic = traffic_new();
    collective_world_init(&t.world, P, pf->gpus, ts->timeout_s);
    t.world.level = ts->level;
    t.world.chunks = ts->chunks;
    t.world.traffic = res->traffic;
    t.world.sent_msgs = xbt_new0(double, P);
    make_buckets(&t, model_dtype_bytes(ts->dtype), ts->bucket_B);
    t.workers = xbt_new0(struct worker, P);
    double update_B = model_params(m) * model_update_bytes_per_param(ts->dtype, ts->opt);
    for (int r = 0; r < P; r++) {
        struct worker *w = &t.workers[r];
        sg_host_t h = pf->gpus[r];
        double speed = sg_host_get_speed(h);
        w->t = &t;
        w->rank = r;
        w->flop_scale = train_flop_scale(h, pf->models[r], cal, ts->dtype);
        w->update_amt = update_B / calib_memory_rate(cal, pf->models[r]) * speed;
        w->ready = sg_sem_init(0);
        w->done = sg_sem_init(0);
        w->end_s = xbt_new0(double, ts->steps);
        w->compute_s = xbt_new0(double, ts->steps);
        char *cn = bprintf("compute-%d", r), *mn = bprintf("comm-%d", r);
        sg_actor_t a = sg_actor_init(cn, h);
        sg_actor_set_data(a, w);
        sg_actor_start(a, compute_actor, 0, NULL);
        a = sg_actor_init(mn, h);
        sg_actor_set_data(a, w);
        sg_actor_start(a, comm_actor, 0, NULL);
        free(cn);
        free(mn);
    }
    simgrid_run();

    res->workers = P;
    res->steps = ts->steps;
    res->global_batch = (double)P * ts->batch;
    res->step_s = xbt_new0(double, ts->steps);
    res->compute_s = xbt_new0(double, ts->steps);
    res->exposed_s = xbt_new0(double, ts->steps);
    double prev = 0, compute_sum = 0;
    for (int s = 0; s < ts->steps; s++) {
        double end = 0;
        for (int r = 0; r < P; r++)
            end = fmax(end, t.workers[r].end_s[s]);
        res->step_s[s] = end - prev;
        res->compute_s[s] = t.workers[0].compute_s[s];
        res->exposed_s[s] = fmax(0, res->step_s[s] - res->compute_s[s]);
        compute_sum += res->compute_s[s];
        prev = end;
    }
    res->total_s = prev;
    res->compute1_s = compute_sum / ts->steps;
    res->nbuckets = t.nbuckets;
    for (size_t b = 0; b < t.nbuckets; b++)
        res->grad_B += t.bucket_B[b];
    for (int r = 0; r < P; r++)
        res->messages += t.world.sent_msgs[r];
    res->failures = t.failures;
    res->mem = model_memory(m, ts->dtype, ts->opt, ts->batch);
    double idle = 0;
    for (int s = 0; s < ts->steps; s++)
        idle += res->exposed_s[s];
    res->idle_frac = res->total_s > 0 ? idle / res->total_s : 0;

    for (int r = 0; r < P; r++) {
        sg_sem_destroy(t.workers[r].ready);
        sg_sem_destroy(t.workers[r].done);
        free(t.workers[r].end_s);
        free(t.workers[r].compute_s);
    }
    free(t.workers);
    free(t.bucket_B);
    free(t.bucket_close);
    free(t.world.sent_msgs);
    collective_world_release(&t.world);
    return DMLSIM_OK;
}

void train_result_release(struct train_result *res)
{
    free(res->step_s);
    free(res->compute_s);
    free(res->exposed_s);
    free(res->shards);
    free(res->first_push_s);
    traffic_free(res->traffic);
    memset(res, 0, sizeof *res);
}

double train_throughput(const struct train_result *res)
{
    return res->total_s > 0 ? res->steps * res->global_batch / res->total_s : 0;
}

double train_efficiency(const struct train_result *res, int batch)
{
    double one_gpu = batch / res->compute1_s;
    return train_throughput(res) / (res->workers * one_gpu);
}

void train_print(const struct scenario *sc, const struct train_result *res, FILE *out)
{
    int batch = sc->train.batch;
    fprintf(out, "#%7s %12s %12s %12s %12s\n", "step", "time", "compute", "exposed", "samples/s");
    fprintf(out, "#%7s %12s %12s %12s %12s\n", "", "(ms)", "(ms)", "(ms)", "");
    for (int s = 0; s < res->steps; s++)
        fprintf(out, " %7d %12.3f %12.3f %12.3f %12.1f\n", s + 1, res->step_s[s] * 1e3,
                res->compute_s[s] * 1e3, res->exposed_s[s] * 1e3,
                res->global_batch / res->step_s[s]);
    fprintf(out, "#\n# summary\n");
    fprintf(out, "#   workers          %d, global batch %.0f (%d x %d)\n", res->workers,
            res->global_batch, res->workers, batch);
    fprintf(out, "#   throughput       %.1f samples/s, mean step %.3f ms\n",
            train_throughput(res), res->total_s / res->steps * 1e3);
    fprintf(out, "#   1-GPU step       %.3f ms (compute only): scaling efficiency %.1f%%\n",
            res->compute1_s * 1e3, 100 * train_efficiency(res, batch));
    fprintf(out, "#   gradients        %.0f B per step in %zu bucket(s)\n", res->grad_B,
            res->nbuckets);
    fprintf(out, "#   messages         %.0f sent, %.0f B\n", traffic_messages(res->traffic),
            traffic_bytes(res->traffic));
    for (size_t i = 0; i < traffic_nclasses(res->traffic); i++) {
        double b;
        const char *name = traffic_class(res->traffic, i, &b);
        fprintf(out, "#   bytes on %-10s %.0f B\n", name, b);
    }
    if (res->nshards == 0) {
        fprintf(out, "#   failed collectives %.0f\n", res->failures);
        fprintf(out, "#   idle fraction    %.4f (communication not hidden by compute)\n",
                res->idle_frac);
        return;
    }
    fprintf(out, "#   idle fraction    %.4f (mean over workers of time not computing)\n",
            res->idle_frac);
    fprintf(out, "#   gradient slices  %.0f computed = %.0f applied + %.0f dropped stale + %.0f "
                 "dropped late\n",
            res->computed, res->applied, res->dropped_stale, res->dropped_late);
    fprintf(out, "#   goodput          %.1f samples/s applied\n",
            res->total_s > 0 ? res->applied_samples / res->total_s : 0);
    fprintf(out, "#   staleness        applied slices by version lag:");
    for (int i = 0; i < PS_HIST; i++)
        if (res->stale_hist[i] > 0)
            fprintf(out, " %s%d:%.0f", i == PS_HIST - 1 ? ">=" : "", i, res->stale_hist[i]);
    fprintf(out, "\n#   shard versions   max spread %.0f, shards disagreed %.1f%% of the time",
            res->spread_max, 100 * res->spread_frac);
    if (res->coordinator_msgs > 0)
        fprintf(out, "; coordinator: %.0f advances received, global version %.0f, largest "
                     "disagreement %.0f",
                res->coordinator_msgs, res->coordinator_global, res->coordinator_spread);
    fprintf(out, "\n#   shard imbalance  largest / mean = %.3f\n#\n", res->imbalance);
    fprintf(out, "#%6s %14s %12s %14s %14s %9s %9s %12s\n", "shard", "host", "params",
            "bytes in", "bytes out", "util in", "util out", "update");
    fprintf(out, "#%6s %14s %12s %14s %14s %9s %9s %12s\n", "", "", "", "(B)", "(B)", "", "",
            "(ms)");
    for (int k = 0; k < res->nshards; k++) {
        const struct shard_report *r = &res->shards[k];
        double cap = r->link_Bps * res->total_s;
        fprintf(out, " %6d %14s %12.0f %14.0f %14.0f %9.4f %9.4f %12.3f\n", k,
                sg_host_get_name(r->host), r->params, r->bytes_in, r->bytes_out,
                cap > 0 ? r->bytes_in / cap : 0, cap > 0 ? r->bytes_out / cap : 0,
                r->update_s * 1e3);
    }
}

void train_write_csv(const struct train_result *res, int batch, FILE *out)
{
    (void)batch;
    fprintf(out, "step,time_s,compute_s,exposed_s,samples_per_s\n");
    for (int s = 0; s < res->steps; s++)
        fprintf(out, "%d,%.9g,%.9g,%.9g,%.9g\n", s + 1, res->step_s[s], res->compute_s[s],
                res->exposed_s[s], res->global_batch / res->step_s[s]);
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", *s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

void train_write_json(const struct scenario *sc, const struct model *m,
                      const struct train_result *res, FILE *out)
{
    const struct train_spec *ts = &sc->train;
    fprintf(out, "{\n  \"scenario\": ");
    json_string(out, sc->name);
    fprintf(out, ",\n  \"seed\": %lu,\n  \"model\": ", sc->seed);
    json_string(out, m->name);
    fprintf(out, ",\n  \"parameters\": %.0f,\n  \"algo\": ", model_params(m));
    json_string(out, ts->algo->name);
    fprintf(out, ",\n  \"level\": \"%s\",\n  \"dtype\": \"%s\",\n  \"optimizer\": \"%s\",\n",
            ts->level == COLL_FLOW ? "flow" : "message", catalog_dtype_name(ts->dtype),
            model_optimizer_name(ts->opt));
    fprintf(out, "  \"workers\": %d,\n  \"batch_per_gpu\": %d,\n  \"global_batch\": %.0f,\n",
            res->workers, ts->batch, res->global_batch);
    fprintf(out, "  \"bucket_bytes\": %.0f,\n  \"buckets\": %zu,\n  \"overlap\": %s,\n",
            ts->bucket_B, res->nbuckets, ts->overlap ? "true" : "false");
    fprintf(out, "  \"memory_per_gpu_bytes\": {\"weights\": %.0f, \"gradients\": %.0f, "
                 "\"optimizer\": %.0f, \"activations\": %.0f, \"total\": %.0f},\n",
            res->mem.weights_B, res->mem.grads_B, res->mem.optimizer_B, res->mem.act_B,
            res->mem.total_B);
    fprintf(out, "  \"steps\": [\n");
    for (int s = 0; s < res->steps; s++)
        fprintf(out, "    {\"step\": %d, \"time_s\": %.9g, \"compute_s\": %.9g, "
                     "\"exposed_s\": %.9g}%s\n",
                s + 1, res->step_s[s], res->compute_s[s], res->exposed_s[s],
                s + 1 < res->steps ? "," : "");
    fprintf(out, "  ],\n  \"summary\": {\"throughput_samples_per_s\": %.9g, "
                 "\"mean_step_s\": %.9g, \"one_gpu_step_s\": %.9g, \"scaling_efficiency\": %.9g, "
                 "\"messages\": %.0f, \"bytes\": %.0f, \"failed_collectives\": %.0f,\n"
                 "    \"bytes_per_link_class\": {",
            train_throughput(res), res->total_s / res->steps, res->compute1_s,
            train_efficiency(res, ts->batch), traffic_messages(res->traffic),
            traffic_bytes(res->traffic), res->failures);
    for (size_t i = 0; i < traffic_nclasses(res->traffic); i++) {
        double b;
        const char *name = traffic_class(res->traffic, i, &b);
        fprintf(out, "%s", i ? ", " : "");
        json_string(out, name);
        fprintf(out, ": %.0f", b);
    }
    fprintf(out, "},\n    \"idle_fraction\": %.9g", res->idle_frac);
    if (res->nshards > 0) {
        fprintf(out, ",\n    \"gradient_slices\": {\"computed\": %.0f, \"applied\": %.0f, "
                     "\"dropped_stale\": %.0f, \"dropped_late\": %.0f},\n    \"staleness\": [",
                res->computed, res->applied, res->dropped_stale, res->dropped_late);
        for (int i = 0; i < PS_HIST; i++)
            fprintf(out, "%s%.0f", i ? ", " : "", res->stale_hist[i]);
        fprintf(out, "],\n    \"shard_imbalance\": %.9g, \"version_spread_max\": %.0f,\n"
                     "    \"shards\": [",
                res->imbalance, res->spread_max);
        for (int k = 0; k < res->nshards; k++) {
            const struct shard_report *r = &res->shards[k];
            fprintf(out, "%s\n      {\"host\": ", k ? "," : "");
            json_string(out, sg_host_get_name(r->host));
            fprintf(out, ", \"params\": %.0f, \"bytes_in\": %.0f, \"bytes_out\": %.0f, "
                         "\"update_s\": %.9g}",
                    r->params, r->bytes_in, r->bytes_out, r->update_s);
        }
        fprintf(out, "]");
    }
    fprintf(out, "}\n}\n");
}

void train_write_summary(const struct scenario *sc, const struct train_result *res, FILE *out)
{
    fprintf(out, "%8s %8s %12s %12s %10s %12s %12s %8s %10s %12s\n", "gpus", "batch", "step_ms",
            "samples/s", "eff", "exposed_ms", "messages", "idle", "dropped", "goodput");
    double exposed = 0;
    for (int s = 0; s < res->steps; s++)
        exposed += res->exposed_s[s];
    double goodput = res->nshards > 0 && res->total_s > 0 ? res->applied_samples / res->total_s
                                                           : train_throughput(res);
    fprintf(out, "%8d %8.0f %12.3f %12.1f %10.4f %12.3f %12.0f %8.4f %10.0f %12.1f\n",
            res->workers, res->global_batch, res->total_s / res->steps * 1e3,
            train_throughput(res), train_efficiency(res, sc->train.batch),
            exposed / res->steps * 1e3, traffic_messages(res->traffic), res->idle_frac,
            res->dropped_stale + res->dropped_late, goodput);
}
