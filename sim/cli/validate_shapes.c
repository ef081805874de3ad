/* validate_shapes.c - `dmlsim shapes` (see validate_shapes.h). */
#include "validate_shapes.h"

#include "calib.h"
#include "cmdline.h"
#include "gemm.h"
#include "kcost.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (calib_load(path, &c, &err) != DMLSIM_OK) return cli_fail(&err);
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
    static const char *presets[] = {"resnet50",     "resnet101",  "resnet152",  "vgg16",
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
