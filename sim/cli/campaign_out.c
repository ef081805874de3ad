/* campaign_out.c - `dmlsim campaign`'s outputs (campaign_out.h). */
#include "campaign_out.h"

#include "campaign_causes.h"
#include "gnuplot.h"
#include "power.h"

#include <xbt/sysdep.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DAY_S 86400.0

static double total_rate(const struct camp_config *c, enum camp_kind k, bool all)
{
    double r = 0;
    for (int i = 0; i < c->ncauses; i++)
        if (all || c->causes[i].kind == k) r += c->causes[i].per_gpu_hour * c->failure_scale;
    return r;
}

void campaign_out_header(FILE *out, const struct camp_opts *o, const struct scenario *sc,
                         const struct camp_config *c)
{
    const struct campaign_spec *cs = &sc->camp;
    fprintf(out, "# dmlsim %s\n", DMLSIM_VERSION);
    fprintf(out,
            "# campaign      %s (name \"%s\", seed %lu): %s on %d %s, %d spare node(s) of %d, "
            "on shortage %s; %d replication(s)\n",
            o->file, sc->name, sc->seed, sc->model.preset, c->gpus, sc->cluster.gpu->name,
            c->spares, c->gpus_per_node, c->policy == CAMP_SHRINK ? "shrink" : "wait",
            c->replications);
    fprintf(out, "# target        ");
    if (c->target_steps > 0)
        fprintf(out, "%ld steps (%.4g tokens)", c->target_steps,
                (double)c->target_steps * c->tokens_per_step);
    if (c->target_steps > 0 && c->duration_s > 0) fprintf(out, ", or ");
    if (c->duration_s > 0) fprintf(out, "%.4g days of wall time", c->duration_s / DAY_S);
    fprintf(out, "%s; %.6g tokens a step; checkpoint every %d steps (%s)\n",
            c->target_steps > 0 && c->duration_s > 0 ? ", whichever first" : "", c->tokens_per_step,
            c->every_steps, sc->ckpt.async ? "async" : "sync");
    double all = total_rate(c, 0, true);
    double M = campaign_mtbf_s(c);
    fprintf(out,
            "# failures      %s%s, x %g: %d cause(s), %.3g per GPU-hour in all; the job's "
            "MTBF %.3g h (crashes and hangs)",
            cs->mix, cs->nfailures > 0 ? " and the scenario's <failure>s" : "", c->failure_scale,
            c->ncauses, all, M / 3600);
    double planned = total_rate(c, CAMP_PLANNED, false), slow = total_rate(c, CAMP_SLOW, false);
    if (planned > 0) fprintf(out, ", a planned stop every %.3g h", 1 / (planned * c->gpus));
    if (slow > 0) fprintf(out, ", a fail-slow GPU every %.3g h", 1 / (slow * c->gpus));
    fputc('\n', out);
}

void campaign_out_power(FILE *out, const struct scenario *sc, struct camp_costs *costs)
{
    const struct gpu_model *g = sc->cluster.gpu;
    costs->idle_power_w = power_idle_w(g);
    fprintf(out,
            "# power         %.1f W a GPU over a fault-free step (the recovery run's first, "
            "power.h), %.1f W idle, %.0f W TDP (%s); GPUs idle while blocked, down or "
            "spare\n",
            costs->busy_power_w, costs->idle_power_w, power_tdp_w(g), g->power_source);
}

static void print_causes(FILE *out, const struct camp_config *c, const struct camp_agg *g)
{
    fprintf(out, "#\n#%-23s %-8s %-5s %10s %9s %9s %9s %9s %9s %9s\n", "cause", "kind", "scope",
            "per_gpu_h", "detect_s", "repair_h", "failures", "lost_h", "down_h", "slow_h");
    for (int i = 0; i < c->ncauses; i++) {
        const struct camp_cause *k = &c->causes[i];
        char det[16];
        if (k->detect_s < 0)
            snprintf(det, sizeof det, "watchdog");
        else
            snprintf(det, sizeof det, "%.1f", k->detect_s);
        fprintf(out, " %-23s %-8s %-5s %10.3g %9s %9.2f %9.2f %9.2f %9.2f %9.2f\n", k->name,
                campaign_kind_names[k->kind], campaign_scope_names[k->scope],
                k->per_gpu_hour * c->failure_scale, det, k->repair_s / 3600, g->failures[i],
                g->lost_s[i] / 3600, g->down_s[i] / 3600, g->slow_s[i] / 3600);
    }
    fprintf(out, "# (failures, lost_h, down_h, slow_h: means over the replications)\n");
}

static void print_stat(FILE *out, const char *label, const struct camp_stat *s, double scale,
                       const char *unit)
{
    fprintf(out, "#   %-16s %.4g%s [%.4g, %.4g] (p50 %.4g, p90 %.4g)\n", label, s->mean * scale,
            unit, s->ci_lo * scale, s->ci_hi * scale, s->p50 * scale, s->p90 * scale);
}

/* Young's (CACM 1974) and Daly's (FGCS 2006) intervals for block delta and MTBF M (s). */
static void young_daly(double delta, double M, double *young, double *daly)
{
    *young = sqrt(2 * delta * M);
    *daly = delta < 2 * M ? *young * (1 + sqrt(delta / (2 * M)) / 3 + delta / (18 * M)) - delta : M;
}

static void print_split(FILE *out, const struct camp_config *c, const struct camp_agg *g)
{
    double lost = 0, down = 0, slow = 0, w = g->wall_s.mean;
    for (int i = 0; i < c->ncauses; i++)
        lost += g->lost_s[i], down += g->down_s[i], slow += g->slow_s[i];
    fprintf(out,
            "#   time split       productive %.2f%%, checkpoints %.2f%%, lost work %.2f%%, "
            "down %.2f%%, fail-slow %.2f%%, shrunk %.2f%%\n",
            100 * g->productive_s / w, 100 * g->ckpt_s / w, 100 * lost / w, 100 * down / w,
            100 * slow / w, 100 * g->shrunk_s / w);
}

static void print_summary(FILE *out, const struct camp_config *c, const struct camp_costs *k,
                          const struct camp_agg *g)
{
    fprintf(out,
            "#\n# summary       over %d replication(s): mean [95%% confidence interval] "
            "(median, 90th percentile)\n",
            g->n);
    print_stat(out, "wall time", &g->wall_s, 1 / DAY_S, " days");
    fprintf(out, "#   reached          %d of %d replication(s) trained the target steps\n",
            g->reached, g->n);
    print_stat(out, "steps", &g->steps, 1, "");
    print_stat(out, "ETTR", &g->ettr, 1, "");
    print_stat(out, "goodput", &g->goodput, 1, " tokens/s");
    print_split(out, c, g);
    fprintf(out, "#   restarts         %.1f; checkpoints %.1f\n", g->restarts, g->checkpoints);
    fprintf(out,
            "#   GPU-hours        %.4g reserved (%d GPUs + %d spare nodes), %.4g running "
            "steps\n",
            g->gpu_hours, c->gpus, c->spares, g->busy_gpu_hours);
    fprintf(out, "#   energy           %.4g MWh of the GPUs; x PUE %g = %.4g MWh\n",
            g->energy_j / 3.6e9, c->pue, g->energy_j * c->pue / 3.6e9);
    if (c->price_per_gpu_hour > 0)
        fprintf(out, "#   cost             %.4g at %g a GPU-hour\n",
                g->gpu_hours * c->price_per_gpu_hour, c->price_per_gpu_hour);
    double young, daly, M = campaign_mtbf_s(c);
    young_daly(k->ckpt_block_s, M, &young, &daly);
    fprintf(out,
            "#   interval         every %d steps = %.4g s of steps; Young sqrt(2 C M) = "
            "%.4g s (%.1f steps), Daly %.4g s (%.1f steps), for C %.4g s and M %.4g s\n",
            c->every_steps, c->every_steps * k->step_s, young, young / k->step_s, daly,
            daly / k->step_s, k->ckpt_block_s, M);
}

/* ---- JSON ----------------------------------------------------------------------------------- */

/* A number, or null when it is not finite (no failures: an infinite MTBF). */
static const char *jnum(char *buf, size_t len, double x)
{
    if (isfinite(x))
        snprintf(buf, len, "%.17g", x);
    else
        snprintf(buf, len, "null");
    return buf;
}

static void json_stat(FILE *f, const char *name, const struct camp_stat *s)
{
    fprintf(f,
            "\"%s\": {\"mean\": %.17g, \"sd\": %.17g, \"ci_lo\": %.17g, \"ci_hi\": %.17g, "
            "\"p50\": %.17g, \"p90\": %.17g}",
            name, s->mean, s->sd, s->ci_lo, s->ci_hi, s->p50, s->p90);
}

static void json_costs(FILE *f, const struct camp_config *c, const struct camp_costs *k)
{
    fprintf(f,
            "  \"costs\": {\"step_s\": %.17g, \"ckpt_block_s\": %.17g, \"ckpt_commit_s\": "
            "%.17g, \"watchdog_s\": %.17g, \"restart_s\": %.17g, \"reload_s\": %.17g, "
            "\"busy_power_w\": %.17g, \"idle_power_w\": %.17g, \"shrunk\": [",
            k->step_s, k->ckpt_block_s, k->ckpt_commit_s, k->watchdog_s, k->restart_s, k->reload_s,
            k->busy_power_w, k->idle_power_w);
    for (int i = 0; i < k->nshrunk; i++)
        fprintf(f, "%s{\"dp\": %d, \"step_s\": %.17g}", i ? ", " : "", k->shrunk_dp[i],
                k->shrunk_step_s[i]);
    fprintf(f, "], \"slow_step_s\": [");
    for (int i = 0; i < c->ncauses; i++)
        fprintf(f, "%s%.17g", i ? ", " : "", k->slow_step_s[i]);
    fprintf(f, "]},\n");
}

static void json_causes(FILE *f, const struct camp_config *c, const struct camp_agg *g)
{
    fprintf(f, "  \"causes\": [");
    for (int i = 0; i < c->ncauses; i++) {
        const struct camp_cause *k = &c->causes[i];
        fprintf(f,
                "%s\n    {\"cause\": \"%s\", \"kind\": \"%s\", \"scope\": \"%s\", "
                "\"per_gpu_hour\": %.17g, \"detect_s\": ",
                i ? "," : "", k->name, campaign_kind_names[k->kind], campaign_scope_names[k->scope],
                k->per_gpu_hour * c->failure_scale);
        if (k->detect_s < 0)
            fprintf(f, "\"watchdog\"");
        else
            fprintf(f, "%.17g", k->detect_s);
        fprintf(f,
                ", \"repair_s\": %.17g, \"failures\": %.17g, \"lost_s\": %.17g, \"down_s\": "
                "%.17g, \"slow_s\": %.17g}",
                k->repair_s, g->failures[i], g->lost_s[i], g->down_s[i], g->slow_s[i]);
    }
    fprintf(f, "\n  ],\n");
}

static void json_summary(FILE *f, const struct camp_config *c, const struct camp_costs *k,
                         const struct camp_agg *g)
{
    double young, daly, M = campaign_mtbf_s(c);
    char b1[32], b2[32], b3[32];
    young_daly(k->ckpt_block_s, M, &young, &daly);
    fprintf(f, "  \"summary\": {");
    json_stat(f, "wall_s", &g->wall_s);
    fprintf(f, ", ");
    json_stat(f, "ettr", &g->ettr);
    fprintf(f, ", ");
    json_stat(f, "steps", &g->steps);
    fprintf(f, ", ");
    json_stat(f, "goodput_tokens_per_s", &g->goodput);
    fprintf(f,
            ",\n    \"reached\": %d, \"productive_s\": %.17g, \"checkpoint_s\": %.17g, "
            "\"shrunk_s\": %.17g, \"restarts\": %.17g, \"checkpoints\": %.17g, "
            "\"gpu_hours\": %.17g, \"busy_gpu_hours\": %.17g, \"energy_kwh\": %.17g, "
            "\"facility_energy_kwh\": %.17g, \"cost\": %.17g, \"mtbf_s\": %s, "
            "\"young_s\": %s, \"daly_s\": %s}",
            g->reached, g->productive_s, g->ckpt_s, g->shrunk_s, g->restarts, g->checkpoints,
            g->gpu_hours, g->busy_gpu_hours, g->energy_j / 3.6e6, g->energy_j * c->pue / 3.6e6,
            g->gpu_hours * c->price_per_gpu_hour, jnum(b1, sizeof b1, M),
            jnum(b2, sizeof b2, young), jnum(b3, sizeof b3, daly));
}

static int write_json(const struct camp_opts *o, const struct scenario *sc,
                      const struct camp_config *c, const struct camp_costs *k,
                      const struct camp_agg *g)
{
    FILE *f = fopen(o->json, "w");
    if (f == NULL) {
        fprintf(stderr, "%s:0: cannot write: %s; expected a file that can be written\n", o->json,
                strerror(errno));
        return 1;
    }
    fprintf(f,
            "{\n  \"scenario\": \"%s\", \"name\": \"%s\", \"seed\": %lu, \"gpus\": %d, "
            "\"spares\": %d, \"on_shortage\": \"%s\", \"replications\": %d, "
            "\"target_steps\": %ld, \"duration_s\": %.17g, \"every_steps\": %d, "
            "\"tokens_per_step\": %.17g, \"price_per_gpu_hour\": %.17g, \"pue\": %.17g,\n",
            o->file, sc->name, sc->seed, c->gpus, c->spares,
            c->policy == CAMP_SHRINK ? "shrink" : "wait", c->replications, c->target_steps,
            c->duration_s, c->every_steps, c->tokens_per_step, c->price_per_gpu_hour, c->pue);
    json_costs(f, c, k);
    json_causes(f, c, g);
    json_summary(f, c, k, g);
    fprintf(f, "\n}\n");
    return fclose(f) != 0;
}

/* ---- the sweep ---------------------------------------------------------------------------- */

struct sweep_pt {
    int every, spares;
    struct camp_agg g;
};

/* plots/campaign.gp on campaign.csv, a line a spare count (the counts in `spares`). */
static void sweep_plot(FILE *out, const struct camp_opts *o, const struct sweep_pt *pts, int ne,
                       int ns)
{
    char vars[3 * PATH_MAX + 256], list[256] = "";
    for (int s = 0, n = 0; s < ns && n >= 0 && (size_t)n < sizeof list; s++)
        n += snprintf(list + n, sizeof list - (size_t)n, "%s%d", s ? " " : "", pts[s * ne].spares);
    snprintf(vars, sizeof vars, "dat='%s/campaign.csv'; out='%s/campaign.png'; spares='%s'", o->out,
             o->out, list);
    enum gnuplot_status s = gnuplot_draw("plots/campaign.gp", vars);
    if (s == GNUPLOT_OK)
        fprintf(out, "# plot          %s/campaign.png\n", o->out);
    else
        fprintf(out, "# plot          %s: %s/campaign.csv left to draw with plots/campaign.gp\n",
                s == GNUPLOT_NO_SCRIPT ? "plots/campaign.gp not found"
                                       : "gnuplot failed or is not installed",
                o->out);
}

static int sweep_write(const struct camp_opts *o, const struct sweep_pt *pts, int ne, int ns,
                       double step_s)
{
    char file[PATH_MAX];
    if (mkdir(o->out, 0755) != 0 && errno != EEXIST) return 1;
    snprintf(file, sizeof file, "%.4000s/campaign.csv", o->out);
    FILE *f = fopen(file, "w");
    if (f == NULL) return 1;
    fprintf(f, "spares,every_steps,interval_h,ettr,ci_lo,ci_hi\n"); /* one row a point */
    for (int s = 0; s < ns; s++)
        for (int e = 0; e < ne; e++) {
            const struct sweep_pt *p = &pts[s * ne + e];
            fprintf(f, "%d,%d,%.6g,%.6f,%.6f,%.6f\n", p->spares, p->every, p->every * step_s / 3600,
                    p->g.ettr.mean, p->g.ettr.ci_lo, p->g.ettr.ci_hi);
        }
    return fclose(f) != 0;
}

static void sweep_best(FILE *out, const struct camp_config *c, const struct camp_costs *k,
                       const struct sweep_pt *pts, int ne, int ns)
{
    double young, daly;
    young_daly(k->ckpt_block_s, campaign_mtbf_s(c), &young, &daly);
    for (int s = 0; s < ns; s++) {
        const struct sweep_pt *b = &pts[s * ne];
        for (int e = 1; e < ne; e++)
            if (pts[s * ne + e].g.ettr.mean > b->g.ettr.mean) b = &pts[s * ne + e];
        fprintf(out,
                "# best          %d spare node(s): every %d steps (%.4g s), ETTR %.4f; Young "
                "%.4g s (%.1f steps), Daly %.4g s (%.1f steps)\n",
                b->spares, b->every, b->every * k->step_s, b->g.ettr.mean, young, young / k->step_s,
                daly, daly / k->step_s);
    }
}

/* --every x --spares over the same replications (each axis the scenario's value if not given). */
static int sweep(FILE *out, const struct camp_opts *o, const struct camp_config *c,
                 const struct camp_costs *k)
{
    int ne = o->nevery ? o->nevery : 1, ns = o->nspares ? o->nspares : 1;
    struct sweep_pt *pts = xbt_new0(struct sweep_pt, (size_t)(ne * ns));
    struct camp_rep *reps = xbt_new0(struct camp_rep, (size_t)c->replications);
    fprintf(out,
            "#\n# sweep         checkpoint interval x spare nodes, the same failures for "
            "each (common random numbers)\n#%11s %10s %7s %9s %9s %9s %10s\n",
            "every_steps", "interval_h", "spares", "ettr", "ci_lo", "ci_hi", "wall_days");
    for (int s = 0; s < ns; s++)
        for (int e = 0; e < ne; e++) {
            struct camp_config cc = *c;
            cc.every_steps = o->nevery ? o->every[e] : c->every_steps;
            cc.spares = o->nspares ? o->spares[s] : c->spares;
            struct sweep_pt *p = &pts[s * ne + e];
            p->every = cc.every_steps;
            p->spares = cc.spares;
            campaign_play(&cc, k, reps, &p->g);
            fprintf(out, " %11d %10.4g %7d %9.4f %9.4f %9.4f %10.4g\n", p->every,
                    p->every * k->step_s / 3600, p->spares, p->g.ettr.mean, p->g.ettr.ci_lo,
                    p->g.ettr.ci_hi, p->g.wall_s.mean / DAY_S);
        }
    sweep_best(out, c, k, pts, ne, ns);
    int st = sweep_write(o, pts, ne, ns, k->step_s);
    if (st != 0)
        fprintf(stderr,
                "%s:0: cannot write the sweep's files; expected a folder that can be "
                "written\n",
                o->out);
    else
        sweep_plot(out, o, pts, ne, ns);
    free(reps);
    free(pts);
    return st;
}

void campaign_play(const struct camp_config *cfg, const struct camp_costs *costs,
                   struct camp_rep *reps, struct camp_agg *agg)
{
    for (int i = 0; i < cfg->replications; i++)
        campaign_run_one(cfg, costs, i, &reps[i]);
    campaign_aggregate(cfg, costs, reps, cfg->replications, agg);
}

int campaign_out_all(FILE *out, const struct camp_opts *o, const struct scenario *sc,
                     const struct camp_config *c, const struct camp_costs *k)
{
    struct camp_rep *reps = xbt_new0(struct camp_rep, (size_t)c->replications);
    struct camp_agg g;
    campaign_play(c, k, reps, &g);
    print_causes(out, c, &g);
    print_summary(out, c, k, &g);
    int st = o->json ? write_json(o, sc, c, k, &g) : 0;
    if (st == 0 && (o->nevery > 0 || o->nspares > 0)) st = sweep(out, o, c, k);
    free(reps);
    return st;
}
