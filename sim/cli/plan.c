/* plan.c - `dmlsim plan` (see plan.h): the layouts, their estimates, the best K simulated. */
#include "plan.h"

#include "calib.h"
#include "cmdline.h"
#include "datadir.h"
#include "plan_est.h"
#include "plan_out.h"
#include "plan_space.h"
#include "sweep.h"
#include "sweep_grid.h"

#include <xbt/misc.h>
#include <xbt/str.h>
#include <xbt/sysdep.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PLAN_TOP_MAX 64 /* layouts simulated at most (--top) */

/* The axes a layout sets, in the order of plan_axis_value. */
static const char *const axis_path[] = {"parallel.tp",
                                        "parallel.pp",
                                        "parallel.dp",
                                        "parallel.ep",
                                        "parallel.microbatches",
                                        "training.batch-per-gpu",
                                        "parallel.schedule",
                                        "parallel.virtual-stages",
                                        "parallel.zero",
                                        "parallel.recompute",
                                        "parallel.sequence-parallel",
                                        "parallel.order",
                                        "parallel.cp"};
#define PLAN_AXES ((int)(sizeof axis_path / sizeof axis_path[0]))

const char *plan_axis_path(int a)
{
    return a < PLAN_AXES ? axis_path[a] : NULL;
}

char *plan_axis_value(const struct plan_cand *c, int a)
{
    const struct parallel_spec *p = &c->p;
    int n[] = {p->tp, p->pp, p->dp, p->ep, p->microbatches, c->b};
    if (a < 6) return bprintf("%d", n[a]);
    switch (a) {
    case 6:
        return xbt_strdup(p->schedule == PP_INTERLEAVED ? "interleaved" : "1f1b");
    case 7:
        return bprintf("%d", p->vstages);
    case 8:
        return bprintf("%d", p->zero);
    case 9:
        return xbt_strdup(scenario_recompute_name(p->recompute));
    case 10:
        return xbt_strdup(p->sp ? "yes" : "no");
    case 11:
        return xbt_strdup(p->dp_outer ? "tp-pp-dp" : "tp-dp-pp");
    default:
        return bprintf("%d", par_cp(p));
    }
}

/* Does --set `set` (ELEM.ATTR=VALUE) name one of the axes a layout sets? */
static bool is_axis(const char *set)
{
    size_t n = strcspn(set, "=");
    for (int a = 0; a < PLAN_AXES; a++)
        if (strlen(axis_path[a]) == n && strncmp(axis_path[a], set, n) == 0) return true;
    return false;
}

/* By the estimate; among equal estimates the one needing the least memory first (selective
 * recomputation before none when FlashAttention makes them cost the same), then by number. */
static int by_estimate(const void *a, const void *b)
{
    const struct plan_cand *x = a, *y = b;
    if (x->est_s != y->est_s) return x->est_s < y->est_s ? -1 : 1;
    if (x->mem.total_B != y->mem.total_B) return x->mem.total_B < y->mem.total_B ? -1 : 1;
    return x->id - y->id; /* deterministic */
}

/* Drops a layout whose estimate equals one kept before it and differs from it only in what the
 * estimate cannot see (the recomputation when it costs nothing more, the order when no group
 * changes links): the first, needing less memory or in Megatron's order tp-dp-pp (enumerated
 * first), stands for both, so the K simulated are K different costs. */
static void drop_twins(struct plan_space *sp)
{
    int n = 0;
    for (int i = 0; i < sp->n; i++) {
        const struct plan_cand *c = &sp->c[i];
        bool twin = false;
        for (int j = n - 1; j >= 0 && sp->c[j].est_s == c->est_s && !twin; j--) {
            const struct parallel_spec *x = &c->p, *y = &sp->c[j].p;
            twin = sp->c[j].b == c->b && x->tp == y->tp && x->pp == y->pp && x->dp == y->dp &&
                   x->ep == y->ep && x->microbatches == y->microbatches &&
                   x->vstages == y->vstages && x->schedule == y->schedule && x->zero == y->zero &&
                   x->sp == y->sp && x->cp == y->cp;
        }
        if (!twin) sp->c[n++] = *c;
        sp->twins += twin;
    }
    sp->n = n;
}

/* The K layouts as a sweep of --zip axes over `file`, each point's row into rows. */
static int simulate(const char *self, const struct plan_opts *o, const char *file,
                    const struct plan_cand *c, int k, char **rows, char **header)
{
    struct sweep sw;
    memset(&sw, 0, sizeof sw);
    sw.file = file;
    sw.jobs = o->jobs;
    sw.cpu_limit_s = o->limit_s;
    sw.keep_going = true;
    sw.extra = xbt_new0(const char *, 2 + 2 * (size_t)o->nsets);
    for (int i = 0; i < o->nsets && file == o->file; i++) { /* the under file has them */
        if (is_axis(o->sets[i]))
            continue; /* the layout's own (the children's --set axes come
                         first: a later --set would undo them) */
        sw.extra[sw.nextra++] = "--set";
        sw.extra[sw.nextra++] = o->sets[i];
    }
    if (o->calib) {
        sw.extra[sw.nextra++] = "--calib";
        sw.extra[sw.nextra++] = o->calib;
    }
    for (int a = 0; a < PLAN_AXES; a++) {
        struct sweep_axis *ax = &sw.axes[sw.naxes++];
        snprintf(ax->path, sizeof ax->path, "%s", axis_path[a]);
        ax->zip = true;
        ax->values = xbt_new0(char *, k);
        for (int i = 0; i < k; i++)
            ax->values[ax->nvalues++] = plan_axis_value(&c[i], a);
    }
    char why[256];
    if (!sweep_grid_count(&sw, why, sizeof why)) { /* k <= PLAN_TOP_MAX: cannot happen */
        fprintf(stderr, "dmlsim plan: %s\n", why);
        sweep_grid_release(&sw);
        return 1;
    }
    return sweep_run_rows(&sw, self, rows, header);
}

/* The column `name` of a summary row under header, or -1 when it has none. */
static double column(const char *header, const char *row, const char *name)
{
    char h[1024], r[1024], *hs, *rs;
    snprintf(h, sizeof h, "%s", header);
    snprintf(r, sizeof r, "%s", row);
    char *hw = strtok_r(h, " \t", &hs), *rw = strtok_r(r, " \t", &rs);
    for (; hw && rw; hw = strtok_r(NULL, " \t", &hs), rw = strtok_r(NULL, " \t", &rs))
        if (strcmp(hw, name) == 0) return strtod(rw, NULL);
    return -1;
}

/* Each simulated row's figures into res[i] (run 0 fault-free, 1 under --under). */
static void read_rows(char **rows, const char *header, int k, struct plan_result *res, int run)
{
    for (int i = 0; i < k && header; i++) {
        struct plan_sim *s = &res[i].sim[run];
        if (rows[i] == NULL) continue; /* over the limit or failed: not simulated */
        s->step_s = column(header, rows[i], "step_ms") / 1e3;
        s->tokens_s = column(header, rows[i], "tokens/s");
        s->mfu = column(header, rows[i], "mfu");
        s->bubble = column(header, rows[i], "bubble");
        s->exposed_s = (column(header, rows[i], "tp_ms") + column(header, rows[i], "dp_ms")) / 1e3;
        s->failed = column(header, rows[i], "failed") > 0;
        s->done = true;
    }
}

static int run_sims(const char *self, const struct plan_opts *o, const struct scenario *sc,
                    const struct plan_space *sp, int k, struct plan_result *res)
{
    for (int run = 0; run < (o->under ? 2 : 1); run++) {
        char *header = NULL, **rows = xbt_new0(char *, k), file[PATH_MAX];
        int st = run == 0 ? 0 : plan_out_under_file(o, sc, file, sizeof file);
        if (st == 0) st = simulate(self, o, run == 0 ? o->file : file, sp->c, k, rows, &header);
        if (st == 0) read_rows(rows, header, k, res, run);
        for (int i = 0; i < k; i++)
            free(rows[i]);
        free(rows);
        free(header);
        if (st != 0) return st;
    }
    return 0;
}

/* Loads the scenario and the calibration, and checks that plan can work on them. */
static int load(const struct plan_opts *o, struct scenario *sc, struct calib *cal)
{
    struct dmlsim_error err = {0};
    enum dmlsim_err rc = scenario_load_with(o->file, o->ov, (size_t)o->nsets, sc, &err);
    struct gpt_config g;
    if (rc == DMLSIM_OK &&
        (sc->train.strategy != STRAT_HYBRID || !sc->has_cluster || sc->model.preset == NULL ||
         !model_transformer_shape(sc->model.preset, &g)))
        rc = dmlsim_fail(&err, DMLSIM_EVALUE,
                         "%s:%d: <training>: plan lays out a transformer preset over a "
                         "<cluster>; expected strategy=\"hybrid\", a <cluster> and a "
                         "transformer <model> preset",
                         o->file, sc->train.line);
    *cal = calib_default();
    char shipped[PATH_MAX];
    const char *cfile = o->calib ? datadir_calib(o->calib, shipped, sizeof shipped)
                                 : (rc == DMLSIM_OK ? sc->calib_file : NULL);
    if (rc == DMLSIM_OK && cfile) rc = calib_load(cfile, cal, &err);
    if (rc != DMLSIM_OK) {
        scenario_release(sc);
        return cli_fail(&err);
    }
    return 0;
}

/* Every layout enumerated and estimated, sorted by the estimate; the CPU seconds it took. */
static double enumerate(const struct scenario *sc, unsigned fixed, const struct calib *cal,
                        struct plan_space *sp)
{
    clock_t t0 = clock();
    plan_enumerate(sc, fixed, sp);
    struct plan_estimator *e = plan_est_new(sc, cal);
    for (int i = 0; i < sp->n; i++) {
        struct plan_est x;
        plan_est_run(e, &sp->c[i].p, sp->c[i].b, &x);
        sp->c[i].est_s = x.step_s;
    }
    plan_est_free(e);
    qsort(sp->c, (size_t)sp->n, sizeof sp->c[0], by_estimate);
    drop_twins(sp);
    return (double)(clock() - t0) / CLOCKS_PER_SEC;
}

int plan_main(const char *self, const struct cli_args *a)
{
    struct plan_opts o;
    int st = plan_out_parse(a, &o);
    struct scenario sc;
    struct calib cal;
    if (st == 0) st = load(&o, &sc, &cal);
    if (st != 0) {
        plan_out_release(&o);
        return st;
    }
    struct plan_space sp;
    double cpu = enumerate(&sc, o.fixed, &cal, &sp);
    int k = sp.n < o.top ? sp.n : o.top;
    struct plan_result *res = xbt_new0(struct plan_result, k ? k : 1);
    for (int i = 0; i < k; i++)
        res[i].c = &sp.c[i];
    plan_out_header(stdout, &o, &sc, &sp, cpu);
    if (k == 0) {
        fprintf(stderr,
                "%s:%d: <parallel>: no layout of the %d GPUs divides and fits; expected "
                "more GPUs, a smaller model or a smaller microbatch\n",
                o.file, sc.train.par.line, cluster_gpu_count(&sc.cluster));
        st = 1;
    } else if (!o.estimate_only) {
        st = run_sims(self, &o, &sc, &sp, k, res);
    }
    if (st == 0) st = plan_out_write(&o, &sc, res, k);
    free(res);
    plan_out_release(&o);
    plan_space_release(&sp);
    calib_release(&cal);
    scenario_release(&sc);
    return st;
}
