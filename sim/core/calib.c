/* calib.c - calibration profiles: reading (calibration files; nccl-tests logs through nccl_log.h),
 * writing, interpolation and fits (see calib.h). */
#include "calib.h"

#include "nccl_log.h"
#include "xmldoc.h"

#include "mem.h"
#include "units.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct calib calib_default(void)
{
    struct calib c;
    memset(&c, 0, sizeof c);
    snprintf(c.source, sizeof c.source,
             "spec-derived default: GEMMs from their shapes (tiles, waves, the GPU's "
             "large-GEMM ceiling), else 78%% of peak; memory-bound 92%% of bandwidth (Meta, "
             "pytorch/ao roofline_utils.py, H100)");
    c.gemm_eff = CALIB_DEFAULT_GEMM_EFF;
    c.mem_eff = CALIB_DEFAULT_MEM_EFF;
    return c;
}

void calib_release(struct calib *c)
{
    free(c->gemm);
    free(c->copy);
    free(c->kernel);
    free(c->coll);
    free(c->run);
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

/* ---- calibration files -------------------------------------------------------------------- */

/* The largest "count" a profile may give: 2^20 GPUs, 64 times the largest cluster measured in
 * public (Llama 3 405B's 16,384 H100s); a count is a measured machine, not a simulated one. */
#define CALIB_MAX_GPU_COUNT (1 << 20)

/* A measurement record (gemm, copy, kernel, coll) into c; false if `key` is not one. *ok:
 * its fields were well formed. */
static bool calib_measurement(struct calib *c, const char *key, const char *a, const char *rest,
                              int lineno, bool *ok)
{
    if (strcmp(key, "gemm") == 0) {
        struct calib_gemm g;
        double tf;
        g.dtype = dtype_of(a, ok);
        *ok = *ok && sscanf(rest, "%lf %lf %lf %lf", &g.m, &g.n, &g.k, &tf) == 4 && tf > 0;
        g.flops_s = tf * 1e12;
        g.line = lineno;
        if (*ok) MEM_PUSH(c->gemm, c->ngemm, g);
    } else if (strcmp(key, "copy") == 0 || strcmp(key, "kernel") == 0) {
        struct calib_rate r;
        double gbps;
        snprintf(r.kind, sizeof r.kind, "%s", a);
        *ok = sscanf(rest, "%lf %lf", &r.bytes, &gbps) == 2 && gbps > 0;
        r.Bps = gbps * 1e9;
        r.line = lineno;
        if (*ok && key[0] == 'c')
            MEM_PUSH(c->copy, c->ncopy, r);
        else if (*ok)
            MEM_PUSH(c->kernel, c->nkernel, r);
    } else if (strcmp(key, "coll") == 0) {
        /* NODES is optional: files written before it (and kernels/dmlsim-calibrate, which
         * measures one node) have five numbers */
        struct calib_coll r = {.nodes = 1};
        double t_us;
        int got = sscanf(rest, "%d %lf %lf %lf %lf %d", &r.nranks, &r.bytes, &t_us, &r.algbw,
                         &r.busbw, &r.nodes);
        *ok = coll_op_of_name(a, &r.op) && (got == 5 || got == 6) && t_us > 0 && r.nodes >= 1;
        r.time_s = t_us * 1e-6;
        if (*ok) MEM_PUSH(c->coll, c->ncoll, r);
    } else {
        return false;
    }
    return true;
}

static enum dmlsim_err load_calib_file(const char *path, FILE *f, struct calib *c,
                                       struct dmlsim_error *err)
{
    char line[1024];
    int lineno = 1; /* the header was line 1 */
    c->gemm_eff = CALIB_DEFAULT_GEMM_EFF;
    c->mem_eff = CALIB_DEFAULT_MEM_EFF;
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
        if (calib_measurement(c, key, a, rest, lineno, &ok)) {
            /* a measurement, read (ok says whether it was well formed) */
        } else if (strcmp(key, "source") == 0) {
            snprintf(c->source, sizeof c->source, "%s: %s %s", path, a, rest);
        } else if (strcmp(key, "gpu") == 0) {
            snprintf(c->gpu_name, sizeof c->gpu_name, "%s%s%s", a, rest[0] ? " " : "", rest);
        } else if (strcmp(key, "count") == 0) {
            if (!units_parse_int(a, 1, CALIB_MAX_GPU_COUNT, &c->gpu_count) || rest[0] != '\0')
                return dmlsim_fail(err, DMLSIM_EVALUE,
                                   "%s:%d: count \"%s%s%s\": expected the number of GPUs "
                                   "measured, an integer from 1 to %d",
                                   path, lineno, a, rest[0] ? " " : "", rest, CALIB_MAX_GPU_COUNT);
        } else if (strcmp(key, "nodes") == 0) {
            ok = units_parse_int(a, 1, INT_MAX, &c->nodes) && rest[0] == '\0';
        } else if (strcmp(key, "net") == 0) {
            ok = strlen(a) < sizeof c->net;
            if (ok) memcpy(c->net, a, strlen(a) + 1);
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
                               "kernel, coll, source, gpu, count, nodes, net, driver, cuda, nccl, "
                               "date or nocoll with their fields (see sim/calib.h)",
                               path, lineno, key);
    }
    return DMLSIM_OK;
}

enum dmlsim_err calib_load(const char *path, struct calib *c, struct dmlsim_error *err)
{
    return calib_load_opts(path, NULL, c, err);
}

enum dmlsim_err calib_load_opts(const char *path, const struct calib_opts *opt, struct calib *c,
                                struct dmlsim_error *err)
{
    memset(c, 0, sizeof *c);
    char why[128], first[256] = "";
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot read calibration: %s", path,
                           xmldoc_strerror(errno, why, sizeof why));
    if (!fgets(first, sizeof first, f)) first[0] = '\0';
    snprintf(c->path, sizeof c->path, "%s", path);
    enum dmlsim_err rc;
    if (strncmp(first, "dmlsim-calibration 1", 20) == 0) {
        rc = load_calib_file(path, f, c, err);
    } else {
        rewind(f);
        rc = nccl_log_load(path, f, opt, c, err);
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
    if (c->nodes) fprintf(out, "nodes %d\n", c->nodes);
    if (c->net[0]) fprintf(out, "net %s\n", c->net);
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
        fprintf(out, "coll %s %d %.0f %.6g %.6g %.6g %d\n", collective_op_name(c->coll[i].op),
                c->coll[i].nranks, c->coll[i].bytes, c->coll[i].time_s * 1e6, c->coll[i].algbw,
                c->coll[i].busbw, c->coll[i].nodes > 0 ? c->coll[i].nodes : 1);
    if (c->nocoll[0]) fprintf(out, "nocoll %s\n", c->nocoll);
}

void calib_write_spec(const struct gpu_model *gpu, FILE *out)
{
    struct calib c = calib_default();
    snprintf(c.source, sizeof c.source,
             "spec derived from the %s datasheet (dmlsim catalog) and the default efficiencies "
             "(GEMMs from their shapes, gemm.h; memory 0.92, Meta pytorch/ao roofline_utils.py): "
             "not a measurement",
             gpu->long_name);
    snprintf(c.gpu_name, sizeof c.gpu_name, "%s", gpu->long_name);
    c.gpu_count = 1;
    /* no GEMM rows: GEMMs take the shape model (gemm.h), as with no profile */
    const struct link_class *pcie = catalog_link(gpu->pcie);
    static const char *copies[] = {"h2d-pinned", "d2h-pinned"};
    for (int i = 0; i < 2; i++) {
        struct calib_rate r;
        snprintf(r.kind, sizeof r.kind, "%s", copies[i]);
        r.bytes = 1 << 28;
        r.Bps = pcie->bw_Bps;
        MEM_PUSH(c.copy, c.ncopy, r);
    }
    struct calib_rate d2d = {0, "d2d", 1 << 28, gpu->mem_bw_Bps * CALIB_DEFAULT_MEM_EFF / 2};
    MEM_PUSH(c.copy, c.ncopy, d2d); /* a copy reads and writes: half the bandwidth moves data */
    static const char *kernels[] = {"sgd-momentum", "adam"};
    for (int i = 0; i < 2; i++) {
        struct calib_rate r;
        snprintf(r.kind, sizeof r.kind, "%s", kernels[i]);
        r.bytes = 1 << 28;
        r.Bps = gpu->mem_bw_Bps * CALIB_DEFAULT_MEM_EFF;
        MEM_PUSH(c.kernel, c.nkernel, r);
    }
    snprintf(c.nocoll, sizeof c.nocoll, "spec profile: no measurement");
    calib_write(&c, out);
    calib_release(&c);
}

const struct gpu_model *calib_gpu(const struct calib *c)
{
    return catalog_gpu_match(c->gpu_name); /* the catalog owns the device-name table */
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

double calib_gemm_measured(const struct calib *c, enum gpu_dtype dt, double m, double n, double k,
                           bool *any)
{
    *any = false;
    for (size_t i = 0; i < c->ngemm; i++) {
        const struct calib_gemm *g = &c->gemm[i];
        if (g->dtype != dt) continue;
        *any = true;
        if (g->m == m && g->n == n && g->k == k) return g->flops_s;
    }
    return 0;
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

enum dmlsim_err calib_check_gpu(const struct calib *c, const struct gpu_model *gpu,
                                struct dmlsim_error *err)
{
    for (size_t i = 0; i < c->ngemm; i++) {
        const struct calib_gemm *g = &c->gemm[i];
        double peak = gpu->peak_flops[g->dtype];
        if (peak > 0 && g->flops_s > peak)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: gemm %s %.0f %.0f %.0f at %.1f TFLOP/s is %.0f%% of the %s's "
                               "dense %s peak of %.1f TFLOP/s; expected at most 100%%",
                               c->path, g->line, catalog_dtype_name(g->dtype), g->m, g->n, g->k,
                               g->flops_s / 1e12, 100 * g->flops_s / peak, gpu->name,
                               catalog_dtype_name(g->dtype), peak / 1e12);
    }
    for (size_t i = 0; i < c->nkernel; i++) {
        const struct calib_rate *r = &c->kernel[i];
        if (r->Bps > gpu->mem_bw_Bps)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: kernel %s at %.1f GB/s is above the %s's memory bandwidth "
                               "of %.1f GB/s; expected at most 100%%",
                               c->path, r->line, r->kind, r->Bps / 1e9, gpu->name,
                               gpu->mem_bw_Bps / 1e9);
    }
    return DMLSIM_OK;
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
    case COLL_ALLTOALL:
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
