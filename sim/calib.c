/* calib.c - calibration profiles: reading, writing, interpolation and fits (see calib.h). */
#include "calib.h"

#include "xmldoc.h"

#include <xbt/sysdep.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_GEMM_EFF 0.78 /* H100 GEMMs, Meta pytorch/ao roofline_utils.py */
#define DEFAULT_MEM_EFF  0.92 /* H100 memory-bound kernels, same source */

struct calib calib_default(void)
{
    struct calib c;
    memset(&c, 0, sizeof c);
    snprintf(c.source, sizeof c.source,
             "spec-derived default: GEMM 78%% of peak, memory-bound 92%% of bandwidth (Meta, "
             "pytorch/ao roofline_utils.py, H100)");
    c.gemm_eff = DEFAULT_GEMM_EFF;
    c.mem_eff = DEFAULT_MEM_EFF;
    return c;
}

void calib_release(struct calib *c)
{
    free(c->gemm);
    free(c->copy);
    free(c->kernel);
    free(c->coll);
    memset(c, 0, sizeof *c);
}

static enum gpu_dtype dtype_of(const char *s, bool *ok)
{
    for (int d = 0; d < DTYPE_COUNT; d++)
        if (strcmp(s, catalog_dtype_name((enum gpu_dtype)d)) == 0) {
            *ok = true;
            return (enum gpu_dtype)d;
        }
    *ok = false;
    return DTYPE_FP32;
}

static bool op_of(const char *s, enum coll_op *op)
{
    static const char *names[] = {"allreduce", "allgather", "reducescatter", "broadcast"};
    static const char *nccl[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0 || strncmp(s, nccl[i], strlen(nccl[i])) == 0) {
            *op = (enum coll_op)i;
            return true;
        }
    return false;
}

#define PUSH(arr, n, val) \
    do { \
        (arr) = xbt_realloc((arr), ((n) + 1) * sizeof *(arr)); \
        (arr)[(n)++] = (val); \
    } while (0)

/* ---- nccl-tests logs ---------------------------------------------------------------------- */

/* Data rows of nccl-tests: size count type redop [root] time algbw busbw #wrong [in-place...];
 * `root` says whether the header had a root column (nccl-tests 2.13 and later). */
static int parse_nccl_row(char *line, enum coll_op op, bool root, struct calib *c)
{
    char *tok[24];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t && n < 24;
         t = strtok_r(NULL, " \t\r\n", &save))
        tok[n++] = t;
    if (n == 0) return 0;
    int base = root ? 5 : 4;
    if (n < base + 3 || !isdigit((unsigned char)tok[0][0])) return -1;
    struct calib_coll r = {.op = op, .nranks = 0};
    char *end;
    r.bytes = strtod(tok[0], &end);
    double t_us = strtod(tok[base], NULL);
    r.algbw = strtod(tok[base + 1], NULL);
    r.busbw = strtod(tok[base + 2], NULL);
    if (*end != '\0' || t_us <= 0) return -1;
    r.time_s = t_us * 1e-6;
    PUSH(c->coll, c->ncoll, r);
    return 1;
}

static enum dmlsim_err load_nccl_log(const char *path, FILE *f, struct calib *c,
                                     struct dmlsim_error *err)
{
    char line[1024];
    enum coll_op op = COLL_ALLREDUCE;
    int nranks = 0, lineno = 0, ranks_listed = 0;
    bool root = false;
    snprintf(c->source, sizeof c->source, "nccl-tests log %s", path);
    c->gemm_eff = DEFAULT_GEMM_EFF;
    c->mem_eff = DEFAULT_MEM_EFF;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p;
        if ((p = strstr(line, "Collective test starting:")) != NULL) {
            char name[64] = "";
            sscanf(p + strlen("Collective test starting:"), "%63s", name);
            op_of(name, &op);
        } else if ((p = strstr(line, "nGpus")) != NULL) {
            int g = 0, th = 1;
            sscanf(p, "nGpus %d", &g);
            char *q = strstr(line, "nThread");
            if (q) sscanf(q, "nThread %d", &th);
            if (nranks == 0) nranks = g * th;
        } else if ((p = strstr(line, "dmlsim-nranks")) != NULL) {
            sscanf(p, "dmlsim-nranks %d", &nranks);
        } else if (strncmp(line, "#  Rank", 7) == 0) {
            ranks_listed++;
        } else if (line[0] == '#' && strstr(line, "size") && strstr(line, "redop")) {
            root = strstr(line, "root") != NULL;
        } else if (line[0] != '#') {
            if (parse_nccl_row(line, op, root, c) < 0)
                return dmlsim_fail(err, DMLSIM_EVALUE,
                                   "%s:%d: bad nccl-tests row; expected size count type redop "
                                   "[root] time algbw busbw ...",
                                   path, lineno);
        }
    }
    if (ranks_listed > nranks) nranks = ranks_listed;
    if (nranks < 2)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:0: cannot tell how many GPUs this nccl-tests log ran on; expected "
                           "its \"# Using devices\" rank lines or \"nGpus N\"",
                           path);
    for (size_t i = 0; i < c->ncoll; i++)
        c->coll[i].nranks = nranks;
    c->gpu_count = nranks;
    if (c->ncoll == 0)
        return dmlsim_fail(err, DMLSIM_EVALUE, "%s:0: no result rows; expected nccl-tests output",
                           path);
    return DMLSIM_OK;
}

/* ---- calibration files -------------------------------------------------------------------- */

static enum dmlsim_err load_calib_file(const char *path, FILE *f, struct calib *c,
                                       struct dmlsim_error *err)
{
    char line[1024];
    int lineno = 1; /* the header was line 1 */
    c->gemm_eff = DEFAULT_GEMM_EFF;
    c->mem_eff = DEFAULT_MEM_EFF;
    snprintf(c->source, sizeof c->source, "calibration file %s", path);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char key[32], a[64], rest[512];
        rest[0] = '\0';
        int n = sscanf(line, "%31s %63s %511[^\n]", key, a, rest);
        if (n <= 0) continue;
        bool ok = true;
        if (strcmp(key, "gemm") == 0) {
            struct calib_gemm g;
            double tf;
            g.dtype = dtype_of(a, &ok);
            ok = ok && sscanf(rest, "%lf %lf %lf %lf", &g.m, &g.n, &g.k, &tf) == 4 && tf > 0;
            g.flops_s = tf * 1e12;
            if (ok) PUSH(c->gemm, c->ngemm, g);
        } else if (strcmp(key, "copy") == 0 || strcmp(key, "kernel") == 0) {
            struct calib_rate r;
            double gbps;
            snprintf(r.kind, sizeof r.kind, "%s", a);
            ok = sscanf(rest, "%lf %lf", &r.bytes, &gbps) == 2 && gbps > 0;
            r.Bps = gbps * 1e9;
            if (ok && key[0] == 'c')
                PUSH(c->copy, c->ncopy, r);
            else if (ok)
                PUSH(c->kernel, c->nkernel, r);
        } else if (strcmp(key, "coll") == 0) {
            struct calib_coll r;
            double t_us;
            ok = op_of(a, &r.op) &&
                 sscanf(rest, "%d %lf %lf %lf %lf", &r.nranks, &r.bytes, &t_us, &r.algbw,
                        &r.busbw) == 5 &&
                 t_us > 0;
            r.time_s = t_us * 1e-6;
            if (ok) PUSH(c->coll, c->ncoll, r);
        } else if (strcmp(key, "source") == 0) {
            snprintf(c->source, sizeof c->source, "%s: %s %s", path, a, rest);
        } else if (strcmp(key, "gpu") == 0) {
            snprintf(c->gpu_name, sizeof c->gpu_name, "%s%s%s", a, rest[0] ? " " : "", rest);
        } else if (strcmp(key, "count") == 0) {
            c->gpu_count = atoi(a);
        } else if (strcmp(key, "driver") == 0) {
            snprintf(c->driver, sizeof c->driver, "%s", a);
        } else if (strcmp(key, "cuda") == 0) {
            snprintf(c->cuda, sizeof c->cuda, "%s", a);
        } else if (strcmp(key, "nccl") == 0) {
            snprintf(c->nccl, sizeof c->nccl, "%s", a);
        } else if (strcmp(key, "date") == 0) {
            snprintf(c->date, sizeof c->date, "%s", a);
        } else if (strcmp(key, "nocoll") == 0) {
            snprintf(c->nocoll, sizeof c->nocoll, "%s %s", a, rest);
        } else {
            ok = false;
        }
        if (!ok)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: bad calibration record \"%s\"; expected gemm, copy, "
                               "kernel, coll, source, gpu, count, driver, cuda, nccl, date or "
                               "nocoll with their fields (see sim/calib.h)",
                               path, lineno, key);
    }
    return DMLSIM_OK;
}

enum dmlsim_err calib_load(const char *path, struct calib *c, struct dmlsim_error *err)
{
    memset(c, 0, sizeof *c);
    char why[128], first[256] = "";
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot read calibration: %s", path,
                           xmldoc_strerror(errno, why, sizeof why));
    if (!fgets(first, sizeof first, f)) first[0] = '\0';
    enum dmlsim_err rc;
    if (strncmp(first, "dmlsim-calibration 1", 20) == 0) {
        rc = load_calib_file(path, f, c, err);
    } else {
        rewind(f);
        rc = load_nccl_log(path, f, c, err);
    }
    fclose(f);
    if (rc != DMLSIM_OK) calib_release(c);
    return rc;
}

void calib_write(const struct calib *c, FILE *out)
{
    fprintf(out, "dmlsim-calibration 1\n# format: sim/calib.h\n");
    fprintf(out, "source %s\n", c->source);
    if (c->gpu_name[0]) fprintf(out, "gpu %s\n", c->gpu_name);
    if (c->gpu_count) fprintf(out, "count %d\n", c->gpu_count);
    const char *keys[] = {"driver", "cuda", "nccl", "date"};
    const char *vals[] = {c->driver, c->cuda, c->nccl, c->date};
    for (int i = 0; i < 4; i++)
        if (vals[i][0]) fprintf(out, "%s %s\n", keys[i], vals[i]);
    for (size_t i = 0; i < c->ngemm; i++)
        fprintf(out, "gemm %s %.0f %.0f %.0f %.6g\n", catalog_dtype_name(c->gemm[i].dtype),
                c->gemm[i].m, c->gemm[i].n, c->gemm[i].k, c->gemm[i].flops_s / 1e12);
    for (size_t i = 0; i < c->ncopy; i++)
        fprintf(out, "copy %s %.0f %.6g\n", c->copy[i].kind, c->copy[i].bytes,
                c->copy[i].Bps / 1e9);
    for (size_t i = 0; i < c->nkernel; i++)
        fprintf(out, "kernel %s %.0f %.6g\n", c->kernel[i].kind, c->kernel[i].bytes,
                c->kernel[i].Bps / 1e9);
    for (size_t i = 0; i < c->ncoll; i++)
        fprintf(out, "coll %s %d %.0f %.6g %.6g %.6g\n", collective_op_name(c->coll[i].op),
                c->coll[i].nranks, c->coll[i].bytes, c->coll[i].time_s * 1e6, c->coll[i].algbw,
                c->coll[i].busbw);
    if (c->nocoll[0]) fprintf(out, "nocoll %s\n", c->nocoll);
}

void calib_write_spec(const struct gpu_model *gpu, FILE *out)
{
    struct calib c = calib_default();
    snprintf(c.source, sizeof c.source,
             "spec derived from the %s datasheet (dmlsim catalog) and the default efficiencies "
             "(GEMM 0.78, memory 0.92; Meta pytorch/ao roofline_utils.py): not a measurement",
             gpu->long_name);
    snprintf(c.gpu_name, sizeof c.gpu_name, "%s", gpu->long_name);
    c.gpu_count = 1;
    static const double sizes[] = {256, 1024, 4096, 8192};
    for (int d = 0; d < DTYPE_COUNT; d++) {
        if (gpu->peak_flops[d] <= 0 || d == DTYPE_FP8) continue;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            struct calib_gemm g = {(enum gpu_dtype)d, sizes[i], sizes[i], sizes[i],
                                   gpu->peak_flops[d] * DEFAULT_GEMM_EFF};
            PUSH(c.gemm, c.ngemm, g);
        }
    }
    const struct link_class *pcie = catalog_link(gpu->pcie);
    static const char *copies[] = {"h2d-pinned", "d2h-pinned"};
    for (int i = 0; i < 2; i++) {
        struct calib_rate r;
        snprintf(r.kind, sizeof r.kind, "%s", copies[i]);
        r.bytes = 1 << 28;
        r.Bps = pcie->bw_Bps;
        PUSH(c.copy, c.ncopy, r);
    }
    struct calib_rate d2d = {"d2d", 1 << 28, gpu->mem_bw_Bps * DEFAULT_MEM_EFF / 2};
    PUSH(c.copy, c.ncopy, d2d); /* a copy reads and writes: half the bandwidth moves data */
    static const char *kernels[] = {"sgd-momentum", "adam"};
    for (int i = 0; i < 2; i++) {
        struct calib_rate r;
        snprintf(r.kind, sizeof r.kind, "%s", kernels[i]);
        r.bytes = 1 << 28;
        r.Bps = gpu->mem_bw_Bps * DEFAULT_MEM_EFF;
        PUSH(c.kernel, c.nkernel, r);
    }
    snprintf(c.nocoll, sizeof c.nocoll, "spec profile: no measurement");
    calib_write(&c, out);
    calib_release(&c);
}

const struct gpu_model *calib_gpu(const struct calib *c)
{
    size_t n;
    const struct gpu_model *g = catalog_gpus(&n);
    char lower[640];
    snprintf(lower, sizeof lower, "%s", c->gpu_name);
    for (char *p = lower; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    for (size_t i = 0; i < n; i++) {
        const char *hit = strstr(lower, g[i].name);
        /* "h100" must not match inside "gh100"-style names: require a word boundary before */
        if (hit && (hit == lower || !isalnum((unsigned char)hit[-1]))) return &g[i];
    }
    return NULL;
}

double calib_gemm_eff(const struct calib *c, const struct gpu_model *gpu, enum gpu_dtype dt,
                      double flops)
{
    /* points (log FLOPs, efficiency) of this dtype, in FLOPs order */
    double x[64], y[64];
    size_t n = 0;
    for (size_t i = 0; i < c->ngemm && n < 64; i++) {
        if (c->gemm[i].dtype != dt || gpu->peak_flops[dt] <= 0) continue;
        double f = 2 * c->gemm[i].m * c->gemm[i].n * c->gemm[i].k;
        size_t j = n++;
        for (; j > 0 && x[j - 1] > log(f); j--) {
            x[j] = x[j - 1];
            y[j] = y[j - 1];
        }
        x[j] = log(f);
        y[j] = c->gemm[i].flops_s / gpu->peak_flops[dt];
    }
    if (n == 0 || flops <= 0) return c->gemm_eff;
    double lf = log(flops);
    if (lf <= x[0]) return y[0];
    if (lf >= x[n - 1]) return y[n - 1];
    size_t j = 1;
    while (x[j] < lf)
        j++;
    double w = x[j] > x[j - 1] ? (lf - x[j - 1]) / (x[j] - x[j - 1]) : 0;
    return y[j - 1] + w * (y[j] - y[j - 1]);
}

double calib_compute_rate(const struct calib *c, const struct gpu_model *gpu, enum gpu_dtype dt)
{
    return gpu->peak_flops[dt] * c->gemm_eff;
}

double calib_memory_rate(const struct calib *c, const struct gpu_model *gpu)
{
    double best = 0;
    for (size_t i = 0; i < c->nkernel; i++)
        if (strcmp(c->kernel[i].kind, "sgd-momentum") == 0 ||
            strcmp(c->kernel[i].kind, "adam") == 0)
            best = fmax(best, c->kernel[i].Bps);
    return best > 0 ? best : gpu->mem_bw_Bps * c->mem_eff;
}

int calib_fit(const struct calib *c, enum coll_op op, int nranks, struct calib_fit *out)
{
    /* t = a + b S, weights 1/t^2: minimise sum ((a + b S - t) / t)^2 */
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (size_t i = 0; i < c->ncoll; i++) {
        const struct calib_coll *r = &c->coll[i];
        if (r->op != op || r->nranks != nranks) continue;
        double w = 1 / (r->time_s * r->time_s);
        sw += w;
        sx += w * r->bytes;
        sy += w * r->time_s;
        sxx += w * r->bytes * r->bytes;
        sxy += w * r->bytes * r->time_s;
        n++;
    }
    double det = sw * sxx - sx * sx;
    if (n < 2 || det <= 0) return -1;
    double b = (sw * sxy - sx * sy) / det, a = (sy - b * sx) / sw;
    double P = nranks, steps, frac;
    switch (op) {
    case COLL_ALLREDUCE:
        steps = 2 * (P - 1);
        frac = 2 * (P - 1) / P;
        break;
    case COLL_ALLGATHER:
    case COLL_REDUCESCATTER:
        steps = P - 1;
        frac = (P - 1) / P;
        break;
    default: /* broadcast: a pipelined chain moves S once over every link */
        steps = P - 1;
        frac = 1;
        break;
    }
    out->alpha_s = a / steps;
    out->bw_Bps = b > 0 ? frac / b : INFINITY;
    out->points = n;
    out->max_rel = 0;
    for (size_t i = 0; i < c->ncoll; i++) {
        const struct calib_coll *r = &c->coll[i];
        if (r->op == op && r->nranks == nranks)
            out->max_rel = fmax(out->max_rel, fabs(a + b * r->bytes - r->time_s) / r->time_s);
    }
    return 0;
}
