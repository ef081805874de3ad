/* validate_calib.c - `dmlsim calib` (see validate_calib.h). */
#include "validate_calib.h"

#include "calib.h"
#include "cmdline.h"
#include "outfile.h"

#include <stdio.h>

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
    if (outfile_write(&o, 1, &err) != DMLSIM_OK) return cli_fail(&err);
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
    if (calib_load(path, &c, &err) != DMLSIM_OK) return cli_fail(&err);
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
