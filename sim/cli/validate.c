/* validate.c - dmlsim calib / shapes / validate (see validate.h). */
#include "validate.h"

#include "bench.h"
#include "calib.h"
#include "cmdline.h"
#include "gemm.h"
#include "kcost.h"
#include "model.h"
#include "platform.h"
#include "report.h"
#include "scenario.h"

#include <simgrid/engine.h>
#include <xbt/log.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail_msg(const struct dmlsim_error *err)
{
    fprintf(stderr, "%s\n", err->msg);
    return dmlsim_err_status(err->code);
}

/* ---- dmlsim shapes ------------------------------------------------------------------------ */

/* One preset's layer GEMMs not printed yet, each with its modelled efficiency on `g`. */
static void print_shapes(const char *preset, long batch, const struct gpu_model *g,
                         double seen[][3], size_t *nseen)
{
    struct model m;
    model_preset(preset, NULL, DTYPE_FP32, &m);
    for (size_t l = 0; l < m.nlayers; l++) {
        const struct layer *y = &m.layers[l];
        if (y->gemm_m <= 0) continue;
        double s[3] = {y->gemm_m, y->gemm_n * batch, y->gemm_k};
        bool dup = false;
        for (size_t i = 0; i < *nseen && !dup; i++)
            dup = seen[i][0] == s[0] && seen[i][1] == s[1] && seen[i][2] == s[2];
        if (dup || *nseen == 4096) continue;
        memcpy(seen[(*nseen)++], s, sizeof s);
        printf("%.0f %.0f %.0f   # %s %s:", s[0], s[1], s[2], preset, y->name);
        for (int d = DTYPE_FP32; d <= DTYPE_BF16; d += 2) { /* fp32 and fp16 */
            struct gemm_est e;
            gemm_estimate(g, (enum gpu_dtype)d, g->mem_bw_Bps * 0.92,
                          &(struct gemm_shape){s[0], s[1], s[2], 1}, &e);
            printf(" %s %.1f%% (tile %dx%d, split %.0f, %.0f wave%s%s)",
                   catalog_dtype_name((enum gpu_dtype)d), 100 * e.eff, e.tile_m, e.tile_n, e.split,
                   e.waves, e.waves == 1 ? "" : "s", e.memory_bound ? ", memory" : "");
        }
        putchar('\n');
    }
    model_release(&m);
}

/* --calib FILE: every GEMM the profile measured against the shape model on its GPU (at its
 * measured memory rate; a call at least one eager launch, as the calibrator's loop of calls), with
 * the geometric-mean error of the rows GEMM_K_FILL was fitted on (every third) and of the others.
 */
static int compare_shapes(const struct cli_args *a, const char *path)
{
    struct calib c;
    struct dmlsim_error err;
    if (calib_load(path, &c, &err) != DMLSIM_OK) return fail_msg(&err);
    const struct gpu_model *g = calib_gpu(&c);
    if (g == NULL) {
        calib_release(&c);
        return cli_error(a->cmd, "--calib: the profile's GPU is not in the catalog");
    }
    double mem = calib_memory_rate(&c, g), sum[2] = {0, 0}, worst[2] = {0, 0};
    int n[2] = {0, 0};
    printf("# GEMMs measured on %s (%s) against gemm.h's model at %.0f GB/s\n"
           "#dtype        M        N        K   measured    modelled    error  tile     split\n"
           "#                                  (TFLOP/s)   (TFLOP/s)      (%%)\n",
           g->name, path, mem / 1e9);
    for (size_t i = 0; i < c.ngemm; i++) {
        const struct calib_gemm *m = &c.gemm[i];
        struct gemm_est e;
        gemm_estimate(g, m->dtype, mem, &(struct gemm_shape){m->m, m->n, m->k, 1}, &e);
        /* the calibrator times back-to-back calls: each at least one launch (kcost.h) */
        double model = 2 * m->m * m->n * m->k / fmax(e.seconds, KCOST_LAUNCH_S);
        double l = fabs(log(model / m->flops_s));
        int set = i % 3 == 0 ? 0 : 1;
        sum[set] += l;
        worst[set] = fmax(worst[set], l);
        n[set]++;
        printf(" %5s %8.0f %8.0f %8.0f %10.2f %11.2f %+8.1f  %3dx%-3d %5.0f%s\n",
               catalog_dtype_name(m->dtype), m->m, m->n, m->k, m->flops_s / 1e12, model / 1e12,
               100 * (model / m->flops_s - 1), e.tile_m, e.tile_n, e.split,
               e.memory_bound ? " memory" : "");
    }
    for (int k = 0; k < 2; k++)
        if (n[k] > 0)
            printf("# %s (%d GEMMs): geometric-mean error %.1f%%, largest %.1f%%\n",
                   k ? "the other rows" : "every third row (GEMM_K_FILL fitted on these)", n[k],
                   100 * (exp(sum[k] / n[k]) - 1), 100 * (exp(worst[k]) - 1));
    calib_release(&c);
    return 0;
}

int validate_shapes_main(const struct cli_args *a)
{
    if (cli_value(a, CLI_CALIB) != NULL) return compare_shapes(a, cli_value(a, CLI_CALIB));
    long batch = 64;
    const char *b = cli_value(a, CLI_BATCH), *gname = cli_value(a, CLI_GPU);
    char *end = NULL;
    if (b != NULL) batch = strtol(b, &end, 10);
    if (batch < 1 || batch > 1000000 || (end && *end != '\0'))
        return cli_error(a->cmd, "--batch expects an integer from 1 to 1000000");
    const struct gpu_model *g = catalog_gpu(gname ? gname : "h100");
    if (g == NULL) return cli_error(a->cmd, "--gpu expects a catalog GPU (dmlsim catalog)");
    static const char *presets[] = {"resnet50",     "resnet101",  "vgg16",
                                    "inception-v3", "bert-large", "gpt"};
    printf("# GEMM shapes (M N K) of the model presets' layers at batch %ld, one per line:\n"
           "# conv = im2col (M = c_out, N = H_out W_out x batch, K = c_in k_h k_w), dense = "
           "(n_out, batch, n_in),\n# transformer block = its MLP (4h, seq x batch, h). Feed to "
           "dmlsim-calibrate -s FILE.\n# After each: its modelled efficiency on %s (gemm.h: "
           "fraction of the dtype's dense peak) in fp32 and fp16.\n",
           batch, g->name);
    static double seen[4096][3];
    size_t nseen = 0;
    for (size_t p = 0; p < sizeof presets / sizeof presets[0]; p++)
        print_shapes(presets[p], batch, g, seen, &nseen);
    return 0;
}

/* ---- dmlsim calib ------------------------------------------------------------------------- */

static void write_spec(const void *gpu, FILE *out)
{
    calib_write_spec(gpu, out);
}

/* dmlsim calib --spec GPU [-o FILE]. */
static int calib_spec(const struct cli_args *a, const char *gpu)
{
    const struct gpu_model *g = catalog_gpu(gpu);
    if (g == NULL) {
        char names[256], what[512];
        snprintf(what, sizeof what, "--spec: unknown gpu \"%s\"; expected one of: %s", gpu,
                 catalog_gpu_names(names, sizeof names));
        return cli_error(a->cmd, what);
    }
    const char *out = cli_value(a, CLI_OUT);
    if (out == NULL) {
        calib_write_spec(g, stdout);
        return 0;
    }
    struct report_output o = {"-o", out, write_spec, g};
    struct dmlsim_error err = {0};
    if (report_outputs_write(&o, 1, &err) != DMLSIM_OK) return fail_msg(&err);
    return 0;
}

int validate_calib_main(const struct cli_args *a)
{
    const char *spec = cli_value(a, CLI_SPEC);
    if (spec != NULL && a->nargs == 0) return calib_spec(a, spec);
    if (spec != NULL || a->nargs != 1 || cli_given(a, CLI_OUT))
        return cli_error(a->cmd, "expected FILE, or --spec GPU [-o FILE]");
    struct calib c;
    struct dmlsim_error err = {0};
    const char *path = a->args[0];
    if (calib_load(path, &c, &err) != DMLSIM_OK) return fail_msg(&err);
    const struct gpu_model *g = calib_gpu(&c);
    printf("# profile       %s\n# gpu           %s x %d (catalog: %s)\n", c.source,
           c.gpu_name[0] ? c.gpu_name : "unknown", c.gpu_count, g ? g->name : "no match");
    if (c.nodes > 0 || c.net[0] || c.skipped > 0)
        printf("# measured on   %d node(s)%s%s; %d line(s) not understood and skipped\n",
               c.nodes > 0 ? c.nodes : 1, c.net[0] ? ", NCCL network " : "", c.net, c.skipped);
    if (c.driver[0] || c.cuda[0] || c.nccl[0] || c.date[0])
        printf("# versions      driver %s, cuda %s, nccl %s, measured %s\n", c.driver, c.cuda,
               c.nccl, c.date);
    if (c.ngemm > 0) {
        printf("#\n#%6s %8s %8s %8s %12s %8s\n", "dtype", "M", "N", "K", "TFLOP/s", "of peak");
        for (size_t i = 0; i < c.ngemm; i++) {
            const struct calib_gemm *e = &c.gemm[i];
            double peak = g ? g->peak_flops[e->dtype] : 0;
            char eff[16] = "-";
            if (peak > 0) snprintf(eff, sizeof eff, "%.1f%%", 100 * e->flops_s / peak);
            printf(" %6s %8.0f %8.0f %8.0f %12.2f %8s\n", catalog_dtype_name(e->dtype), e->m, e->n,
                   e->k, e->flops_s / 1e12, eff);
        }
    }
    for (size_t i = 0; i < c.ncopy; i++)
        printf("# copy   %-14s %12.0f B %10.2f GB/s\n", c.copy[i].kind, c.copy[i].bytes,
               c.copy[i].Bps / 1e9);
    for (size_t i = 0; i < c.nkernel; i++)
        printf("# kernel %-14s %12.0f B %10.2f GB/s\n", c.kernel[i].kind, c.kernel[i].bytes,
               c.kernel[i].Bps / 1e9);
    if (c.nocoll[0]) printf("# collectives  not measured: %s\n", c.nocoll);
    for (int op = 0; op < 4; op++)
        for (int n = 2; n <= 64; n++) {
            struct calib_fit fit;
            if (calib_fit(&c, (enum coll_op)op, n, &fit) != 0) continue;
            printf("# fit %-13s n=%-3d %d sizes: latency %.3f us per step, bandwidth %.2f GB/s "
                   "(largest error of the fit %.1f%%)\n",
                   collective_op_name((enum coll_op)op), n, fit.points, fit.alpha_s * 1e6,
                   fit.bw_Bps / 1e9, 100 * fit.max_rel);
        }
    calib_release(&c);
    return 0;
}

/* ---- dmlsim validate and the network fit ------------------------------------------------- */

struct job {
    bool coll;        /* a collective (else a copy) */
    enum coll_op op;  /* collective */
    int nranks;       /* GPUs */
    int nodes;        /* nodes they spanned */
    char kind[64];    /* copy kind */
    double *sizes;    /* sizes */
    double *measured; /* measured times */
    size_t n;         /* number of sizes */
};

/* The machine a measurement is simulated on: GPU model, its intra-node class, the NIC class. */
struct machine {
    const struct gpu_model *gpu;
    const char *intra;
    const char *nic;
    int nics;               /* NICs per node; 0: one per GPU */
    enum coll_algo_id algo; /* the collectives' algorithm (nccl unless --algo) */
    bool sharp;             /* the switches reduce (--sharp) */
};

/* The NIC class for a multi-node log: the option, else InfiniBand of the GPU's generation (DGX
 * systems: V100 EDR, A100 HDR, H100 and later NDR), TCP when the log says NCCL used sockets. */
static const char *default_nic(const struct calib *c, const struct gpu_model *g, const char *opt)
{
    if (opt) return opt;
    if (strcmp(c->net, "Socket") == 0) return "tcp-100g";
    return g->sm >= 90 ? "ib-ndr" : g->sm >= 80 ? "ib-hdr" : g->sm >= 70 ? "ib-edr" : "ib-fdr";
}

static void machine_scenario(const struct job *j, const struct machine *mc, struct scenario *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->path = xbt_strdup("validate");
    sc->name = xbt_strdup("validate");
    sc->net_model = NET_CM02;
    sc->has_cluster = true;
    struct cluster_spec *c = &sc->cluster;
    int nodes = j->coll && j->nodes > 1 ? j->nodes : 1;
    c->nodes = nodes;
    c->gpus_per_node = j->coll ? j->nranks / nodes : 2;
    c->gpu = mc->gpu;
    c->intra = catalog_link(mc->intra);
    c->pcie = c->intra->kind == LINK_PCIE ? c->intra : catalog_link(mc->gpu->pcie);
    c->nic = nodes > 1 ? catalog_link(mc->nic) : NULL;
    c->nics_per_node = nodes > 1 ? (mc->nics > 0 ? mc->nics : c->gpus_per_node) : 1;
    c->topology = TOPO_STAR;
    c->sharp = mc->sharp && nodes > 1 && c->nic->kind == LINK_IB;
    c->nodes_per_leaf = nodes;
    c->spines = 1;
    c->oversubscription = 1;
}

/* Runs one job in this (child) process, with the network calibration nc (or NULL), and writes
 * the simulated times to fd. */
static void run_job(const struct job *j, const struct machine *mc, const struct netcal *nc, int fd)
{
    struct scenario sc;
    machine_scenario(j, mc, &sc);
    struct benchmark *b = &sc.bench;
    b->sizes = j->sizes;
    b->nsizes = j->n;
    b->timeout_s = 3600;
    b->factor = 2;
    b->begin_B = b->end_B = j->sizes[0];
    int argc = 1;
    char *argv[] = {"dmlsim", NULL};
    simgrid_init(&argc, argv);
    xbt_log_control_set("root.thres:critical");
    platform_configure(&sc);
    struct platform *pf = NULL;
    struct fault_plan plan = {0};
    struct dmlsim_error err = {0};
    double *out = xbt_new0(double, j->n);
    if (platform_setup(&sc, &plan, &pf, &err) == DMLSIM_OK) {
        if (j->coll) {
            b->kind = BENCH_COLLECTIVE;
            b->op = j->op;
            b->algo = mc->algo;
            b->nccl = (struct nccl_opts){.algo = -1, .proto = -1, .max_channels = 0};
            b->level = COLL_MESSAGE;
            b->chunks = 8;
            b->gpus = j->nranks;
            struct coll_result res;
            if (bench_coll_check(&sc, pf, &err) == DMLSIM_OK) {
                bench_coll_run(&sc, pf, nc, &res);
                for (size_t i = 0; i < j->n && i < res.nrows; i++)
                    out[i] = res.rows[i].time_s;
            }
        } else {
            bool h2d = strncmp(j->kind, "h2d", 3) == 0, peer = strcmp(j->kind, "peer") == 0;
            struct bench_pair pair = {
                    xbt_strdup(h2d ? "node0.cpu" : "node0.gpu0"),
                    xbt_strdup(h2d || peer ? (peer ? "node0.gpu1" : "node0.gpu0") : "node0.cpu"),
                    0};
            b->kind = BENCH_P2P;
            b->pairs = &pair;
            b->npairs = 1;
            struct p2p_result res;
            if (bench_check_hosts(&sc, &err) == DMLSIM_OK) {
                bench_p2p_run(&sc, &res);
                for (size_t i = 0; i < j->n && i < res.nrows; i++)
                    out[i] = res.rows[i].time_s;
            }
            free(pair.src);
            free(pair.dst);
        }
    }
    if (write(fd, out, j->n * sizeof *out) < 0) _exit(1);
    _exit(0);
}

static bool simulate(const struct job *j, const struct machine *mc, const struct netcal *nc,
                     double *sim)
{
    int fds[2];
    if (pipe(fds) != 0) return false;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        run_job(j, mc, nc, fds[1]);
    }
    close(fds[1]);
    size_t want = j->n * sizeof *sim, got = 0;
    ssize_t k;
    while (got < want && (k = read(fds[0], (char *)sim + got, want - got)) > 0)
        got += (size_t)k;
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    bool ok = got == want && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    for (size_t i = 0; ok && i < j->n; i++)
        ok = sim[i] > 0;
    return ok;
}

static void add_point(struct job *j, double size, double t)
{
    j->sizes = xbt_realloc(j->sizes, (j->n + 1) * sizeof *j->sizes);
    j->measured = xbt_realloc(j->measured, (j->n + 1) * sizeof *j->measured);
    j->sizes[j->n] = size;
    j->measured[j->n++] = t;
}

#define MAX_JOBS 64

/* Groups the measurements into jobs: one per (op, ranks, nodes) and per copy kind. */
static size_t make_jobs(const struct calib *c, bool copies, struct job *jobs)
{
    size_t njobs = 0;
    for (size_t i = 0; i < c->ncoll; i++) {
        const struct calib_coll *r = &c->coll[i];
        int nodes = r->nodes > 1 ? r->nodes : 1;
        size_t k = 0;
        while (k < njobs && !(jobs[k].coll && jobs[k].op == r->op && jobs[k].nranks == r->nranks &&
                              jobs[k].nodes == nodes))
            k++;
        if (k == njobs && njobs < MAX_JOBS && r->nranks >= 2 && r->nranks % nodes == 0)
            jobs[njobs++] =
                    (struct job){.coll = true, .op = r->op, .nranks = r->nranks, .nodes = nodes};
        if (k < njobs) add_point(&jobs[k], r->bytes, r->time_s);
    }
    for (size_t i = 0; copies && i < c->ncopy; i++) {
        if (strcmp(c->copy[i].kind, "d2d") == 0) continue; /* HBM is not a link: not simulated */
        size_t k = 0;
        while (k < njobs && (jobs[k].coll || strcmp(jobs[k].kind, c->copy[i].kind) != 0))
            k++;
        if (k == njobs && njobs < MAX_JOBS) {
            jobs[njobs] = (struct job){.coll = false};
            snprintf(jobs[njobs++].kind, sizeof jobs[0].kind, "%s", c->copy[i].kind);
        }
        if (k < njobs) add_point(&jobs[k], c->copy[i].bytes, c->copy[i].bytes / c->copy[i].Bps);
    }
    return njobs;
}

static void free_jobs(struct job *jobs, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        free(jobs[k].sizes);
        free(jobs[k].measured);
    }
}

#define FIT_ROUNDS 7    /* simulations per fit: the first uncalibrated, then secant steps */
#define FIT_MIN    0.02 /* the factor's range: a dilation cannot remove the wires' latency */
#define FIT_MAX    100.0

/* The most measurements (rows of collectives, copies) one validate or fit simulates, over all
 * its jobs: each is simulated up to FIT_ROUNDS + 2 times at message level, about 0.13 s a row
 * for 16 GPUs on 2 nodes (a 32-size log validates in 4 s), so 1,024 rows are minutes and a
 * 50 MB log (230,000 rows) would be hours. Beyond it the log is refused before any simulation. */
#define VALIDATE_MAX_ROWS 1024

/* A fit's rounds, then validate's uncalibrated and calibrated runs. */
#define SIMS_PER_ROW (FIT_ROUNDS + 2)

static enum dmlsim_err check_rows(const struct job *jobs, size_t njobs, const char *path,
                                  struct dmlsim_error *err)
{
    size_t total = 0, big = 0;
    for (size_t k = 0; k < njobs; k++) {
        total += jobs[k].n;
        if (jobs[k].n > jobs[big].n) big = k;
    }
    if (total <= VALIDATE_MAX_ROWS) return DMLSIM_OK;
    const struct job *j = &jobs[big];
    char what[128];
    if (j->coll)
        snprintf(what, sizeof what, "%s on %d GPU(s), %d node(s)", collective_op_name(j->op),
                 j->nranks, j->nodes);
    else
        snprintf(what, sizeof what, "copy %s", j->kind);
    return dmlsim_fail(err, DMLSIM_EVALUE,
                       "%s:0: %zu measured rows to simulate (%zu of them %s); expected at most %d "
                       "(each is simulated up to %d times): keep the runs to compare, e.g. one "
                       "nccl-tests sweep per collective",
                       path, total, j->n, what, VALIDATE_MAX_ROWS, SIMS_PER_ROW);
}

/* The curve of job j at the sizes selected by use (NULL: all) with factors f, into cur (whose
 * arrays x and y the caller provides). */
static void curve_of(const struct job *j, const bool *use, const double *f,
                     struct netcal_curve *cur, double *x, double *y)
{
    cur->n = 0;
    for (size_t i = 0; i < j->n; i++)
        if (!use || use[i]) x[cur->n] = j->sizes[i], y[cur->n++] = f[i];
    cur->size_B = x;
    cur->factor = y;
}

/* The next factor of one size: proportional after the uncalibrated run, then a secant step on
 * simulated time as a function of the factor (monotone: the factor dilates bytes and protocol
 * latencies), clamped. */
static double next_factor(double meas, double f, double sim, double fp, double sp, int round)
{
    double fn = f * meas / sim;
    if (round > 0 && fabs(sim - sp) > 1e-9 * meas && f != fp)
        fn = f + (meas - sim) * (f - fp) / (sim - sp);
    return fmin(FIT_MAX, fmax(FIT_MIN, fn));
}

/* Fits the curve of job j on the sizes selected by `use` (NULL: all): for each size the factor
 * whose calibrated simulation comes closest to the measured time over FIT_ROUNDS simulations.
 * Adds it to nc; false if a simulation failed. */
static bool fit_job(const struct job *j, const struct machine *mc, const bool *use,
                    const struct calib *c, struct netcal *nc)
{
    struct netcal_curve cur = {
            .op = (int)j->op, .multinode = j->nodes > 1, .nranks = j->nranks, .nodes = j->nodes};
    snprintf(cur.gpu, sizeof cur.gpu, "%s", mc->gpu->name);
    size_t n = j->n;
    double *sim = xbt_new0(double, n), *f = xbt_new0(double, n), *fp = xbt_new0(double, n);
    double *sp = xbt_new0(double, n), *best = xbt_new0(double, n), *err = xbt_new0(double, n);
    double *x = xbt_new0(double, n), *y = xbt_new0(double, n);
    for (size_t i = 0; i < n; i++)
        f[i] = best[i] = 1, err[i] = INFINITY;
    bool ok = true;
    for (int round = 0; round < FIT_ROUNDS && ok; round++) {
        struct netcal trial = {0};
        curve_of(j, use, f, &cur, x, y);
        if (round > 0) netcal_add(&trial, &cur);
        ok = simulate(j, mc, round > 0 ? &trial : NULL, sim);
        netcal_release(&trial);
        for (size_t i = 0; ok && i < n; i++) {
            double e = fabs(sim[i] - j->measured[i]);
            if (e < err[i]) err[i] = e, best[i] = f[i];
            double fn = next_factor(j->measured[i], f[i], sim[i], fp[i], sp[i], round);
            fp[i] = f[i], sp[i] = sim[i], f[i] = fn;
        }
    }
    if (ok) {
        curve_of(j, use, best, &cur, x, y);
        netcal_add(nc, &cur);
    }
    snprintf(nc->source, sizeof nc->source, "%.200s", c->source);
    free(sim);
    free(f);
    free(fp);
    free(sp);
    free(best);
    free(err);
    free(x);
    free(y);
    return ok;
}

enum dmlsim_err validate_fit_network(struct calib *c, const char *path, const char *gpu,
                                     const char *nic, struct dmlsim_error *err)
{
    if (c->ncoll == 0) return DMLSIM_OK;
    const struct gpu_model *g = gpu ? catalog_gpu(gpu) : calib_gpu(c);
    if (g == NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:0: cannot tell which catalog GPU the collectives were measured on "
                           "(\"%s\"); expected rank lines, a \"gpu NAME\" record or a \"# "
                           "dmlsim-gpu NAME\" line naming a catalog GPU",
                           path, c->gpu_name);
    struct machine mc = {g, g->intra, default_nic(c, g, nic), 0, COLL_ALGO_DEFAULT, false};
    struct job jobs[MAX_JOBS];
    size_t njobs = make_jobs(c, false, jobs);
    struct netcal *nc = xbt_new0(struct netcal, 1);
    enum dmlsim_err rc = check_rows(jobs, njobs, path, err);
    for (size_t k = 0; k < njobs && rc == DMLSIM_OK; k++)
        if (!fit_job(&jobs[k], &mc, NULL, c, nc))
            rc = dmlsim_fail(err, DMLSIM_EVALUE,
                             "%s:0: simulating the measured %s on %d GPU(s) failed; expected a "
                             "configuration the catalog can build",
                             path, collective_op_name(jobs[k].op), jobs[k].nranks);
    free_jobs(jobs, njobs);
    if (rc != DMLSIM_OK) {
        netcal_release(nc);
        free(nc);
        return rc;
    }
    c->netcal = nc;
    return DMLSIM_OK;
}

static double geo_mean(const double *e, size_t n)
{
    double log_sum = 0;
    for (size_t i = 0; i < n; i++)
        log_sum += log(fmax(fabs(e[i]), 1e-6));
    return n ? exp(log_sum / (double)n) : 0;
}

/* One collective job: uncalibrated simulation of every size, then a fit on every other size
 * (even positions) and a calibrated simulation whose errors are reported on the others. */
static int validate_coll(const struct job *j, const struct machine *mc, const struct calib *c)
{
    double *sim = xbt_new0(double, j->n), *cal = xbt_new0(double, j->n);
    double *e0 = xbt_new0(double, j->n), *e1 = xbt_new0(double, j->n);
    bool *use = xbt_new0(bool, j->n);
    const char *name = collective_op_name(j->op);
    struct netcal nc = {0};
    int status = 0;
    for (size_t i = 0; i < j->n; i++)
        use[i] = i % 2 == 0;
    bool ok =
            simulate(j, mc, NULL, sim) && fit_job(j, mc, use, c, &nc) && simulate(j, mc, &nc, cal);
    if (!ok) {
        printf("# %s on %d GPU(s): the simulation failed\n", name, j->nranks);
        status = 1;
    }
    size_t nheld = 0;
    for (size_t i = 0; ok && i < j->n; i++) {
        e0[i] = (sim[i] - j->measured[i]) / j->measured[i];
        double e = (cal[i] - j->measured[i]) / j->measured[i];
        if (!use[i]) e1[nheld++] = e;
        printf(" %13s %6d %5d %14.0f %12.2f %12.2f %+8.1f %12.2f %+8.1f %s\n", name, j->nranks,
               j->nodes, j->sizes[i], j->measured[i] * 1e6, sim[i] * 1e6, 100 * e0[i], cal[i] * 1e6,
               100 * e, use[i] ? "fit" : "held-out");
    }
    if (ok) {
        printf("# geometric-mean error %s %d GPU(s) %d node(s): uncalibrated %.1f%% over %zu "
               "sizes; calibrated %.1f%% over the %zu held-out sizes\n",
               name, j->nranks, j->nodes, 100 * geo_mean(e0, j->n), j->n, 100 * geo_mean(e1, nheld),
               nheld);
        struct calib_fit fit;
        if (j->nodes == 1 && calib_fit(c, j->op, j->nranks, &fit) == 0)
            printf("# alpha-beta fit latency %.3f us per step, bandwidth %.2f GB/s (largest error "
                   "of the fit %.1f%%)\n",
                   fit.alpha_s * 1e6, fit.bw_Bps / 1e9, 100 * fit.max_rel);
    }
    netcal_release(&nc);
    free(sim);
    free(cal);
    free(e0);
    free(e1);
    free(use);
    return status;
}

static int validate_copy(const struct job *j, const struct machine *mc)
{
    double *sim = xbt_new0(double, j->n), *e = xbt_new0(double, j->n);
    int status = 0;
    if (!simulate(j, mc, NULL, sim)) {
        printf("# %s: the simulation failed\n", j->kind);
        status = 1;
    } else {
        for (size_t i = 0; i < j->n; i++) {
            e[i] = (sim[i] - j->measured[i]) / j->measured[i];
            printf(" %13s %6d %5d %14.0f %12.2f %12.2f %+8.1f %12s %8s %s\n", j->kind, 1, 1,
                   j->sizes[i], j->measured[i] * 1e6, sim[i] * 1e6, 100 * e[i], "-", "-", "-");
        }
        printf("# geometric-mean error %s: %.1f%% over %zu sizes\n", j->kind,
               100 * geo_mean(e, j->n), j->n);
    }
    free(sim);
    free(e);
    return status;
}

/* validate's options into its variables; 0, or 1 with the message printed. */
static int validate_options(const struct cli_args *a, const char **gpu_name, const char **intra,
                            const char **nic, const char **algo, long *nics, bool *sharp)
{
    *gpu_name = cli_value(a, CLI_GPU);
    *intra = cli_value(a, CLI_INTRA);
    *nic = cli_value(a, CLI_NIC);
    *algo = cli_value(a, CLI_ALGO) ? cli_value(a, CLI_ALGO) : "nccl";
    *sharp = cli_given(a, CLI_SHARP) > 0;
    const char *n = cli_value(a, CLI_NICS);
    char *end = NULL;
    *nics = n ? strtol(n, &end, 10) : 0;
    if (n != NULL && (*end != '\0' || *nics < 1 || *nics > 64))
        return cli_error(a->cmd, "--nics expects an integer from 1 to 64");
    return 0;
}

int validate_main(const struct cli_args *a)
{
    const char *path = a->args[0], *gpu_name, *intra, *nic, *algo;
    long nics;
    bool sharp;
    if (validate_options(a, &gpu_name, &intra, &nic, &algo, &nics, &sharp) != 0) return 1;
    struct calib c;
    struct dmlsim_error err = {0};
    if (calib_load(path, &c, &err) != DMLSIM_OK) return fail_msg(&err);
    const struct gpu_model *g = gpu_name ? catalog_gpu(gpu_name) : calib_gpu(&c);
    if (g == NULL) {
        char names[512];
        fprintf(stderr,
                "%s:0: cannot tell which catalog GPU this profile was measured on (\"%s\"); "
                "expected --gpu with one of: %s\n",
                path, c.gpu_name, catalog_gpu_names(names, sizeof names));
        calib_release(&c);
        return 1;
    }
    struct machine mc = {g,         intra ? intra : g->intra, default_nic(&c, g, nic),
                         (int)nics, COLL_ALGO_DEFAULT,        sharp};
    if (!coll_algo_find(algo, &mc.algo)) {
        fprintf(stderr, "dmlsim: validate: --algo \"%s\": expected one of: %s\n", algo,
                coll_algo_names());
        calib_release(&c);
        return 1;
    }
    const struct link_class *lc = catalog_link(mc.intra), *nl = catalog_link(mc.nic);
    if (lc == NULL || (lc->kind != LINK_NVLINK && lc->kind != LINK_PCIE) || nl == NULL ||
        !catalog_link_is_network(nl)) {
        fprintf(stderr,
                "dmlsim: validate: --intra \"%s\" / --nic \"%s\": expected an nvlink or pcie "
                "class and a network class (dmlsim catalog)\n",
                mc.intra, mc.nic);
        calib_release(&c);
        return 1;
    }
    struct job jobs[MAX_JOBS];
    size_t njobs = make_jobs(&c, true, jobs);
    if (check_rows(jobs, njobs, path, &err) != DMLSIM_OK) {
        free_jobs(jobs, njobs);
        calib_release(&c);
        return fail_msg(&err);
    }
    printf("# dmlsim validate %s\n# profile       %s\n", path, c.source);
    char per[32] = "one per GPU";
    if (nics > 0) snprintf(per, sizeof per, "%ld per node", nics);
    printf("# simulated on  %s, GPU-to-GPU over %s, %s between nodes (%s%s), host copies over %s; "
           "collectives with algo %s\n",
           g->name, mc.intra, mc.nic, per, sharp ? ", SHARP switches" : "",
           lc->kind == LINK_PCIE ? mc.intra : g->pcie, coll_algo_name(mc.algo));
    printf("# calibrated    fitted on the sizes marked fit (every other one), reported on the "
           "held-out ones\n");
    if (c.nocoll[0]) printf("# collectives   not measured: %s\n", c.nocoll);
    printf("#\n#%13s %6s %5s %14s %12s %12s %8s %12s %8s\n", "operation", "ranks", "nodes", "size",
           "measured", "simulated", "error", "calibrated", "error");
    printf("#%13s %6s %5s %14s %12s %12s %8s %12s %8s\n", "", "", "", "(B)", "(us)", "(us)", "(%)",
           "(us)", "(%)");
    int status = 0;
    for (size_t k = 0; k < njobs; k++)
        status |= jobs[k].coll ? validate_coll(&jobs[k], &mc, &c) : validate_copy(&jobs[k], &mc);
    free_jobs(jobs, njobs);
    calib_release(&c);
    return status;
}
