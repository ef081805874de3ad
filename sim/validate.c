/* validate.c - dmlsim calib / shapes / validate (see validate.h). */
#include "validate.h"

#include "bench.h"
#include "calib.h"
#include "model.h"
#include "platform.h"
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

int validate_shapes_main(int argc, char **argv)
{
    long batch = 64;
    if (argc == 2 && strcmp(argv[0], "--batch") == 0)
        batch = strtol(argv[1], NULL, 10);
    else if (argc != 0) {
        fprintf(stderr, "dmlsim: shapes: expected [--batch B]\n");
        return 1;
    }
    if (batch < 1) {
        fprintf(stderr, "dmlsim: shapes: --batch expects a positive integer\n");
        return 1;
    }
    static const char *presets[] = {"resnet50",     "resnet101",  "vgg16",
                                    "inception-v3", "bert-large", "gpt"};
    printf("# GEMM shapes (M N K) of the model presets' layers at batch %ld, one per line:\n"
           "# conv = im2col (M = c_out, N = H_out W_out x batch, K = c_in k_h k_w), dense = "
           "(n_out, batch, n_in),\n# transformer block = its MLP (4h, seq x batch, h). Feed to "
           "dmlsim-calibrate -s FILE.\n",
           batch);
    double seen[4096][3];
    size_t nseen = 0;
    for (size_t p = 0; p < sizeof presets / sizeof presets[0]; p++) {
        struct model m;
        model_preset(presets[p], NULL, DTYPE_FP32, &m);
        for (size_t l = 0; l < m.nlayers; l++) {
            const struct layer *y = &m.layers[l];
            if (y->gemm_m <= 0) continue;
            double s[3] = {y->gemm_m, y->gemm_n * batch, y->gemm_k};
            bool dup = false;
            for (size_t i = 0; i < nseen && !dup; i++)
                dup = seen[i][0] == s[0] && seen[i][1] == s[1] && seen[i][2] == s[2];
            if (dup || nseen == 4096) continue;
            memcpy(seen[nseen++], s, sizeof s);
            printf("%.0f %.0f %.0f   # %s %s\n", s[0], s[1], s[2], presets[p], y->name);
        }
        model_release(&m);
    }
    return 0;
}

/* ---- dmlsim calib ------------------------------------------------------------------------- */

int validate_calib_main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[0], "--spec") == 0) {
        const struct gpu_model *g = catalog_gpu(argv[1]);
        if (g == NULL) {
            char names[256];
            fprintf(stderr, "dmlsim: calib --spec: unknown gpu \"%s\"; expected one of: %s\n",
                    argv[1], catalog_gpu_names(names, sizeof names));
            return 1;
        }
        if (argc == 2) {
            calib_write_spec(g, stdout);
            return 0;
        }
        if (argc != 4 || strcmp(argv[2], "-o") != 0) {
            fprintf(stderr, "dmlsim: calib: expected --spec GPU [-o FILE]\n");
            return 1;
        }
        char *tmp = bprintf("%s.tmp", argv[3]);
        FILE *f = fopen(tmp, "w");
        int st = 0;
        if (f == NULL) {
            st = 1;
        } else {
            calib_write_spec(g, f);
            if ((ferror(f) | fclose(f)) || rename(tmp, argv[3]) != 0) st = 1;
        }
        if (st) {
            unlink(tmp);
            fprintf(stderr, "%s:0: cannot write\n", argv[3]);
        }
        free(tmp);
        return st;
    }
    if (argc != 1) {
        fprintf(stderr, "dmlsim: calib: expected FILE, or --spec GPU [-o FILE]\n");
        return 1;
    }
    struct calib c;
    struct dmlsim_error err = {0};
    if (calib_load(argv[0], &c, &err) != DMLSIM_OK) return fail_msg(&err);
    const struct gpu_model *g = calib_gpu(&c);
    printf("# profile       %s\n# gpu           %s x %d (catalog: %s)\n", c.source,
           c.gpu_name[0] ? c.gpu_name : "unknown", c.gpu_count, g ? g->name : "no match");
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

/* ---- dmlsim validate ---------------------------------------------------------------------- */

struct job {
    bool coll;        /* a collective (else a copy) */
    enum coll_op op;  /* collective */
    int nranks;       /* GPUs */
    char kind[64];    /* copy kind */
    double *sizes;    /* sizes */
    double *measured; /* measured times */
    size_t n;         /* number of sizes */
};

static const char *default_intra(const struct gpu_model *g)
{
    if (strcmp(g->name, "h100") == 0 || strcmp(g->name, "h200") == 0) return "nvlink4";
    if (strcmp(g->name, "a100") == 0) return "nvlink3";
    return g->pcie;
}

/* Runs one job in this (child) process and writes the simulated times to fd. */
static void run_job(const struct job *j, const struct gpu_model *g, const char *intra, int fd)
{
    struct scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.path = xbt_strdup("validate");
    sc.name = xbt_strdup("validate");
    sc.net_model = NET_CM02;
    sc.has_cluster = true;
    struct cluster_spec *c = &sc.cluster;
    c->nodes = 1;
    c->gpus_per_node = j->coll ? j->nranks : 2;
    c->gpu = g;
    c->intra = catalog_link(intra);
    c->pcie = c->intra->kind == LINK_PCIE ? c->intra : catalog_link(g->pcie);
    c->nics_per_node = 1;
    c->nodes_per_leaf = 1;
    c->spines = 1;
    c->oversubscription = 1;
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
    struct dmlsim_error err = {0};
    double *out = xbt_new0(double, j->n);
    if (platform_load(&sc, &pf, &err) == DMLSIM_OK) {
        if (j->coll) {
            b->kind = BENCH_COLLECTIVE;
            b->op = j->op;
            b->algo = collective_find("ring");
            b->level = COLL_MESSAGE;
            b->chunks = 8;
            b->gpus = j->nranks;
            struct coll_result res;
            if (bench_coll_run(&sc, pf, &res, &err) == DMLSIM_OK)
                for (size_t i = 0; i < j->n && i < res.nrows; i++)
                    out[i] = res.rows[i].time_s;
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
            if (bench_p2p_run(&sc, &res, &err) == DMLSIM_OK)
                for (size_t i = 0; i < j->n && i < res.nrows; i++)
                    out[i] = res.rows[i].time_s;
            free(pair.src);
            free(pair.dst);
        }
    }
    if (write(fd, out, j->n * sizeof *out) < 0) _exit(1);
    _exit(0);
}

static bool simulate(const struct job *j, const struct gpu_model *g, const char *intra, double *sim)
{
    int fds[2];
    if (pipe(fds) != 0) return false;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        run_job(j, g, intra, fds[1]);
    }
    close(fds[1]);
    size_t want = j->n * sizeof *sim, got = 0;
    ssize_t k;
    while (got < want && (k = read(fds[0], (char *)sim + got, want - got)) > 0)
        got += (size_t)k;
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return got == want && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void add_point(struct job *j, double size, double t)
{
    j->sizes = xbt_realloc(j->sizes, (j->n + 1) * sizeof *j->sizes);
    j->measured = xbt_realloc(j->measured, (j->n + 1) * sizeof *j->measured);
    j->sizes[j->n] = size;
    j->measured[j->n++] = t;
}

int validate_main(int argc, char **argv)
{
    const char *path = NULL, *gpu_name = NULL, *intra = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--gpu") == 0 && i + 1 < argc)
            gpu_name = argv[++i];
        else if (strcmp(argv[i], "--intra") == 0 && i + 1 < argc)
            intra = argv[++i];
        else if (argv[i][0] != '-' && path == NULL)
            path = argv[i];
        else {
            fprintf(stderr, "dmlsim: validate: expected FILE [--gpu GPU] [--intra CLASS]\n");
            return 1;
        }
    }
    if (path == NULL) {
        fprintf(stderr, "dmlsim: validate: expected FILE [--gpu GPU] [--intra CLASS]\n");
        return 1;
    }
    struct calib c;
    struct dmlsim_error err = {0};
    if (calib_load(path, &c, &err) != DMLSIM_OK) return fail_msg(&err);
    const struct gpu_model *g = gpu_name ? catalog_gpu(gpu_name) : calib_gpu(&c);
    if (g == NULL) {
        char names[256];
        fprintf(stderr,
                "%s:0: cannot tell which catalog GPU this profile was measured on (\"%s\"); "
                "expected --gpu with one of: %s\n",
                path, c.gpu_name, catalog_gpu_names(names, sizeof names));
        calib_release(&c);
        return 1;
    }
    if (intra == NULL) intra = default_intra(g);
    const struct link_class *lc = catalog_link(intra);
    if (lc == NULL || (lc->kind != LINK_NVLINK && lc->kind != LINK_PCIE)) {
        fprintf(stderr, "dmlsim: validate: --intra \"%s\": expected an nvlink or pcie class\n",
                intra);
        calib_release(&c);
        return 1;
    }
    /* group the measurements into jobs: one per (op, nranks) and per copy kind */
    struct job jobs[64];
    size_t njobs = 0;
    for (size_t i = 0; i < c.ncoll; i++) {
        size_t k = 0;
        while (k < njobs &&
               !(jobs[k].coll && jobs[k].op == c.coll[i].op && jobs[k].nranks == c.coll[i].nranks))
            k++;
        if (k == njobs && njobs < 64)
            jobs[njobs++] =
                    (struct job){.coll = true, .op = c.coll[i].op, .nranks = c.coll[i].nranks};
        if (k < njobs) add_point(&jobs[k], c.coll[i].bytes, c.coll[i].time_s);
    }
    for (size_t i = 0; i < c.ncopy; i++) {
        if (strcmp(c.copy[i].kind, "d2d") == 0) continue; /* HBM is not a link: not simulated */
        size_t k = 0;
        while (k < njobs && (jobs[k].coll || strcmp(jobs[k].kind, c.copy[i].kind) != 0))
            k++;
        if (k == njobs && njobs < 64) {
            jobs[njobs] = (struct job){.coll = false};
            snprintf(jobs[njobs++].kind, sizeof jobs[0].kind, "%s", c.copy[i].kind);
        }
        if (k < njobs) add_point(&jobs[k], c.copy[i].bytes, c.copy[i].bytes / c.copy[i].Bps);
    }
    printf("# dmlsim validate %s\n# profile       %s\n", path, c.source);
    printf("# simulated on  1 node, %s, GPU-to-GPU over %s, host copies over %s (catalog values)\n",
           g->name, intra, lc->kind == LINK_PCIE ? intra : g->pcie);
    if (c.nocoll[0]) printf("# collectives   not measured: %s\n", c.nocoll);
    printf("#\n#%13s %6s %14s %12s %12s %9s\n", "operation", "ranks", "size", "measured",
           "simulated", "error");
    printf("#%13s %6s %14s %12s %12s %9s\n", "", "", "(B)", "(us)", "(us)", "(%)");
    int status = 0;
    for (size_t k = 0; k < njobs; k++) {
        struct job *j = &jobs[k];
        double *sim = xbt_new0(double, j->n);
        const char *name = j->coll ? collective_op_name(j->op) : j->kind;
        if (!simulate(j, g, intra, sim)) {
            printf("# %s: the simulation failed\n", name);
            status = 1;
        } else {
            double log_sum = 0;
            for (size_t i = 0; i < j->n; i++) {
                double e = (sim[i] - j->measured[i]) / j->measured[i];
                log_sum += log(fmax(fabs(e), 1e-6));
                printf(" %13s %6d %14.0f %12.2f %12.2f %+9.1f\n", name, j->coll ? j->nranks : 1,
                       j->sizes[i], j->measured[i] * 1e6, sim[i] * 1e6, 100 * e);
            }
            printf("# geometric-mean error %s: %.1f%% over %zu sizes\n", name,
                   100 * exp(log_sum / (double)j->n), j->n);
            if (j->coll) {
                struct calib_fit fit;
                if (calib_fit(&c, j->op, j->nranks, &fit) == 0)
                    printf("# fitted link   latency %.3f us per step, bandwidth %.2f GB/s "
                           "(catalog %s: %.3f us per hop, %.2f GB/s)\n",
                           fit.alpha_s * 1e6, fit.bw_Bps / 1e9, intra, lc->hop_lat_s * 1e6,
                           lc->bw_Bps / 1e9);
            }
        }
        free(sim);
        free(j->sizes);
        free(j->measured);
    }
    calib_release(&c);
    return status;
}
