/* validate.c - dmlsim calib / shapes / validate (see validate.h). */
#include "validate.h"

#include "bench.h"
#include "calib.h"
#include "cmdline.h"
#include "gemm.h"
#include "kcost.h"
#include "model.h"
#include "nccl_tune.h"
#include "outfile.h"
#include "platform.h"
#include "scenario.h"

#include <simgrid/engine.h>
#include <xbt/log.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <ctype.h>
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
    struct outfile o = {"-o", out, write_spec, g};
    struct dmlsim_error err = {0};
    if (outfile_write(&o, 1, &err) != DMLSIM_OK) return fail_msg(&err);
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
    for (size_t i = 0; i < c.nrun; i++)
        printf("# read          line %d: %s\n", c.run[i].line, c.run[i].read);
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
    int gpus_per_thread; /* GPUs one thread of the test drove (0 unknown): the host's launch
                            floor of a call, nccl_launch_floor_s */
    char kind[64];    /* copy kind */
    double *sizes;    /* sizes */
    double *measured; /* measured times */
    size_t n;         /* number of sizes */
};

/* The machine a measurement is simulated on: GPU model, its intra-node class, the NIC class, and
 * how its collectives run. */
struct machine {
    const struct gpu_model *gpu;
    const char *intra;
    const char *nic;
    int nics;               /* NICs per node; 0: one per GPU */
    enum coll_algo_id algo; /* the collectives' algorithm: nccl, or a textbook one (--algo) */
    struct nccl_opts nccl;  /* NCCL_ALGO, NCCL_PROTO, NCCL_MAX_NCHANNELS (--algo, --proto,
                               --channels); -1, -1, 0: NCCL's own choice */
    bool sharp;             /* the switches reduce (--sharp) */
    int level;              /* -1: each size at the level validate_level picks; else every size
                               at this enum coll_level (DMLSIM_VALIDATE_LEVEL, for tests) */
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

#define CHOICE_LEN 48 /* struct coll_row's choice */

/* What one simulation of a job gives back per size: the time and NCCL's plan. */
struct sim_out {
    double time_s;
    char choice[CHOICE_LEN];
};

/* Runs the sizes idx[0 .. m) of job j in this (child) process at `level`, with the network
 * calibration nc (or NULL), and writes their sim_out to fd. */
static void run_job(const struct job *j, const struct machine *mc, const struct netcal *nc,
                    enum coll_level level, const size_t *idx, size_t m, int fd)
{
    struct scenario sc;
    machine_scenario(j, mc, &sc);
    struct benchmark *b = &sc.bench;
    double *sizes = xbt_new0(double, m);
    for (size_t i = 0; i < m; i++)
        sizes[i] = j->sizes[idx[i]];
    b->sizes = sizes;
    b->nsizes = m;
    b->timeout_s = 3600;
    b->factor = 2;
    b->begin_B = b->end_B = sizes[0];
    int argc = 1;
    char *argv[] = {"dmlsim", NULL};
    simgrid_init(&argc, argv);
    xbt_log_control_set("root.thres:critical");
    platform_configure(&sc);
    struct platform *pf = NULL;
    struct fault_plan plan = {0};
    struct dmlsim_error err = {0};
    struct sim_out *out = xbt_new0(struct sim_out, m);
    if (platform_setup(&sc, &plan, &pf, &err) == DMLSIM_OK) {
        if (j->coll) {
            b->kind = BENCH_COLLECTIVE;
            b->op = j->op;
            b->algo = mc->algo;
            b->nccl = mc->nccl;
            b->level = level;
            b->chunks = 8;
            b->gpus = j->nranks;
            struct coll_result res;
            if (bench_coll_check(&sc, pf, &err) == DMLSIM_OK) {
                bench_coll_run(&sc, pf, nc, &res);
                for (size_t i = 0; i < m && i < res.nrows; i++) {
                    out[i].time_s = res.rows[i].time_s;
                    snprintf(out[i].choice, CHOICE_LEN, "%s", res.rows[i].choice);
                }
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
                for (size_t i = 0; i < m && i < res.nrows; i++)
                    out[i].time_s = res.rows[i].time_s;
            }
            free(pair.src);
            free(pair.dst);
        }
    }
    if (write(fd, out, m * sizeof *out) < 0) _exit(1);
    _exit(0);
}

/* Starts a child simulating the sizes idx[0 .. m) of j at `level`; its pid, and the read end of
 * its pipe in *fd; -1 if it could not start. */
static pid_t start_sim(const struct job *j, const struct machine *mc, const struct netcal *nc,
                       enum coll_level level, const size_t *idx, size_t m, int *fd)
{
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        run_job(j, mc, nc, level, idx, m, fds[1]);
    }
    close(fds[1]);
    *fd = fds[0];
    if (pid < 0) close(fds[0]);
    return pid;
}

/* Reads the child's m results into out[idx[i]] and reaps it; false if it failed. */
static bool finish_sim(pid_t pid, int fd, const size_t *idx, size_t m, struct sim_out *out)
{
    struct sim_out *buf = xbt_new0(struct sim_out, m);
    size_t want = m * sizeof *buf, got = 0;
    ssize_t k;
    while (got < want && (k = read(fd, (char *)buf + got, want - got)) > 0)
        got += (size_t)k;
    close(fd);
    int st;
    waitpid(pid, &st, 0);
    bool ok = got == want && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    for (size_t i = 0; ok && i < m; i++) {
        ok = buf[i].time_s > 0;
        out[idx[i]] = buf[i];
    }
    free(buf);
    return ok;
}

/* ---- the level of each size ---------------------------------------------------------------- */

/* At message level every step of every channel is a SimGrid message: at 16 nodes x 8 H100 an
 * all-reduce of 4 GiB (NCCL's ring, 16 channels) is about a million of them, 54 CPU s, and a log
 * is simulated up to FIT_ROUNDS + 1 times. Flow level (one flow per ring edge and phase) takes
 * 0.1 s for the same call. The two agree where the call is bandwidth-bound: on H100 and A100
 * clusters of 1 x 8 to 16 x 8 GPUs (all-reduce, all-gather, reduce-scatter, 8 B to 16 GiB),
 * flow level is within 0.2% of message level for NVLS and 1% for trees below 1 MiB, but up to
 * 25% faster for rings and trees between 128 KiB and 128 MiB (where per-step pipelining is the
 * message level's own), and within 5.8% from 256 MiB up (typically under 2%; the 5.8% is an
 * all-gather of 2 GiB on 16 x 8; tests/validate_logs.sh checks 4 x 2: at most 1.5%). So: flow level
 * from VALIDATE_FLOW_BYTES up, on VALIDATE_FLOW_NODES nodes or more (where message level costs
 * minutes; on fewer nodes every size stays at message level, as before), for the collectives
 * that have a flow level (NCCL's and the textbook ring's all-reduce, all-gather and
 * reduce-scatter; broadcast and all-to-all run the same at either level). */
#define VALIDATE_FLOW_BYTES (256.0 * 1024 * 1024)
#define VALIDATE_FLOW_NODES 4

static enum coll_level validate_level(enum coll_op op, enum coll_algo_id algo, int nranks,
                                      int nodes, double size)
{
    (void)nranks;
    bool flow = coll_algo_has_flow(algo) && op != COLL_BROADCAST && op != COLL_ALLTOALL &&
                nodes >= VALIDATE_FLOW_NODES && size >= VALIDATE_FLOW_BYTES;
    return flow ? COLL_FLOW : COLL_MESSAGE;
}

/* The level size `size` of job j is simulated at (validate_level). */
static enum coll_level size_level(const struct job *j, const struct machine *mc, double size)
{
    if (!j->coll) return COLL_MESSAGE;
    if (mc->level >= 0) return (enum coll_level)mc->level;
    return validate_level(j->op, mc->algo, j->nranks, j->nodes, size);
}

/* Simulates the sizes of job j selected by `use` (NULL: all), each at its level (message-level
 * sizes in one child, flow-level ones in another, both at once), into out[i] for the selected
 * i; false if a simulation failed. */
static bool simulate_some(const struct job *j, const struct machine *mc, const struct netcal *nc,
                          const bool *use, struct sim_out *out)
{
    size_t *idx[2] = {xbt_new0(size_t, j->n), xbt_new0(size_t, j->n)}, m[2] = {0, 0};
    for (size_t i = 0; i < j->n; i++) {
        if (use && !use[i]) continue;
        int lv = size_level(j, mc, j->sizes[i]) == COLL_FLOW;
        idx[lv][m[lv]++] = i;
    }
    pid_t pid[2] = {-1, -1};
    int fd[2] = {-1, -1};
    bool ok = true;
    for (int lv = 0; lv < 2; lv++)
        if (m[lv] > 0) {
            pid[lv] = start_sim(j, mc, nc, lv ? COLL_FLOW : COLL_MESSAGE, idx[lv], m[lv], &fd[lv]);
            ok = ok && pid[lv] > 0;
        }
    for (int lv = 0; lv < 2; lv++)
        if (pid[lv] > 0) ok = finish_sim(pid[lv], fd[lv], idx[lv], m[lv], out) && ok;
    free(idx[0]);
    free(idx[1]);
    return ok;
}

/* Every size of job j: times into sim, and NCCL's plans into plan (when not NULL). */
static bool simulate(const struct job *j, const struct machine *mc, const struct netcal *nc,
                     double *sim, struct sim_out *plan)
{
    struct sim_out *out = plan ? plan : xbt_new0(struct sim_out, j->n);
    bool ok = simulate_some(j, mc, nc, NULL, out);
    for (size_t i = 0; i < j->n; i++)
        sim[i] = out[i].time_s;
    if (!plan) free(out);
    return ok;
}

/* The time a call of job j measures when the GPUs take t: no less than the host's launch floor
 * of a thread that drives several GPUs (nccl_tune.h). The fit calibrates the GPUs' time, so
 * only what is reported passes here. */
static double measured_time(const struct job *j, double t)
{
    return j->coll ? fmax(t, nccl_launch_floor_s(j->gpus_per_thread)) : t;
}

static void add_point(struct job *j, double size, double t)
{
    j->sizes = xbt_realloc(j->sizes, (j->n + 1) * sizeof *j->sizes);
    j->measured = xbt_realloc(j->measured, (j->n + 1) * sizeof *j->measured);
    j->sizes[j->n] = size;
    j->measured[j->n++] = t;
}

#define MAX_JOBS 64

/* The most GPUs one node of the catalog's systems has (HGX and DGX boards of 8): a run whose
 * log names no hosts is taken as one node up to this many ranks, and refused above. */
#define VALIDATE_NODE_GPUS 8

/* Checks that every run of the log can be built: its node count known (or one node of at most
 * VALIDATE_NODE_GPUS ranks), the same GPUs on every node. */
static enum dmlsim_err check_runs(const struct calib *c, const char *path, struct dmlsim_error *err)
{
    for (size_t i = 0; i < c->nrun; i++) {
        const struct calib_run *u = &c->run[i];
        if (u->n == 0 || u->nranks < 2) continue;
        if (u->nodes == 0 && u->nranks > VALIDATE_NODE_GPUS)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: cannot tell how many nodes the %d ranks of this run "
                               "spanned (the log names no hosts); expected --nodes N or a \"# "
                               "dmlsim-nodes N\" line",
                               path, u->line, u->nranks);
        if (u->nodes > 0 && u->nranks % u->nodes != 0)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: %d ranks on %d nodes; expected the same number of GPUs "
                               "on every node (a multiple of the node count)",
                               path, u->line, u->nranks, u->nodes);
    }
    return DMLSIM_OK;
}

/* Groups the measurements into jobs: one per (op, ranks, nodes) and per copy kind. */
static size_t make_jobs(const struct calib *c, bool copies, struct job *jobs)
{
    size_t njobs = 0;
    for (size_t i = 0; i < c->ncoll; i++) {
        const struct calib_coll *r = &c->coll[i];
        int nodes = r->nodes > 1 ? r->nodes : 1;
        size_t k = 0;
        while (k < njobs && !(jobs[k].coll && jobs[k].op == r->op && jobs[k].nranks == r->nranks &&
                              jobs[k].nodes == nodes &&
                              jobs[k].gpus_per_thread == r->gpus_per_thread))
            k++;
        if (k == njobs && njobs < MAX_JOBS && r->nranks >= 2 && r->nranks % nodes == 0)
            jobs[njobs++] = (struct job){.coll = true, .op = r->op, .nranks = r->nranks,
                                         .nodes = nodes, .gpus_per_thread = r->gpus_per_thread};
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
#define FIT_TOL    1e-9 /* a size simulated within this (relative) of its measured time is
                           fitted: later rounds leave it (its simulation depends on its own factor
                           only). Far below the printed digits: the fit is the one of every round
                           (1e-4 would save another round and move calibrated times by 4e-5) */

/* The most measurements (rows of collectives, copies) one validate or fit simulates, over all
 * its jobs: each is simulated up to FIT_ROUNDS + 1 times, about 0.13 s a row for 16 GPUs on 2
 * nodes at message level, so 1,024 rows are minutes and a 50 MB log (230,000 rows) would be
 * hours. Beyond it the log is refused before any simulation. */
#define VALIDATE_MAX_ROWS 1024

/* A fit's rounds, then validate's calibrated run (its first round is the uncalibrated one). */
#define SIMS_PER_ROW (FIT_ROUNDS + 1)

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

/* The state of one fit: per size, the factor tried, the one before and their simulations, the
 * best so far and its error, whether the size still takes part. */
struct fit {
    double *f, *fp, *sim, *sp, *best, *err;
    bool *open;
    double *best_sim; /* the simulation at the best factor (the caller's, or NULL) */
};

/* One round's results into the fit: the best factors kept, the next ones chosen; a size that
 * came within FIT_TOL, or whose factor stopped moving, is closed. */
static void fit_update(const struct job *j, struct fit *s, int round)
{
    for (size_t i = 0; i < j->n; i++) {
        if (!s->open[i]) continue;
        double e = fabs(s->sim[i] - j->measured[i]);
        if (e < s->err[i]) {
            s->err[i] = e, s->best[i] = s->f[i];
            if (s->best_sim) s->best_sim[i] = s->sim[i];
        }
        double fn = next_factor(j->measured[i], s->f[i], s->sim[i], s->fp[i], s->sp[i], round);
        s->fp[i] = s->f[i], s->sp[i] = s->sim[i], s->f[i] = fn;
        if (e <= FIT_TOL * j->measured[i] || fn == s->fp[i]) s->open[i] = false;
    }
}

/* Fits the curve of job j on the sizes selected by `use` (NULL: all): for each size the factor
 * whose calibrated simulation comes closest to the measured time over FIT_ROUNDS simulations,
 * the first of them uncalibrated (`uncal`, the job's uncalibrated times when the caller has them,
 * else NULL). A size's calibrated simulation depends on its own factor alone (the curve passes
 * through its fitted points), so each round simulates only the sizes still open. Adds the curve
 * to nc, and gives each fitted size's calibrated simulation in best_sim (when not NULL); false if
 * a simulation failed. */
static bool fit_job(const struct job *j, const struct machine *mc, const bool *use,
                    const double *uncal, const struct calib *c, struct netcal *nc,
                    double *best_sim)
{
    struct netcal_curve cur = {
            .op = (int)j->op, .multinode = j->nodes > 1, .nranks = j->nranks, .nodes = j->nodes};
    snprintf(cur.gpu, sizeof cur.gpu, "%s", mc->gpu->name);
    size_t n = j->n;
    struct fit s = {xbt_new0(double, n), xbt_new0(double, n), xbt_new0(double, n),
                    xbt_new0(double, n), xbt_new0(double, n), xbt_new0(double, n),
                    xbt_new0(bool, n), best_sim};
    struct sim_out *out = xbt_new0(struct sim_out, n);
    double *x = xbt_new0(double, n), *y = xbt_new0(double, n);
    for (size_t i = 0; i < n; i++)
        s.f[i] = s.best[i] = 1, s.err[i] = INFINITY, s.open[i] = !use || use[i];
    bool ok = true;
    for (int round = 0; round < FIT_ROUNDS && ok; round++) {
        struct netcal trial = {0};
        curve_of(j, use, s.f, &cur, x, y);
        if (round > 0) netcal_add(&trial, &cur);
        if (round == 0 && uncal)
            for (size_t i = 0; i < n; i++)
                out[i].time_s = uncal[i];
        else
            ok = simulate_some(j, mc, round > 0 ? &trial : NULL, s.open, out);
        netcal_release(&trial);
        for (size_t i = 0; ok && i < n; i++)
            if (s.open[i]) s.sim[i] = out[i].time_s;
        if (ok) fit_update(j, &s, round);
    }
    if (ok) {
        curve_of(j, use, s.best, &cur, x, y);
        netcal_add(nc, &cur);
    }
    snprintf(nc->source, sizeof nc->source, "%.200s", c->source);
    double *arrays[] = {s.f, s.fp, s.sim, s.sp, s.best, s.err, x, y};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
    free(s.open);
    free(out);
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
    struct machine mc = {.gpu = g,
                         .intra = g->intra,
                         .nic = default_nic(c, g, nic),
                         .algo = COLL_ALGO_DEFAULT,
                         .nccl = {.algo = -1, .proto = -1, .max_channels = 0},
                         .level = -1};
    struct job jobs[MAX_JOBS];
    enum dmlsim_err rc = check_runs(c, path, err);
    if (rc != DMLSIM_OK) return rc;
    size_t njobs = make_jobs(c, false, jobs);
    struct netcal *nc = xbt_new0(struct netcal, 1);
    rc = check_rows(jobs, njobs, path, err);
    for (size_t k = 0; k < njobs && rc == DMLSIM_OK; k++)
        if (jobs[k].op != COLL_ALLTOALL && !fit_job(&jobs[k], &mc, NULL, NULL, c, nc, NULL))
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

/* Why job j gets no calibrated column, or NULL: the calibration dilates NCCL's own calls (ring,
 * tree, NVLS, CollNet), not the textbook algorithms (README: for checking, not predicting) nor
 * the all-to-all's pairwise sends. */
static const char *uncalibrated_why(const struct job *j, const struct machine *mc)
{
    if (mc->algo != COLL_ALGO_NCCL)
        return "textbook algorithms are not calibrated (the calibration dilates NCCL's calls)";
    if (j->op == COLL_ALLTOALL)
        return "all-to-all is pairwise sends, which the calibration (of NCCL's ring, tree, NVLS "
               "and CollNet calls) does not dilate";
    return NULL;
}

/* "# nccl plans   tree/LL/2 8..4096 B, ring/Simple/16 8192..17179869184 B; message level 8..
 * 134217728 B, flow 268435456..17179869184 B": what NCCL's model chose for each size and the
 * level each was simulated at, as ranges of consecutive sizes. */
static void print_plans(const struct job *j, const struct machine *mc, const struct sim_out *plan)
{
    if (j->op == COLL_ALLTOALL || mc->algo != COLL_ALGO_NCCL) return;
    printf("# nccl plans   ");
    for (size_t i = 0, k; i < j->n; i = k) {
        for (k = i + 1; k < j->n && strcmp(plan[k].choice, plan[i].choice) == 0; k++)
            ;
        printf("%s%s %.0f..%.0f B", i ? ", " : "", plan[i].choice, j->sizes[i], j->sizes[k - 1]);
    }
    if (mc->nccl.algo >= 0)
        for (size_t i = 0; i < j->n; i++)
            if (strncmp(plan[i].choice, nccl_algo_name((enum nccl_algo)mc->nccl.algo),
                        strcspn(plan[i].choice, "/")) != 0) {
                printf(" (--algo %s cannot run at every size here: NCCL's choice among the rest "
                       "ran there)",
                       nccl_algo_name((enum nccl_algo)mc->nccl.algo));
                break;
            }
    printf("\n# levels       ");
    for (size_t i = 0, k; i < j->n; i = k) {
        enum coll_level lv = size_level(j, mc, j->sizes[i]);
        for (k = i + 1; k < j->n && size_level(j, mc, j->sizes[k]) == lv; k++)
            ;
        printf("%s%s %.0f..%.0f B", i ? ", " : "", lv == COLL_FLOW ? "flow" : "message",
               j->sizes[i], j->sizes[k - 1]);
    }
    printf("\n");
}

/* "# launch floor 8 GPUs per thread: 39.2 us a call (nccl_tune.h), 12 of 25 sizes at it": the
 * host's pace, when one thread of the test drove several GPUs. */
static void print_floor(const struct job *j, const double *sim)
{
    double floor_s = nccl_launch_floor_s(j->gpus_per_thread);
    if (floor_s <= 0) return;
    size_t at = 0;
    for (size_t i = 0; i < j->n; i++)
        at += sim[i] <= floor_s;
    printf("# launch floor %d GPUs per thread (nGpus %d): %.1f us a call, %d launches of %.2f us "
           "one after the other; %zu of %zu sizes at it\n",
           j->gpus_per_thread, j->gpus_per_thread, floor_s * 1e6, j->gpus_per_thread,
           NCCL_LAUNCH_S * 1e6, at, j->n);
}

/* One collective job: uncalibrated simulation of every size, then a fit on every other size
 * (even positions) and a calibrated simulation whose errors are reported on the others. */
static int validate_coll(const struct job *j, const struct machine *mc, const struct calib *c)
{
    double *sim = xbt_new0(double, j->n), *cal = xbt_new0(double, j->n);
    double *e0 = xbt_new0(double, j->n), *e1 = xbt_new0(double, j->n);
    struct sim_out *plan = xbt_new0(struct sim_out, j->n);
    bool *use = xbt_new0(bool, j->n);
    const char *name = collective_op_name(j->op), *why = uncalibrated_why(j, mc);
    struct netcal nc = {0};
    int status = 0;
    bool *held = xbt_new0(bool, j->n);
    struct sim_out *out = xbt_new0(struct sim_out, j->n);
    for (size_t i = 0; i < j->n; i++)
        use[i] = i % 2 == 0, held[i] = !use[i];
    /* the fitted sizes' calibrated times are the fit's own best simulations (a size's depends
     * on its own factor only); the held-out ones are simulated with the fitted curve */
    bool ok = simulate(j, mc, NULL, sim, plan) &&
              (why || (fit_job(j, mc, use, sim, c, &nc, cal) &&
                       simulate_some(j, mc, &nc, held, out)));
    for (size_t i = 0; ok && !why && i < j->n; i++)
        if (held[i]) cal[i] = out[i].time_s;
    for (size_t i = 0; ok && i < j->n; i++) /* the GPUs' times, then what a call measures */
        sim[i] = measured_time(j, sim[i]), cal[i] = measured_time(j, cal[i]);
    if (!ok) {
        printf("# %s on %d GPU(s): the simulation failed\n", name, j->nranks);
        status = 1;
    }
    size_t nheld = 0;
    for (size_t i = 0; ok && i < j->n; i++) {
        e0[i] = (sim[i] - j->measured[i]) / j->measured[i];
        double e = (cal[i] - j->measured[i]) / j->measured[i];
        if (!use[i]) e1[nheld++] = e;
        printf(" %13s %6d %5d %14.0f %12.2f %12.2f %+8.1f", name, j->nranks, j->nodes,
               j->sizes[i], j->measured[i] * 1e6, sim[i] * 1e6, 100 * e0[i]);
        if (why)
            printf(" %12s %8s %s\n", "-", "-", "-");
        else
            printf(" %12.2f %+8.1f %s\n", cal[i] * 1e6, 100 * e, use[i] ? "fit" : "held-out");
    }
    if (ok) {
        printf("# geometric-mean error %s %d GPU(s) %d node(s): uncalibrated %.1f%% over %zu "
               "sizes; ",
               name, j->nranks, j->nodes, 100 * geo_mean(e0, j->n), j->n);
        if (why)
            printf("not calibrated: %s\n", why);
        else
            printf("calibrated %.1f%% over the %zu held-out sizes\n", 100 * geo_mean(e1, nheld),
                   nheld);
        print_plans(j, mc, plan);
        print_floor(j, sim);
        struct calib_fit fit;
        if (j->nodes == 1 && j->op != COLL_ALLTOALL && calib_fit(c, j->op, j->nranks, &fit) == 0)
            printf("# alpha-beta fit latency %.3f us per step, bandwidth %.2f GB/s (largest error "
                   "of the fit %.1f%%)\n",
                   fit.alpha_s * 1e6, fit.bw_Bps / 1e9, 100 * fit.max_rel);
    }
    netcal_release(&nc);
    free(sim);
    free(cal);
    free(e0);
    free(e1);
    free(plan);
    free(use);
    free(held);
    free(out);
    return status;
}

static int validate_copy(const struct job *j, const struct machine *mc)
{
    double *sim = xbt_new0(double, j->n), *e = xbt_new0(double, j->n);
    int status = 0;
    if (!simulate(j, mc, NULL, sim, NULL)) {
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

/* --algo NAME into mc: "nccl" (the default) for NCCL's own choice; NCCL's algorithms by their
 * NCCL_ALGO names, as the measured run could have forced them (ring, tree, nvls, nvlstree,
 * collnet, any case; collnetchain and collnet_chain too); the textbook algorithms by their
 * scenario names, ring and tree as textbook-ring and textbook-tree (in a scenario algo="ring" is
 * the textbook ring and nccl-algo="ring" NCCL's; here the log's NCCL_ALGO=Ring comes first). */
static bool parse_algo(const char *name, struct machine *mc)
{
    mc->algo = COLL_ALGO_NCCL;
    mc->nccl = (struct nccl_opts){.algo = -1, .proto = -1, .max_channels = 0};
    if (name == NULL || strcmp(name, "nccl") == 0) return true;
    char low[32];
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < sizeof low; p++)
        if (*p != '_') low[k++] = (char)tolower((unsigned char)*p);
    low[k] = '\0';
    if (strcmp(low, "collnetchain") == 0) snprintf(low, sizeof low, "collnet");
    if (nccl_algo_parse(low, &mc->nccl.algo)) return true;
    if (strncmp(name, "textbook-", 9) == 0)
        return coll_algo_find(name + 9, &mc->algo) && mc->algo != COLL_ALGO_NCCL;
    return coll_algo_find(name, &mc->algo) && mc->algo != COLL_ALGO_RING &&
           mc->algo != COLL_ALGO_TREE;
}

/* "nccl: NCCL's own choice per size" or "nccl with NCCL_ALGO=ring NCCL_PROTO=Simple
 * NCCL_MAX_NCHANNELS=8 (--algo, --proto, --channels)" or "the textbook ring (not calibrated)". */
static const char *algo_describe(const struct machine *mc, char *buf, size_t len)
{
    if (mc->algo != COLL_ALGO_NCCL) {
        snprintf(buf, len, "the textbook %s (not calibrated)", coll_algo_name(mc->algo));
        return buf;
    }
    const struct nccl_opts *o = &mc->nccl;
    if (o->algo < 0 && o->proto < 0 && o->max_channels == 0) {
        snprintf(buf, len, "nccl: NCCL's own choice of algorithm, protocol and channels per size");
        return buf;
    }
    int w = snprintf(buf, len, "nccl with");
    if (o->algo >= 0)
        w += snprintf(buf + w, len - (size_t)w, " NCCL_ALGO=%s",
                      nccl_algo_name((enum nccl_algo)o->algo));
    if (o->proto >= 0)
        w += snprintf(buf + w, len - (size_t)w, " NCCL_PROTO=%s",
                      nccl_proto_name((enum nccl_proto)o->proto));
    if (o->max_channels > 0)
        snprintf(buf + w, len - (size_t)w, " NCCL_MAX_NCHANNELS=%d", o->max_channels);
    return buf;
}

/* A whole-number option from lo to hi into *v (0 when not given); false with the message. */
static bool int_option(const struct cli_args *a, int key, const char *name, long lo, long hi,
                       int *v)
{
    const char *s = cli_value(a, key);
    char *end = NULL, what[96];
    long x = s ? strtol(s, &end, 10) : 0;
    *v = (int)x;
    if (s == NULL || (end != s && *end == '\0' && x >= lo && x <= hi)) return true;
    snprintf(what, sizeof what, "--%s expects an integer from %ld to %ld", name, lo, hi);
    cli_error(a->cmd, what);
    return false;
}

/* validate's options: the machine (all but the GPU, which the profile may name) and what the
 * user states about the log; 0, or 1 with the message printed. */
static int validate_options(const struct cli_args *a, struct machine *mc, struct calib_opts *o)
{
    mc->intra = cli_value(a, CLI_INTRA);
    mc->nic = cli_value(a, CLI_NIC);
    mc->sharp = cli_given(a, CLI_SHARP) > 0;
    const char *algo = cli_value(a, CLI_ALGO), *proto = cli_value(a, CLI_PROTO), *op;
    const char *lv = getenv("DMLSIM_VALIDATE_LEVEL"); /* tests: every size at one level */
    mc->level = lv && strcmp(lv, "message") == 0 ? COLL_MESSAGE
                : lv && strcmp(lv, "flow") == 0  ? COLL_FLOW
                                                 : -1;
    if (!int_option(a, CLI_NICS, "nics", 1, 64, &mc->nics) ||
        !int_option(a, CLI_CHANNELS, "channels", 1, 32, &mc->nccl.max_channels) ||
        !int_option(a, CLI_NRANKS, "nranks", 1, 65536, &o->nranks) ||
        !int_option(a, CLI_NODES, "nodes", 1, 4096, &o->nodes))
        return 1;
    int channels = mc->nccl.max_channels;
    if (!parse_algo(algo, mc))
        return cli_error(a->cmd, "--algo expects nccl, NCCL's ring, tree, nvls, nvlstree or "
                                 "collnet (as NCCL_ALGO), or a textbook algorithm: "
                                 "textbook-ring, textbook-tree, naive, halving-doubling, "
                                 "hierarchical");
    mc->nccl.max_channels = channels;
    if (proto && !nccl_proto_parse(proto, &mc->nccl.proto))
        return cli_error(a->cmd, "--proto expects ll, ll128 or simple (as NCCL_PROTO)");
    if (mc->algo != COLL_ALGO_NCCL && (proto || channels))
        return cli_error(a->cmd, "--proto and --channels are NCCL's: expected --algo nccl or one "
                                 "of NCCL's algorithms with them");
    o->op = -1;
    if ((op = cli_value(a, CLI_OP)) != NULL) {
        static const char *nccl[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                     "alltoall"};
        for (int i = 0; i < COLL_NOPS && o->op < 0; i++)
            if (strcmp(op, nccl[i]) == 0 || strcmp(op, collective_op_name((enum coll_op)i)) == 0)
                o->op = i;
        if (o->op < 0)
            return cli_error(a->cmd, "--op expects allreduce, allgather, reducescatter, broadcast "
                                     "or alltoall");
    }
    return 0;
}

/* The header: the profile, what was read of each run, the machine and how it runs. */
static void print_header(const char *path, const struct calib *c, const struct machine *mc)
{
    const struct link_class *lc = catalog_link(mc->intra);
    char per[32] = "one per GPU", how[200];
    if (mc->nics > 0) snprintf(per, sizeof per, "%d per node", mc->nics);
    printf("# dmlsim validate %s\n# profile       %s\n", path, c->source);
    for (size_t i = 0; i < c->nrun; i++) {
        const struct calib_run *u = &c->run[i];
        printf("# read          line %d: %s%s%s\n", u->line, u->read,
               u->n > 0 && u->nodes == 0 ? " (1 node assumed)" : "",
               u->n > 0 && u->nranks < 2 ? " (one rank: nothing to simulate)" : "");
    }
    printf("# simulated on  %s, GPU-to-GPU over %s, %s between nodes (%s%s), host copies over %s; "
           "collectives with %s\n",
           mc->gpu->name, mc->intra, mc->nic, per, mc->sharp ? ", SHARP switches" : "",
           lc->kind == LINK_PCIE ? mc->intra : mc->gpu->pcie, algo_describe(mc, how, sizeof how));
    printf("# calibrated    fitted on the sizes marked fit (every other one), reported on the "
           "held-out ones\n");
    if (c->nocoll[0]) printf("# collectives   not measured: %s\n", c->nocoll);
    printf("#\n#%13s %6s %5s %14s %12s %12s %8s %12s %8s\n", "operation", "ranks", "nodes", "size",
           "measured", "simulated", "error", "calibrated", "error");
    printf("#%13s %6s %5s %14s %12s %12s %8s %12s %8s\n", "", "", "", "(B)", "(us)", "(us)", "(%)",
           "(us)", "(%)");
}

int validate_main(const struct cli_args *a)
{
    const char *path = a->args[0], *gpu_name = cli_value(a, CLI_GPU);
    struct machine mc = {0};
    struct calib_opts o = {0};
    if (validate_options(a, &mc, &o) != 0) return 1;
    struct calib c;
    struct dmlsim_error err = {0};
    if (calib_load_opts(path, &o, &c, &err) != DMLSIM_OK) return fail_msg(&err);
    mc.gpu = gpu_name ? catalog_gpu(gpu_name) : calib_gpu(&c);
    if (mc.gpu == NULL) {
        char names[512];
        fprintf(stderr,
                "%s:0: cannot tell which catalog GPU this profile was measured on (\"%s\"); "
                "expected --gpu with one of: %s\n",
                path, c.gpu_name, catalog_gpu_names(names, sizeof names));
        calib_release(&c);
        return 1;
    }
    if (mc.intra == NULL) mc.intra = mc.gpu->intra;
    mc.nic = default_nic(&c, mc.gpu, mc.nic);
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
    size_t njobs = 0;
    if (check_runs(&c, path, &err) != DMLSIM_OK ||
        (njobs = make_jobs(&c, true, jobs), check_rows(jobs, njobs, path, &err)) != DMLSIM_OK) {
        free_jobs(jobs, njobs);
        calib_release(&c);
        return fail_msg(&err);
    }
    print_header(path, &c, &mc);
    int status = 0;
    for (size_t k = 0; k < njobs; k++)
        status |= jobs[k].coll ? validate_coll(&jobs[k], &mc, &c) : validate_copy(&jobs[k], &mc);
    free_jobs(jobs, njobs);
    calib_release(&c);
    return status;
}
