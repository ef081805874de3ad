/* campaign_cmd.c - `dmlsim campaign` (campaign_cmd.h): options, the costs, the replications. */
#include "campaign_cmd.h"

#include "campaign_costs.h"
#include "campaign_out.h"
#include "campaign_probe.h"
#include "cli_sets.h"
#include "cmdline.h"

#include <xbt/str.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A comma-separated list of integers in [lo, hi] into v (at most CAMP_OUT_MAX_AXIS). */
static int parse_list(const char *s, long lo, long hi, int *v, int *n)
{
    char buf[512], *save, *tok;
    snprintf(buf, sizeof buf, "%s", s);
    *n = 0;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        long x = strtol(tok, &end, 10);
        if (*end || end == tok || x < lo || x > hi || *n == CAMP_OUT_MAX_AXIS) return 1;
        v[(*n)++] = (int)x;
    }
    return *n == 0;
}

static int parse_num(const struct cli_args *a, int key, const char *what, double lo, double hi,
                     double *out)
{
    const char *v = cli_value(a, key);
    if (v == NULL) return 0;
    char *end, msg[160];
    double x = strtod(v, &end);
    if (*end || end == v || !(x >= lo && x <= hi)) {
        snprintf(msg, sizeof msg, "%s: expected a number in [%g, %g]", what, lo, hi);
        return cli_error(a->cmd, msg);
    }
    *out = x;
    return 0;
}

static int parse_opts(const struct cli_args *a, struct camp_opts *o)
{
    memset(o, 0, sizeof *o);
    o->file = a->args[0];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cores > 0 ? (int)cores : 1;
    o->pue = 1;
    o->calib = cli_value(a, CLI_CALIB);
    o->json = cli_value(a, CLI_JSON);
    o->keep = cli_value(a, CLI_KEEP);
    o->costs = cli_value(a, CLI_COSTS);
    const char *v;
    double x = 0;
    int nov = 0;
    if (cli_sets_parse(a, &o->ov, &o->keys, &o->sets, &nov) != 0) return 1;
    o->nov = (size_t)nov;
    if (parse_num(a, CLI_PRICE, "--price", 0, 1e6, &o->price) != 0) return 1;
    if (parse_num(a, CLI_PUE, "--pue", 1, 10, &o->pue) != 0) return 1;
    if (parse_num(a, CLI_ZOOM, "--zoom", 1, 1000, &x) != 0) return 1;
    o->zoom = (int)x;
    x = 0;
    if (parse_num(a, CLI_REPLICATIONS, "--replications", 1, 100000, &x) != 0) return 1;
    o->replications = (int)x;
    if (x != floor(x)) return cli_error(a->cmd, "--replications: expected an integer");
    x = o->jobs;
    if (parse_num(a, CLI_JOBS, "--jobs", 1, 256, &x) != 0) return 1;
    o->jobs = (int)x;
    if ((v = cli_value(a, CLI_EVERY)) && parse_list(v, 1, 100000000, o->every, &o->nevery))
        return cli_error(a->cmd, "--every: expected 1 to 64 step counts >= 1, comma-separated");
    if ((v = cli_value(a, CLI_SPARES)) && parse_list(v, 0, 1000000, o->spares, &o->nspares))
        return cli_error(a->cmd, "--spares: expected 1 to 64 node counts >= 0, comma-separated");
    const char *base = strrchr(o->file, '/') ? strrchr(o->file, '/') + 1 : o->file;
    int n = snprintf(o->out, sizeof o->out, "campaign-%.*s", (int)strcspn(base, "."), base);
    if ((v = cli_value(a, CLI_OUT)) != NULL) n = snprintf(o->out, sizeof o->out, "%s", v);
    if (n < 0 || (size_t)n >= sizeof o->out - 32) return cli_error(a->cmd, "--output: too long");
    return 0;
}

/* The campaign's configuration from its scenario, the options and the costs. */
static void make_config(const struct scenario *sc, const struct camp_opts *o, struct camp_config *c)
{
    const struct parallel_spec *p = &sc->train.par;
    const struct campaign_spec *cs = &sc->camp;
    memset(c, 0, sizeof *c);
    c->gpus = p->tp * p->pp * p->dp * (p->cp > 1 ? p->cp : 1);
    c->gpus_per_node = sc->cluster.gpus_per_node;
    c->rack_nodes = cs->rack_nodes;
    c->dp = p->dp;
    c->target_steps = cs->steps;
    c->duration_s = cs->duration_s;
    c->every_steps = sc->ckpt.every_steps;
    c->spares = cs->spares;
    c->policy = cs->policy;
    memcpy(c->causes, cs->causes, sizeof c->causes);
    c->ncauses = cs->ncauses;
    c->failure_scale = cs->failure_scale;
    c->replications = o->replications > 0 ? o->replications : cs->replications;
    c->seed = sc->seed;
    c->tokens_per_step = (double)p->dp * p->microbatches * sc->train.batch * sc->model.gpt.seq;
    c->price_per_gpu_hour = o->price;
    c->pue = o->pue;
}

/* The k-th plain failure (full size, no slow GPU, no write in flight, not interrupted) of
 * replication 1, or -1. */
static int zoom_event(const struct camp_config *c, const struct camp_costs *k, int want,
                      struct camp_event *ev)
{
    struct camp_event *all = xbt_new0(struct camp_event, 4096);
    struct camp_rep rep;
    int n = 0, found = -1;
    campaign_run_traced(c, k, 0, &rep, all, 4096, &n);
    for (int i = 0, m = 0; i < n && found < 0; i++)
        if (all[i].plain && !all[i].interrupted && !isinf(all[i].resume_s) && ++m == want)
            found = i;
    if (found >= 0) *ev = all[found];
    free(all);
    return found;
}

/* --zoom K: the campaign's cost of one failure against full dmlsim runs of it. */
static int zoom(const struct camp_opts *o, const struct camp_probe_opts *po,
                const struct scenario *sc, const struct camp_config *c, const struct camp_costs *k)
{
    struct camp_event e;
    if (zoom_event(c, k, o->zoom, &e) < 0) {
        printf("# zoom          replication 1 has fewer than %d plain failures\n", o->zoom);
        return 0;
    }
    double camp = e.lost_s + (e.resume_s - e.t_s), full = 0, cpu = 0;
    int lost = (int)floor(e.lost_s / k->step_s);
    int steps = c->every_steps + lost + 2, at = c->every_steps + lost;
    printf("# zoom          failure %d of replication 1: %s at %.6g h, %.6g s of work since the "
           "checkpoint of step %ld; resumed %.6g s later\n",
           o->zoom, c->causes[e.cause].name, e.t_s / 3600, e.lost_s, e.ck_step, e.resume_s - e.t_s);
    if (campaign_probe_zoom(po, sc, steps, at, &full, &cpu) != 0) return 1;
    printf("# zoom          full runs of %d steps from the checkpoint before it, the crash after "
           "step %d: the failure cost %.6g s; the campaign's %.6g s (%.2f%% apart)\n",
           steps, at, full, camp, 100 * fabs(camp - full) / full);
    fprintf(stderr, "dmlsim campaign: the zoom's runs took %.1f CPU s\n", cpu);
    return 0;
}

static void release(struct camp_opts *o)
{
    cli_sets_free(o->ov, o->keys, o->sets, (int)o->nov);
}

int campaign_main(const char *self, const struct cli_args *a)
{
    struct camp_opts o;
    struct scenario sc;
    struct dmlsim_error err = {0};
    int st = parse_opts(a, &o);
    if (st != 0) goto out_opts;
    if (scenario_load_with(o.file, o.ov, o.nov, &sc, &err) != DMLSIM_OK) {
        st = cli_fail(&err);
        goto out_opts;
    }
    if (!sc.camp.present) {
        fprintf(stderr,
                "%s:0: no <campaign>; expected one after the scenario's <training>, "
                "<checkpoint> and <recovery>\n",
                o.file);
        st = 1;
        goto out_sc;
    }
    struct camp_config cfg;
    struct camp_costs costs;
    make_config(&sc, &o, &cfg);
    campaign_out_header(stdout, &o, &sc, &cfg);
    struct camp_probe_opts po = {.self = self,
                                 .file = o.file,
                                 .ov = o.ov,
                                 .nov = o.nov,
                                 .calib = o.calib,
                                 .jobs = o.jobs,
                                 .keep = o.keep};
    double cpu_s = 0;
    if (o.costs) {
        if ((st = campaign_costs_read(o.costs, &sc, &cfg, &costs)) != 0) goto out_sc;
        printf("# costs         step %.6g s; a checkpoint blocks %.6g s; a crash: watchdog %.6g "
               "s, restart %.6g s, reload %.6g s (read from %s)\n",
               costs.step_s, costs.ckpt_block_s, costs.watchdog_s, costs.restart_s, costs.reload_s,
               o.costs);
    } else {
        if ((st = campaign_probe(&po, &sc, &costs, &cpu_s, stdout)) != 0) goto out_sc;
        fprintf(stderr, "dmlsim campaign: the cost simulations took %.1f CPU s\n", cpu_s);
    }
    campaign_out_power(stdout, &sc, &costs);
    st = campaign_out_all(stdout, &o, &sc, &cfg, &costs);
    if (st == 0 && o.zoom > 0) st = zoom(&o, &po, &sc, &cfg, &costs);
out_sc:
    scenario_release(&sc);
out_opts:
    release(&o);
    return st;
}
