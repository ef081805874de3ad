/* report.c - the outputs of a run (see report.h). */
#include "report.h"

#include "hybrid_metrics.h"
#include "metrics.h"
#include "ps_metrics.h"
#include "trace.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* Do step rows carry the slowest member's wait for its batch? With an input pipeline under the
 * all-reduce or the hybrid strategy (the longest reader's; the parameter server's rows are
 * versions, not anyone's steps). */
static bool step_input(const struct run_record *rec)
{
    return rec->input && (rec->strategy_id == STRAT_ALLREDUCE || rec->strategy_id == STRAT_HYBRID);
}

/* What each column of the per-step table is, one line before it. */
static void print_step_legend(const struct run_record *rec, bool input, FILE *out)
{
    fprintf(out,
            "# per step: time = from the previous step row's end to this one's; compute = %s; "
            "exposed = time - compute (communication, waits%s not hidden behind compute); ",
            rec->step_compute ? rec->step_compute : "the step's compute",
            input ? ", the input" : "");
    if (input) fprintf(out, "input = the slowest member's wait for its batch; ");
    fprintf(out, "samples/s = the step's samples / its time; workers = the workers it counts\n");
}

/* The per-step table; with step_input, the input wait too (part of the exposed time). */
static void print_steps(const struct run_record *rec, FILE *out)
{
    bool input = step_input(rec);
    print_step_legend(rec, input, out);
    const char *in = input ? "        input" : "", *unit = input ? "         (ms)" : "";
    fprintf(out, "#%7s %12s %12s%s %12s %12s %8s\n", "step", "time", "compute", in, "exposed",
            "samples/s", "workers");
    fprintf(out, "#%7s %12s %12s%s %12s %12s %8s\n", "", "(ms)", "(ms)", unit, "(ms)", "", "");
    for (size_t i = 0; i < rec->nev; i++) {
        const struct run_event *e = &rec->ev[i];
        if (e->kind != RUN_STEP) continue;
        fprintf(out, " %7d %12.3f %12.3f", e->step, e->time_s * 1e3, e->compute_s * 1e3);
        if (input) fprintf(out, " %12.3f", e->input_s * 1e3);
        fprintf(out, " %12.3f %12.1f %8d", run_step_exposed(e) * 1e3,
                e->time_s > 0 ? e->samples / e->time_s : 0, e->workers);
        if (e->side > 0) fprintf(out, "  side %d", e->side); /* split brain: not the store's */
        fputc('\n', out);
    }
}

/* The compute breakdown: each kernel class's share of a step's compute and its rate against
 * the GPU's roofline (tensor FLOP/s for GEMMs, memory bandwidth for the others). */
static void print_kernels(const struct run_record *rec, FILE *out)
{
    double total = 0;
    for (size_t i = 0; i < rec->nkclasses; i++)
        total += rec->kclass_s[i];
    if (total <= 0) return;
    fprintf(out, "#   kernel time     ");
    for (size_t i = 0, n = 0; i < rec->nkclasses; i++) {
        double t = rec->kclass_s[i];
        if (t <= 0) continue;
        fprintf(out, "%s %s %.1f%%", n++ ? "," : "", rec->kclass_name[i], 100 * t / total);
        if (rec->kclass_flops[i] > 0)
            fprintf(out, " (%.1f TFLOP/s, %.0f%% of peak)", rec->kclass_flops[i] / t / 1e12,
                    rec->peak_flops > 0 ? 100 * rec->kclass_flops[i] / t / rec->peak_flops : 0);
        else if (rec->kclass_bytes[i] > 0)
            fprintf(out, " (%.0f GB/s, %.0f%% of bandwidth)", rec->kclass_bytes[i] / t / 1e9,
                    100 * rec->kclass_bytes[i] / t / rec->peak_mem_Bps);
    }
    fputc('\n', out);
}

/* The input pipeline's stages: how busy each was, its throughput, and the slowest (busiest). */
static void print_stages(const struct run_record *rec, FILE *out)
{
    int slowest = 0;
    fprintf(out, "#   input stages    ");
    for (int s = 0; s < RUN_STAGES; s++) {
        const struct stage_report *st = &rec->stages[s];
        if (run_stage_busy(rec, s) > run_stage_busy(rec, slowest)) slowest = s;
        fprintf(out, "%s %s %.1f%% busy", s ? ";" : "", st->name, 100 * run_stage_busy(rec, s));
        if (st->bytes > 0 && rec->total_s > 0)
            fprintf(out, ", %.3f GB/s", st->bytes / rec->total_s / 1e9);
    }
    fprintf(out, "; the slowest: %s\n", rec->stages[slowest].name);
    int busiest = 0;
    fprintf(out, "#   input resources ");
    for (int i = 0; i < RUN_RESOURCES; i++) {
        if (run_resource_util(rec, i) > run_resource_util(rec, busiest)) busiest = i;
        fprintf(out, "%s %s %.1f%%", i ? "," : "", run_resource_names[i],
                100 * run_resource_util(rec, i));
    }
    fprintf(out, "; the busiest: %s\n", run_resource_names[busiest]);
}

/* The lists printed after a line of the summary, as its first row says (METRIC_LINE_*). */
static void extras_after(const struct metric *line, const struct run_record *rec, FILE *out)
{
    if (line->line & METRIC_LINE_KERNELS) print_kernels(rec, out);
    if (line->line & METRIC_LINE_LINK_CLASSES)
        for (size_t i = 0; i < rec->nclasses; i++)
            fprintf(out, "#   bytes on %-10s %.0f B\n", rec->class_name[i], rec->class_B[i]);
    if (line->line & METRIC_LINE_INPUT) print_stages(rec, out);
    const struct hybrid_record *h = hybrid_metrics_of(rec);
    for (int g = 0; h && (line->line & METRIC_LINE_GROUP_CLASSES) && g < 4; g++) /* placement */
        for (size_t k = 0; k < h->group_nclasses[g]; k++)
            fprintf(out, "#   %-8s on %-10s %.0f B\n", run_group_names[g], h->group_class[g][k],
                    h->group_class_B[g][k]);
    const struct ps_record *ps = ps_metrics_of(rec);
    if ((line->line & METRIC_LINE_STALENESS) && ps && ps->nshards > 0) {
        fprintf(out, "#   staleness        applied slices by version lag:");
        for (int i = 0; i < RUN_HIST; i++)
            if (ps->stale_hist[i] > 0)
                fprintf(out, " %s%d:%.0f", i == RUN_HIST - 1 ? ">=" : "", i, ps->stale_hist[i]);
        fputc('\n', out);
    }
    if ((line->line & METRIC_LINE_ELASTIC) && rec->membership_changes > 0 &&
        rec->final_workers != rec->workers && !rec->job_failed)
        fprintf(out,
                "#   elastic          the last membership has %.0f of %d workers: global batch "
                "%.0f x per-GPU batch; by the linear scaling rule (Goyal et al. 2017) the "
                "learning rate scales by %.0f/%d\n",
                rec->final_workers, rec->workers, rec->final_workers, rec->final_workers,
                rec->workers);
}

/* One fragment of a metric's text line. */
static void print_fragment(const struct metric *mt, const struct run_record *rec, FILE *out)
{
    double v = mt->get(rec);
    if (mt->yes != NULL)
        fputs(v != 0 ? mt->yes : mt->no, out);
    else if (isinf(v)) /* a time to a target never reached */
        fputs("not reached", out);
    else
        fprintf(out, mt->text, v * mt->scale);
}

/* The accounting identities' lines (METRIC_LINE_IDENTITY): a total, then the terms it splits
 * into. */
#define IDENTITY_TERMS 8

/* An identity line whose counts are not all whole (a parameter server's slice carries 1/K of a
 * batch), each rounded on its own (%.0f), could read off by one while the identity held. Only
 * then is the line printed in hundredths, its terms apportioned by largest remainder (each within
 * a hundredth of its value) so that they add up to the total as printed. mts[0..n): the line's
 * fragments, the total first. false: printed as usual (the rounded counts add up, or the identity
 * does not hold: a violation stays visible). */
static bool print_fractional_identity(const struct metric *const *mts, size_t n,
                                      const struct run_record *rec, FILE *out)
{
    double v[IDENTITY_TERMS], frac[IDENTITY_TERMS];
    long long c[IDENTITY_TERMS], left, rounded = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = mts[i]->get(rec) * mts[i]->scale;
        rounded += (i == 0 ? 1 : -1) * llrint(v[i]); /* as %.0f rounds */
    }
    if (rounded == 0) return false;
    left = llround(v[0] * 100);
    for (size_t i = 1; i < n; i++) {
        c[i] = (long long)floor(v[i] * 100 + 1e-6);
        frac[i] = v[i] * 100 - (double)c[i];
        left -= c[i];
    }
    /* held, the terms' floors fall short of the total by less than a hundredth each */
    if (left < 0 || left >= (long long)n) return false;
    for (; left > 0; left--) { /* a hundredth more to the largest remainders */
        size_t best = 1;
        for (size_t i = 2; i < n; i++)
            if (frac[i] > frac[best]) best = i;
        c[best] += 1;
        frac[best] = -1;
    }
    for (size_t i = 0; i < n; i++) {
        char fmt[96];
        const char *at = strstr(mts[i]->text, "%.0f");
        double shown = i == 0 ? nearbyint(v[0] * 100) / 100 : (double)c[i] / 100;
        if (at == NULL || strlen(mts[i]->text) >= sizeof fmt) { /* not a count: as usual */
            print_fragment(mts[i], rec, out);
            continue;
        }
        snprintf(fmt, sizeof fmt, "%.*s%%.2f%s", (int)(at - mts[i]->text), mts[i]->text, at + 4);
        fprintf(out, fmt, shown);
    }
    return true;
}

/* Is row mt shown in rec's text summary? */
static bool shown(const struct metric *mt, const struct run_record *rec)
{
    return (mt->text_for & metric_strategy_bit(rec)) && (mt->shown == NULL || mt->shown(rec));
}

/* The terms of the identity line that row i starts (they follow it without a label) into mts,
 * the total first; returns how many, and the row after the line in *next. */
static size_t identity_terms(size_t i, const struct run_record *rec,
                             const struct metric *mts[IDENTITY_TERMS], size_t *next)
{
    size_t n = 0, k = i;
    for (; k < metrics_count() && (k == i || metrics_at(k)->label == NULL); k++)
        if ((metrics_at(k)->text_for & metric_strategy_bit(rec)) && n < IDENTITY_TERMS)
            mts[n++] = metrics_at(k);
    *next = k;
    return n;
}

static void print_summary(const struct run_record *rec, FILE *out)
{
    const struct metric *line = NULL; /* the first row of the line being printed */
    fprintf(out, "#\n# summary\n");
    for (size_t i = 0; i < metrics_count(); i++) {
        const struct metric *mt = metrics_at(i);
        if (!shown(mt, rec)) continue;
        if (mt->label != NULL) {
            if (line != NULL) {
                fputc('\n', out);
                extras_after(line, rec, out);
            }
            line = mt;
            fprintf(out, "#   %-16s ", mt->label);
            if (mt->line & METRIC_LINE_IDENTITY) { /* the whole line at once */
                const struct metric *mts[IDENTITY_TERMS];
                size_t next, n = identity_terms(i, rec, mts, &next);
                if (print_fractional_identity(mts, n, rec, out)) {
                    i = next - 1;
                    continue;
                }
            }
        }
        print_fragment(mt, rec, out);
    }
    if (line != NULL) {
        fputc('\n', out);
        extras_after(line, rec, out);
    }
}

/* A shard's bytes over what its link to worker 0 could carry in the run. */
static double shard_util(const struct run_record *rec, const struct shard_report *r, double bytes)
{
    double cap = r->link_Bps * rec->total_s;
    return cap > 0 ? bytes / cap : 0;
}

/* A shard's row: the sparse path adds its embedding rows and its pushes' mean queueing. */
static void print_shard(const struct run_record *rec, const struct ps_record *ps, int k,
                        FILE *out)
{
    const struct shard_report *r = &ps->shards[k];
    fprintf(out, " %6d %14s %12.0f %14.0f %14.0f %9.4f %9.4f %12.3f", k, r->host, r->params,
            r->bytes_in, r->bytes_out, shard_util(rec, r, r->bytes_in),
            shard_util(rec, r, r->bytes_out), r->update_s * 1e3);
    if (ps->sparse)
        fprintf(out, " %12.0f %12.0f %10.3f", r->rows_in, r->rows_out,
                r->pushes > 0 ? r->queue_s / r->pushes * 1e3 : 0);
    fputc('\n', out);
}

static void print_shards(const struct run_record *rec, const struct ps_record *ps, FILE *out)
{
    fprintf(out, "#\n");
    fprintf(out, "#%6s %14s %12s %14s %14s %9s %9s %12s", "shard", "host", "params", "bytes in",
            "bytes out", "util in", "util out", "update");
    if (ps->sparse) fprintf(out, " %12s %12s %10s", "rows in", "rows out", "queue");
    fprintf(out, "\n#%6s %14s %12s %14s %14s %9s %9s %12s", "", "", "", "(B)", "(B)", "", "",
            "(ms)");
    if (ps->sparse) fprintf(out, " %12s %12s %10s", "", "", "(ms/push)");
    fputc('\n', out);
    for (int k = 0; k < ps->nshards; k++)
        print_shard(rec, ps, k, out);
}

void report_text(const struct run_record *rec, FILE *out)
{
    print_steps(rec, out);
    print_summary(rec, out);
    if (ps_metrics_of(rec) && ps_metrics_of(rec)->nshards > 0)
        print_shards(rec, ps_metrics_of(rec), out);
}

static void csv_text(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void report_csv(const struct provenance *pv, const struct run_record *rec, FILE *out)
{
    provenance_csv(pv, out);
    fprintf(out, "kind,t_s,step,time_s,compute_s,exposed_s,samples_per_s,workers,what\n");
    for (size_t i = 0; i < rec->nev; i++) {
        const struct run_event *e = &rec->ev[i];
        if (e->kind == RUN_STEP) {
            fprintf(out, "step,%.9g,%d,%.9g,%.9g,%.9g,%.9g,%d,", e->t_s, e->step, e->time_s,
                    e->compute_s, run_step_exposed(e), e->time_s > 0 ? e->samples / e->time_s : 0,
                    e->workers);
            if (step_input(rec)) fprintf(out, "input_s=%.9g%s", e->input_s, e->side > 0 ? ";" : "");
            if (e->side > 0) fprintf(out, "side=%d", e->side);
            fputc('\n', out);
        } else {
            fprintf(out, "%s,%.9g,%d,,,,,%d,", run_event_kind_name(e->kind), e->t_s, e->step,
                    e->workers);
            csv_text(out, e->what);
            fputc('\n', out);
        }
    }
    for (size_t i = 0; i < rec->nevals; i++) { /* numerics: the test-set evaluations */
        const struct run_eval *e = &rec->evals[i];
        fprintf(out, "eval,%.9g,%d,,,,,%d,accuracy=%.9g;loss=%.9g%s%s", e->t_s, e->step,
                rec->workers, e->accuracy, e->loss, rec->proxy[0] ? ";cost-model proxy=" : "",
                rec->proxy);
        if (e->side > 0) fprintf(out, ";side=%d", e->side); /* split brain: not the job's model */
        fputc('\n', out);
    }
}

void report_summary(const struct run_record *rec, FILE *out)
{
    for (int pass = 0; pass < 2; pass++) {
        for (int col = 1;; col++) {
            const struct metric *mt = NULL;
            for (size_t i = 0; i < metrics_count() && mt == NULL; i++)
                if (metrics_at(i)->col == col) mt = metrics_at(i);
            if (mt == NULL) break;
            if (mt->shown && !mt->shown(rec)) continue; /* numerics' columns: with numerics */
            if (pass == 0)
                fprintf(out, "%s%*s", col > 1 ? " " : "", mt->width, mt->column);
            else
                fprintf(out, "%s%*.*f", col > 1 ? " " : "", mt->width, mt->prec,
                        mt->get(rec) * (mt->col_scale != 0 ? mt->col_scale : 1));
        }
        fputc('\n', out);
    }
}

void report_trace(const struct scenario *sc, const struct run_record *rec, FILE *out)
{
    char title[160];
    snprintf(title, sizeof title, "dmlsim %s (seed %lu)%s%s", sc->name, sc->seed,
             rec->proxy[0] ? ", cost-model proxy " : "", rec->proxy);
    trace_write(rec->trace, title, out);
}

static void json_config(const struct scenario *sc, const struct model *m,
                        const struct run_record *rec, const struct provenance *pv, FILE *out)
{
    const struct train_spec *ts = &sc->train;
    fprintf(out, "{\n");
    provenance_json(pv, out);
    fprintf(out, "  \"scenario\": ");
    trace_json_string(out, sc->name);
    fprintf(out, ",\n  \"seed\": %lu,\n  \"model\": ", sc->seed);
    trace_json_string(out, m->name);
    fprintf(out, ",\n  \"parameters\": %.0f,\n  \"strategy\": ", model_params(m));
    trace_json_string(out, rec->strategy);
    for (size_t i = 0; i < rec->nconfig; i++)
        fprintf(out, ",\n  \"%s\": %s", rec->config[i].key, rec->config[i].value);
    fprintf(out, ",\n  \"dtype\": \"%s\",\n  \"optimizer\": \"%s\",\n",
            catalog_dtype_name(ts->dtype), model_optimizer_name(ts->opt));
    fprintf(out, "  \"workers\": %d,\n  \"batch_per_gpu\": %d,\n  \"steps_planned\": %d,\n",
            rec->workers, rec->batch, rec->steps_planned);
    fprintf(out,
            "  \"memory_per_gpu_bytes\": {\"weights\": %.0f, \"gradients\": %.0f, "
            "\"optimizer\": %.0f, \"activations\": %.0f, \"total\": %.0f},\n",
            rec->mem.weights_B, rec->mem.grads_B, rec->mem.optimizer_B, rec->mem.act_B,
            rec->mem.total_B);
}

static void json_events(const struct run_record *rec, FILE *out)
{
    bool first = true;
    fprintf(out, "  \"steps\": [");
    for (size_t i = 0; i < rec->nev; i++) {
        const struct run_event *e = &rec->ev[i];
        if (e->kind != RUN_STEP) continue;
        fprintf(out,
                "%s\n    {\"step\": %d, \"t_s\": %.9g, \"time_s\": %.9g, \"compute_s\": %.9g, "
                "\"exposed_s\": %.9g, \"samples\": %.9g, \"workers\": %d, \"tflops\": %.9g",
                first ? "" : ",", e->step, e->t_s, e->time_s, e->compute_s, run_step_exposed(e),
                e->samples, e->workers,
                e->compute_s > 0 ? rec->step_flops / e->compute_s / 1e12 : 0);
        if (step_input(rec)) fprintf(out, ", \"input_s\": %.9g", e->input_s);
        if (rec->gpu_tdp_w > 0) /* GPU activity and power (run_power.h) */
            fprintf(out, ", \"gpu_util\": %.9g, \"sm_activity\": %.9g, \"power_w\": %.9g",
                    e->gpu_util, e->sm_activity, e->power_w);
        if (e->side > 0) fprintf(out, ", \"side\": %d", e->side); /* split brain */
        fputc('}', out);
        first = false;
    }
    fprintf(out, "\n  ],\n  \"events\": [");
    first = true;
    for (size_t i = 0; i < rec->nev; i++) {
        const struct run_event *e = &rec->ev[i];
        if (e->kind == RUN_STEP) continue;
        fprintf(out,
                "%s\n    {\"kind\": \"%s\", \"t_s\": %.9g, \"step\": %d, \"workers\": %d, "
                "\"what\": ",
                first ? "" : ",", run_event_kind_name(e->kind), e->t_s, e->step, e->workers);
        trace_json_string(out, e->what);
        fputc('}', out);
        first = false;
    }
    fprintf(out, "\n  ],\n");
    if (!rec->numerics) return;
    fprintf(out, "  \"evals\": [");
    for (size_t i = 0; i < rec->nevals; i++) {
        fprintf(out, "%s\n    {\"step\": %d, \"t_s\": %.9g, \"accuracy\": %.9g, \"loss\": %.9g",
                i ? "," : "", rec->evals[i].step, rec->evals[i].t_s, rec->evals[i].accuracy,
                rec->evals[i].loss);
        if (rec->evals[i].side > 0) fprintf(out, ", \"side\": %d", rec->evals[i].side);
        fputc('}', out);
    }
    fprintf(out, "\n  ],\n  \"params_fnv1a\": \"%016llx\",\n", rec->params_fnv);
}

static void json_kernels(const struct run_record *rec, FILE *out)
{
    fprintf(out, ",\n    \"kernel_classes\": {");
    for (size_t i = 0; i < rec->nkclasses; i++)
        fprintf(out, "%s\"%s\": {\"time_s\": %.9g, \"flops\": %.9g, \"bytes\": %.9g}",
                i ? ", " : "", rec->kclass_name[i], rec->kclass_s[i], rec->kclass_flops[i],
                rec->kclass_bytes[i]);
    fprintf(out, "}");
}

static void json_lists(const struct run_record *rec, FILE *out)
{
    json_kernels(rec, out);
    fprintf(out, ",\n    \"bytes_per_link_class\": {");
    for (size_t i = 0; i < rec->nclasses; i++) {
        fprintf(out, "%s", i ? ", " : "");
        trace_json_string(out, rec->class_name[i]);
        fprintf(out, ": %.0f", rec->class_B[i]);
    }
    fprintf(out, "}");
    const struct hybrid_record *h = hybrid_metrics_of(rec);
    if (h != NULL) {
        fprintf(out, ",\n    \"group_bytes_per_link_class\": {");
        for (int g = 0; g < 4; g++) {
            fprintf(out, "%s\"%s\": {", g ? ", " : "", run_group_names[g]);
            for (size_t k = 0; k < h->group_nclasses[g]; k++) {
                fprintf(out, "%s", k ? ", " : "");
                trace_json_string(out, h->group_class[g][k]);
                fprintf(out, ": %.0f", h->group_class_B[g][k]);
            }
            fprintf(out, "}");
        }
        fprintf(out, "}");
    }
    if (rec->input) {
        fprintf(out, ",\n    \"input_stages\": {");
        for (int s = 0; s < RUN_STAGES; s++)
            fprintf(out, "%s\"%s\": {\"busy\": %.9g, \"bytes\": %.0f}", s ? ", " : "",
                    rec->stages[s].name, run_stage_busy(rec, s), rec->stages[s].bytes);
        fprintf(out, "},\n    \"input_resources\": {");
        for (int i = 0; i < RUN_RESOURCES; i++)
            fprintf(out, "%s\"%s\": {\"used\": %.9g, \"per_s\": %.9g, \"util\": %.9g}",
                    i ? ", " : "", run_resource_names[i], rec->resources[i].used,
                    rec->resources[i].per_s, run_resource_util(rec, i));
        fprintf(out, "}");
    }
    const struct ps_record *ps = ps_metrics_of(rec);
    if (ps == NULL || ps->nshards == 0) return;
    fprintf(out, ",\n    \"staleness\": [");
    for (int i = 0; i < RUN_HIST; i++)
        fprintf(out, "%s%.0f", i ? ", " : "", ps->stale_hist[i]);
    fprintf(out, "],\n    \"shard_table\": [");
    for (int k = 0; k < ps->nshards; k++) {
        const struct shard_report *r = &ps->shards[k];
        fprintf(out, "%s\n      {\"host\": ", k ? "," : "");
        trace_json_string(out, r->host);
        fprintf(out,
                ", \"params\": %.0f, \"bytes_in\": %.0f, \"bytes_out\": %.0f, "
                "\"link_Bps\": %.9g, \"util_in\": %.9g, \"util_out\": %.9g, \"update_s\": %.9g, "
                "\"versions\": %.0f",
                r->params, r->bytes_in, r->bytes_out, r->link_Bps, shard_util(rec, r, r->bytes_in),
                shard_util(rec, r, r->bytes_out), r->update_s, r->versions);
        if (ps->sparse) /* the sparse path's rows, and the pushes' queueing at the shard */
            fprintf(out, ", \"rows_in\": %.0f, \"rows_out\": %.0f, \"queue_s\": %.9g, "
                         "\"pushes\": %.0f",
                    r->rows_in, r->rows_out, r->queue_s, r->pushes);
        fputc('}', out);
    }
    fprintf(out, "]");
}

/* A number as JSON: null for an open end (inf) or no value (NaN; JSON has neither); a whole
 * number below 2^53 in full (byte counts), any other to 9 significant digits. */
static void json_bound(FILE *out, double v)
{
    if (isinf(v) || isnan(v))
        fprintf(out, "null");
    else if (v == floor(v) && fabs(v) < 9007199254740992.0)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.9g", v);
}

static void json_expects(const struct scenario *sc, const struct run_record *rec, FILE *out)
{
    fprintf(out, ",\n  \"expectations\": [");
    for (size_t i = 0; i < sc->nexpects; i++) {
        const struct expect_spec *e = &sc->expects[i];
        double v = 0;
        metrics_value(e->metric, rec, &v);
        fprintf(out, "%s\n    {\"metric\": ", i ? "," : "");
        trace_json_string(out, e->metric);
        fprintf(out, ", \"min\": ");
        json_bound(out, e->min);
        fprintf(out, ", \"max\": ");
        json_bound(out, e->max);
        fprintf(out, ", \"value\": ");
        json_bound(out, v);
        fprintf(out, ", \"ok\": %s, \"line\": %d}", v >= e->min && v <= e->max ? "true" : "false",
                e->line);
    }
    fprintf(out, "%s]", sc->nexpects ? "\n  " : "");
}

void report_json(const struct scenario *sc, const struct model *m, const struct run_record *rec,
                 const struct provenance *pv, FILE *out)
{
    json_config(sc, m, rec, pv, out);
    json_events(rec, out);
    fprintf(out, "  \"summary\": {");
    for (size_t i = 0; i < metrics_count(); i++) {
        const struct metric *mt = metrics_at(i);
        fprintf(out, "%s\n    \"%s\": ", i ? "," : "", mt->name);
        json_bound(out, mt->get(rec)); /* inf (a target not reached) is null */
    }
    json_lists(rec, out);
    fprintf(out, "\n  }");
    json_expects(sc, rec, out);
    fprintf(out, ",\n  \"job_failed\": %s", rec->job_failed ? "true" : "false");
    if (rec->job_failed) {
        fprintf(out, ",\n  \"failure\": ");
        trace_json_string(out, rec->failure);
    }
    fprintf(out, "\n}\n");
}
