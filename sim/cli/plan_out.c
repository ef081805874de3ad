/* plan_out.c - `dmlsim plan`'s options and outputs (see plan_out.h). */
#include "plan_out.h"

#include "cli_sets.h"
#include "cmdline.h"
#include "gnuplot.h"
#include "xmldoc.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <xbt/str.h>
#include <xbt/sysdep.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int plan_out_parse(const struct cli_args *a, struct plan_opts *o)
{
    memset(o, 0, sizeof *o);
    o->file = a->args[0];
    o->top = 8;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cores > 0 ? (int)cores : 1;
    o->calib = cli_value(a, CLI_CALIB);
    o->under = cli_value(a, CLI_UNDER);
    o->estimate_only = cli_given(a, CLI_ESTIMATE);
    const char *v;
    char *end;
    if (cli_sets_parse(a, &o->ov, &o->keys, &o->sets, &o->nsets) != 0) return 1;
    if ((v = cli_value(a, CLI_TOP)) != NULL) {
        long k = strtol(v, &end, 10);
        if (*end || k < 1 || k > 64) return cli_error(a->cmd, "--top: expected 1 .. 64");
        o->top = (int)k;
    }
    o->limit_s = 30;
    if ((v = cli_value(a, CLI_FIX)) != NULL) {
        char list[256], *save, *name;
        o->fix_names = v;
        snprintf(list, sizeof list, "%s", v);
        for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
            unsigned bit = plan_fix_bit(name);
            if (bit == 0)
                return cli_error(a->cmd, "--fix: expected names among zero, recompute, "
                                         "sequence-parallel, order, cp");
            o->fixed |= bit;
        }
    }
    if ((v = cli_value(a, CLI_LIMIT)) != NULL) {
        double t = strtod(v, &end);
        if (*end || !(t >= 1 && t <= 86400))
            return cli_error(a->cmd, "--sim-limit: expected 1 .. 86400 CPU seconds");
        o->limit_s = t;
    }
    if ((v = cli_value(a, CLI_JOBS)) != NULL) {
        long j = strtol(v, &end, 10);
        if (*end || j < 1 || j > 256) return cli_error(a->cmd, "--jobs: expected 1 .. 256");
        o->jobs = (int)j;
    }
    const char *base = strrchr(o->file, '/') ? strrchr(o->file, '/') + 1 : o->file;
    int n = snprintf(o->out, sizeof o->out, "plan-%.*s", (int)strcspn(base, "."), base);
    if ((v = cli_value(a, CLI_OUT)) != NULL) n = snprintf(o->out, sizeof o->out, "%s", v);
    if (n < 0 || (size_t)n >= sizeof o->out - 32) return cli_error(a->cmd, "--output: too long");
    return 0;
}

void plan_out_header(FILE *out, const struct plan_opts *o, const struct scenario *sc,
                     const struct plan_space *sp, double cpu_s)
{
    const struct cluster_spec *cl = &sc->cluster;
    long aside = 0;
    for (int r = 0; r < PLAN_REJECTS; r++)
        aside += sp->rejected[r];
    fprintf(out,
            "# plan          %s: %s on %d %s (%d a node), global batch %d x %d tokens, %s, %s\n",
            o->file, sc->model.preset, cluster_gpu_count(cl), cl->gpu->name, cl->gpus_per_node,
            sp->global_batch, sc->model.gpt.seq, catalog_dtype_name(sc->train.dtype),
            model_optimizer_name(sc->train.opt));
    fprintf(out,
            "# layouts       %ld considered, %d kept, %ld twins (the same estimate as one kept, "
            "only its recomputation or order differing), %ld set aside\n",
            sp->considered, sp->n, sp->twins, aside);
    for (int r = 0; r < PLAN_REJECTS; r++)
        if (sp->rejected[r] > 0)
            fprintf(out, "# set aside     %8ld  %s (first: %s)\n", sp->rejected[r],
                    plan_reject_why((enum plan_reject)r), sp->example[r]);
    if (o->fixed) fprintf(out, "# fixed         %s, as the scenario has them\n", o->fix_names);
    if (o->estimate_only)
        fprintf(out, "# ranked        by the first-order estimate alone (--estimate-only)\n");
    else
        fprintf(out, "# simulated     the best %d by the first-order estimate, %d at a time%s%s\n",
                sp->n < o->top ? sp->n : o->top, o->jobs, o->under ? "; again under " : "",
                o->under ? o->under : "");
    fprintf(stderr, "dmlsim plan: %ld layouts enumerated and %d estimated in %.3f CPU s\n",
            sp->considered, sp->n, cpu_s);
}

/* The scenario document of path, or NULL with the message printed. */
static xmlDocPtr read_doc(const char *path)
{
    xmlDocPtr doc = NULL;
    struct dmlsim_error err = {0};
    if (xmldoc_read(path, &doc, &err) != DMLSIM_OK) {
        cli_fail(&err);
        return NULL;
    }
    return doc;
}

void plan_out_release(struct plan_opts *o)
{
    cli_sets_free(o->ov, o->keys, o->sets, o->nsets);
}

/* The scenario's document with the --set overrides and, unless NULL, layout c's attributes on
 * top, applied as `dmlsim run` applies them (scenario_override_doc); or NULL with the message
 * printed. */
static xmlDocPtr layout_doc(const struct plan_opts *o, const struct scenario *sc,
                            const struct plan_cand *c)
{
    xmlDocPtr doc = read_doc(sc->path);
    if (doc == NULL) return NULL;
    struct scenario_override ax[PLAN_AXES_MAX];
    char *vals[PLAN_AXES_MAX];
    int n = 0;
    for (int a = 0; c && plan_axis_path(a) && n < PLAN_AXES_MAX; a++, n++) {
        vals[n] = plan_axis_value(c, a);
        ax[n] = (struct scenario_override){plan_axis_path(a), vals[n]};
    }
    struct dmlsim_error err = {0};
    enum dmlsim_err rc = scenario_override_doc(sc->path, doc, o->ov, (size_t)o->nsets, &err);
    if (rc == DMLSIM_OK) rc = scenario_override_doc(sc->path, doc, ax, (size_t)n, &err);
    for (int i = 0; i < n; i++)
        free(vals[i]);
    if (rc == DMLSIM_OK) return doc;
    cli_fail(&err);
    xmlFreeDoc(doc);
    return NULL;
}

/* Removes every child <name> of root. */
static void remove_children(xmlNodePtr root, const char *name)
{
    xmlNodePtr n = root->children;
    while (n) {
        xmlNodePtr next = n->next;
        if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0) {
            xmlUnlinkNode(n);
            xmlFreeNode(n);
        }
        n = next;
    }
}

int plan_out_under_file(const struct plan_opts *o, const struct scenario *sc, char *path,
                        size_t len)
{
    xmlDocPtr doc = layout_doc(o, sc, NULL), faults = read_doc(o->under);
    xmlNodePtr f = faults ? xmlDocGetRootElement(faults) : NULL;
    int st = doc && faults ? 0 : 1;
    if (st == 0 && (f == NULL || strcmp((const char *)f->name, "faults") != 0)) {
        fprintf(stderr, "%s:%ld: --under: root <%s>; expected a <faults> element\n", o->under,
                f ? xmlGetLineNo(f) : 0L, f ? (const char *)f->name : "");
        st = 1;
    }
    if (st == 0) {
        xmlNodePtr root = xmlDocGetRootElement(doc);
        remove_children(root, "faults");
        remove_children(root, "expect");
        xmlAddChild(root, xmlDocCopyNode(f, doc, 1));
        mkdir(o->out, 0755);
        snprintf(path, len, "%s/under.xml", o->out);
        if (xmlSaveFile(path, doc) < 0) {
            fprintf(stderr, "%s:0: cannot write: %s; expected a folder that can be written\n", path,
                    strerror(errno));
            st = 1;
        }
    }
    xmlFreeDoc(doc);
    xmlFreeDoc(faults);
    return st;
}

/* The scenario with layout c's attributes, as o->out/rank-K.xml. */
static int write_layout(const struct plan_opts *o, const struct scenario *sc,
                        const struct plan_cand *c, int rank)
{
    xmlDocPtr doc = layout_doc(o, sc, c);
    if (doc == NULL) return 1;
    char file[PATH_MAX];
    snprintf(file, sizeof file, "%s/rank-%d.xml", o->out, rank);
    int st = xmlSaveFile(file, doc) < 0;
    if (st) fprintf(stderr, "%s:0: cannot write; expected a folder that can be written\n", file);
    xmlFreeDoc(doc);
    return st;
}

/* The step a result is ranked by. */
static double rank_key(const struct plan_opts *o, const struct plan_result *r)
{
    if (o->estimate_only) return r->c->est_s;
    const struct plan_sim *s = &r->sim[o->under ? 1 : 0];
    return s->done && !s->failed ? s->step_s : 1e12 + r->c->est_s; /* then the rest */
}

static int by_rank(const void *a, const void *b)
{
    const struct plan_result *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->c->id - y->c->id;
}

static void print_table(FILE *out, const struct plan_opts *o, const struct plan_result *res, int k)
{
    fprintf(out, "#%-4s %-58s %10s %10s %10s %7s %9s %7s %10s%s  %s\n", "rank", "layout", "est_ms",
            "step_ms", "tokens/s", "mfu", "memory_GB", "bubble", "exposed_ms",
            o->under ? "   under_ms" : "", "file");
    for (int i = 0; i < k; i++) {
        const struct plan_result *r = &res[i];
        const struct plan_sim *s = &r->sim[0];
        char lay[128], under[16] = "";
        plan_describe(&r->c->p, r->c->b, lay, sizeof lay);
        if (o->under && r->sim[1].done)
            snprintf(under, sizeof under, " %10.1f", r->sim[1].step_s * 1e3);
        else if (o->under)
            snprintf(under, sizeof under, " %10s", "-");
        if (s->done)
            fprintf(out,
                    " %-4d %-58s %10.1f %10.1f %10.0f %7.4f %9.2f %7.4f %10.1f%s  %s/rank-%d.xml\n",
                    i + 1, lay, r->c->est_s * 1e3, s->step_s * 1e3, s->tokens_s, s->mfu,
                    r->c->mem.total_B / 1e9, s->bubble, s->exposed_s * 1e3, under, o->out, i + 1);
        else
            fprintf(out, " %-4d %-58s %10.1f %10s %10s %7s %9.2f %7s %10s%s  %s/rank-%d.xml\n",
                    i + 1, lay, r->c->est_s * 1e3, "-", "-", "-", r->c->mem.total_B / 1e9, "-", "-",
                    under, o->out, i + 1);
    }
    int left = 0;
    for (int i = 0; i < k; i++)
        left += !o->estimate_only && (!res[i].sim[0].done || (o->under && !res[i].sim[1].done));
    if (left)
        fprintf(out,
                "# not simulated %d layout(s) over --sim-limit (%.0f CPU s) or failed: "
                "ranked by their estimate after the simulated ones\n",
                left, o->limit_s);
}

/* DIR/plan.csv: a header row, then per rank its layout's short label (tp x pp x dp, v chunks, cp,
 * microbatch size, ZeRO, recomputation, sp: no comma), the simulated and estimated steps (ms),
 * the step under the faults and MFU (%), for plots/plan.gp, which reads it by column name. */
static int write_dat(const struct plan_opts *o, const struct plan_result *res, int k)
{
    char file[PATH_MAX];
    snprintf(file, sizeof file, "%s/plan.csv", o->out);
    FILE *f = fopen(file, "w");
    if (f == NULL) return 1;
    fprintf(f, "rank,label,step_ms,est_ms,under_ms,mfu_pct\n");
    for (int i = 0; i < k; i++) {
        const struct parallel_spec *p = &res[i].c->p;
        char sched[8] = "", cp[12] = "";
        if (p->schedule == PP_INTERLEAVED) snprintf(sched, sizeof sched, "v%d", p->vstages);
        if (par_cp(p) > 1) snprintf(cp, sizeof cp, " cp%d", p->cp);
        fprintf(f, "%d,%dx%dx%d%s%s b%d z%d %s%s,%.3f,%.3f,%.3f,%.2f\n", i + 1, p->tp, p->pp, p->dp,
                sched, cp, res[i].c->b, p->zero, scenario_recompute_name(p->recompute),
                p->sp ? " sp" : "", res[i].sim[0].step_s * 1e3, res[i].c->est_s * 1e3,
                res[i].sim[1].step_s * 1e3, res[i].sim[0].mfu * 100);
    }
    return fclose(f) != 0;
}

/* plots/plan.gp on plan.csv, when gnuplot is on the PATH; a line says. */
static void plot(FILE *out, const struct plan_opts *o)
{
    char vars[3 * PATH_MAX];
    snprintf(vars, sizeof vars, "dat='%s/plan.csv'; out='%s/plan.png'; under=%d", o->out, o->out,
             o->under != NULL);
    enum gnuplot_status g = gnuplot_draw("plots/plan.gp", vars);
    if (g == GNUPLOT_NO_SCRIPT)
        fprintf(out, "# plot          plots/plan.gp not found: %s/plan.csv left to draw\n", o->out);
    else if (g == GNUPLOT_FAILED)
        fprintf(out,
                "# plot          gnuplot failed or is not installed: %s/plan.csv left to "
                "draw with plots/plan.gp\n",
                o->out);
    else
        fprintf(out, "# plot          %s/plan.png\n", o->out);
}

int plan_out_write(const struct plan_opts *o, const struct scenario *sc, struct plan_result *res,
                   int k)
{
    for (int i = 0; i < k; i++)
        res[i].key = rank_key(o, &res[i]);
    qsort(res, (size_t)k, sizeof res[0], by_rank);
    print_table(stdout, o, res, k);
    if (mkdir(o->out, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr,
                "%s:0: -o: cannot create the folder: %s; expected a path in an existing "
                "folder that can be written\n",
                o->out, strerror(errno));
        return 1;
    }
    int st = 0;
    for (int i = 0; i < k && st == 0; i++)
        st = write_layout(o, sc, res[i].c, i + 1);
    char file[PATH_MAX];
    snprintf(file, sizeof file, "%s/plan.txt", o->out);
    FILE *f = st == 0 ? fopen(file, "w") : NULL;
    if (f) {
        print_table(f, o, res, k);
        st = fclose(f) != 0;
    }
    if (st == 0 && f && !o->estimate_only && write_dat(o, res, k) == 0) plot(stdout, o);
    if (st != 0 || f == NULL)
        fprintf(stderr,
                "%s:0: cannot write the plan's files; expected a folder that can be "
                "written\n",
                o->out);
    return st != 0 || f == NULL;
}
