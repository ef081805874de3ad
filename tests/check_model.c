/* check_model.c - presets computed from their architectures against published parameter counts
 * and FLOPs, and the memory rule. */
#include "calib.h"
#include "gemm.h"
#include "kcost.h"
#include "model.h"
#include "scenario.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <math.h>

static struct model build(const char *name)
{
    struct model m;
    ck_assert_int_eq(model_preset(name, NULL, DTYPE_FP32, &m), 0);
    return m;
}

static void assert_within(double got, double want, double rel, const char *what)
{
    ck_assert_msg(fabs(got - want) <= rel * want, "%s: %.0f, expected %.0f within %.2f%%", what,
                  got, want, 100 * rel);
}

START_TEST(test_exact_counts)
{
    /* torchvision model docs ("Params" column / weights metadata num_params). */
    struct model m = build("resnet50");
    ck_assert_double_eq(model_params(&m), 25557032);
    model_release(&m);
    m = build("resnet101");
    ck_assert_double_eq(model_params(&m), 44549160);
    model_release(&m);
    m = build("resnet152");
    ck_assert_double_eq(model_params(&m), 60192808);
    model_release(&m);
    m = build("vgg16");
    ck_assert_double_eq(model_params(&m), 138357544);
    model_release(&m);
}
END_TEST

START_TEST(test_counts_within_one_percent)
{
    /* Keras Applications table: InceptionV3 23,851,784 parameters (no auxiliary head). */
    struct model m = build("inception-v3");
    assert_within(model_params(&m), 23851784, 0.01, "inception-v3");
    model_release(&m);
    /* Hugging Face model card google-bert/bert-large-uncased: 336M parameters. */
    m = build("bert-large");
    assert_within(model_params(&m), 336e6, 0.01, "bert-large");
    model_release(&m);
    /* GPT-2 small, Hugging Face model card "gpt2": 124M parameters. */
    m = build("gpt");
    assert_within(model_params(&m), 124e6, 0.01, "gpt (GPT-2 small)");
    model_release(&m);
    /* GPT-3 175B (Brown et al. 2020, Table 2.1: 96 layers, d_model 12288, 96 heads, 2048
     * context; vocabulary 50257 as GPT-2). */
    struct gpt_config g = {.layers = 96, .hidden = 12288, .heads = 96, .seq = 2048, .vocab = 50257};
    ck_assert_int_eq(model_preset("gpt", &g, DTYPE_BF16, &m), 0);
    assert_within(model_params(&m), 175e9, 0.01, "GPT-3");
    model_release(&m);
}
END_TEST

START_TEST(test_forward_flops)
{
    /* torchvision model docs, "GFLOPS" column (multiply-adds): ResNet-50 4.09, ResNet-101 7.80,
     * ResNet-152 11.51, VGG-16 15.47, Inception v3 5.71; one multiply-add = 2 FLOPs. */
    static const struct {
        const char *name;
        double gmacs;
    } ref[] = {{"resnet50", 4.09}, {"resnet101", 7.80}, {"resnet152", 11.51}, {"vgg16", 15.47}, {"inception-v3", 5.71}};
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        struct model m = build(ref[i].name);
        assert_within(model_fwd_flops(&m), 2 * ref[i].gmacs * 1e9, 0.01, ref[i].name);
        assert_within(model_bwd_flops(&m), 2 * model_fwd_flops(&m), 1e-12, "backward = 2 fwd");
        model_release(&m);
    }
}
END_TEST

START_TEST(test_memory_rule)
{
    /* 16 B per parameter with Adam: FP32 4 + 4 + 8; mixed 2 + 2 + 4 master + 8 (ZeRO, sec. 3.1):
     * 10B parameters need 160 GB. */
    struct model m;
    model_init(&m, "ten-billion");
    model_add(&m, "w", 10e9, 1, -1, 1000);
    struct memory_need n = model_memory(&m, DTYPE_FP32, OPT_ADAM, 4);
    ck_assert_double_eq(n.weights_B + n.grads_B + n.optimizer_B, 160e9);
    ck_assert_double_eq(n.act_B, 4000);
    ck_assert_double_eq(n.total_B, 160e9 + 4000);
    ck_assert_double_eq(model_memory(&m, DTYPE_BF16, OPT_ADAM, 0).total_B, 160e9);
    ck_assert_double_eq(model_memory(&m, DTYPE_FP32, OPT_SGD, 0).total_B, 80e9);
    ck_assert_double_eq(model_memory(&m, DTYPE_FP32, OPT_MOMENTUM, 0).total_B, 120e9);
    ck_assert_double_eq(model_memory(&m, DTYPE_FP16, OPT_SGD, 0).total_B, 80e9); /* 2+2+4 */
    model_release(&m);
}
END_TEST

START_TEST(test_gpt_formula)
{
    /* 12 h^2 + 13 h per block, vocab*h + seq*h embeddings, 2h final norm (tied head). */
    struct gpt_config g = {.layers = 2, .hidden = 64, .heads = 4, .seq = 16, .vocab = 100};
    struct model m;
    ck_assert_int_eq(model_preset("gpt", &g, DTYPE_FP32, &m), 0);
    double h = 64;
    ck_assert_double_eq(model_params(&m), 2 * (12 * h * h + 13 * h) + 100 * h + 16 * h + 2 * h);
    /* forward per sample: per block s(24h^2 + 4sh), head 2 s h vocab */
    ck_assert_double_eq(model_fwd_flops(&m), 2 * 16 * (24 * h * h + 4 * 16 * h) + 2 * 16 * h * 100);
    model_release(&m);
    ck_assert_int_eq(model_preset("alexnet", NULL, DTYPE_FP32, &m), -1);
    model_release(&m);
}
END_TEST

/* The large presets against their published sizes (within 1%): GPT-3 175B's Table D.1 174.6B;
 * Llama 3 8B, 70B and 405B (Meta's model cards: 8.03B, 70.6B, 405B); Mixtral 8x7B 46.7B
 * parameters (Mistral AI, "Mixtral of experts": 46.7B total, 12.9B used per token). And the
 * Llama block by hand: attention h (h + 2 kv h / a) + h^2, SwiGLU 3 h ffn, two RMSNorms h each,
 * no biases; untied embedding and head v h each, a final norm h. Mixtral: 8 experts' MLPs, a
 * router h x 8; per token 2 of the experts' FLOPs. Split over t = 8 tensor ranks, a rank holds
 * the GEMMs' weights / 8 and the vocabulary / 8, the norms and router whole. */
START_TEST(test_large_presets)
{
    static const struct {
        const char *name;
        double published;
    } big[] = {{"gpt3-175b", 174.6e9},
               {"llama3-8b", 8.03e9},
               {"llama3-70b", 70.6e9},
               {"llama3-405b", 405e9},
               {"mixtral-8x7b", 46.7e9}};
    struct model m;
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        ck_assert_int_eq(model_preset(big[i].name, NULL, DTYPE_BF16, &m), 0);
        assert_within(model_params(&m), big[i].published, 0.01, big[i].name);
        model_release(&m);
    }
    double h = 4096, q = h + 2 * 8 * 128, f = 14336, v = 128256, L = 32, s = 8192;
    ck_assert_int_eq(model_preset("llama3-8b", NULL, DTYPE_BF16, &m), 0);
    ck_assert_double_eq(model_params(&m), L * (h * q + h * h + 3 * h * f + 2 * h) + 2 * v * h + h);
    ck_assert_double_eq(model_fwd_flops(&m),
                        L * s * (2 * (h * q + h * h + 3 * h * f) + 4 * s * h) + 2 * s * h * v);
    model_release(&m);
    struct gpt_config g;
    ck_assert(model_transformer_shape("llama3-8b", &g));
    g.tp = 8;
    ck_assert_int_eq(model_preset("llama3-8b", &g, DTYPE_BF16, &m), 0);
    ck_assert_double_eq(model_params(&m),
                        L * ((h * q + h * h + 3 * h * f) / 8 + 2 * h) + 2 * v / 8 * h + h);
    model_release(&m);
    ck_assert(model_transformer_shape("mixtral-8x7b", &g));
    ck_assert_int_eq(model_preset("mixtral-8x7b", NULL, DTYPE_BF16, &m), 0);
    double mv = 32000, ms = 4096;
    ck_assert_double_eq(model_params(&m),
                        L * (h * q + h * h + 8 * 3 * h * f + 8 * h + 2 * h) + 2 * mv * h + h);
    ck_assert_double_eq(model_fwd_flops(&m),
                        L * ms * (2 * (h * q + h * h + 2 * 3 * h * f + 8 * h) + 4 * ms * h) +
                                2 * ms * h * mv);
    model_release(&m);
}
END_TEST

/* Wave quantization, NVIDIA's Matrix Multiplication Background guide's example: on an A100 (108
 * SMs) a 2304 x 4096 output in 256 x 128 tiles is 9 x 32 = 288 tiles, 2.67 waves run as 3. With
 * K = 4096: efficiency = ceiling x 288 / (3 x 108) x K / (K + fill), the tile 256 x 128 (a
 * 128 x 128 tile needs 6 waves at 3/4 of the reuse: slower), no split of K (6 waves of half K
 * plus the fills and the reduction of the partial outputs at the memory rate: slower). */
START_TEST(test_gemm_wave_quantization)
{
    const struct gpu_model *g = catalog_gpu("a100");
    struct gemm_est e;
    gemm_estimate(g, DTYPE_BF16, g->mem_bw_Bps, &(struct gemm_shape){2304, 4096, 4096, 1}, &e);
    double want = 271.2 / 312 * 288.0 / 324 * 4096 / (4096 + GEMM_K_FILL);
    ck_assert_int_eq(e.tile_m * e.tile_n, 256 * 128);
    ck_assert_double_eq(e.waves, 3);
    ck_assert_double_eq(e.split, 1);
    ck_assert_msg(fabs(e.eff - want) < 1e-12, "eff %.6f, expected %.6f", e.eff, want);
}
END_TEST

/* Tile quantization: one row more (M = 2305) needs a tenth row of tiles: 10 x 32 = 320 tiles,
 * still 3 waves of 108; the padded outputs compute too: efficiency x 2305 / 2560 and
 * x 320 / 324 for the waves. */
START_TEST(test_gemm_tile_quantization)
{
    const struct gpu_model *g = catalog_gpu("a100");
    struct gemm_est e;
    gemm_estimate(g, DTYPE_BF16, g->mem_bw_Bps, &(struct gemm_shape){2305, 4096, 4096, 1}, &e);
    double want = 271.2 / 312 * 2305.0 / 2560 * 320.0 / 324 * 4096 / (4096 + GEMM_K_FILL);
    ck_assert_msg(fabs(e.eff - want) < 1e-12, "eff %.6f, expected %.6f", e.eff, want);
    ck_assert_msg(fabs(e.quant_eff - 2305.0 / 2560) < 1e-12, "quant %.6f", e.quant_eff);
}
END_TEST

/* Operand reuse: FP32 runs on the SIMT cores (67 of H100's 989 TFLOP/s): no tile is bound by
 * operand bandwidth; in BF16 a 128 x 64 tile reuses 128*64/192 = 42.7 operands per load, half a
 * 256 x 128 tile's 85.3. A skinny GEMM (1 row, K 64): the memory roofline. */
START_TEST(test_gemm_reuse_and_memory)
{
    const struct gpu_model *g = catalog_gpu("h100");
    struct gemm_est e;
    gemm_estimate(g, DTYPE_FP32, 0, &(struct gemm_shape){128, 64, 4096, 1}, &e);
    ck_assert_double_eq(e.reuse_eff, 1);
    gemm_estimate(g, DTYPE_BF16, 0, &(struct gemm_shape){128, 64, 65536, 132}, &e);
    ck_assert_int_eq(e.tile_m * e.tile_n, 128 * 64);
    ck_assert_msg(fabs(e.reuse_eff - 0.5) < 1e-12, "reuse %.6f", e.reuse_eff);
    double bw = 1e12;
    gemm_estimate(g, DTYPE_BF16, bw, &(struct gemm_shape){1, 1e6, 64, 1}, &e);
    ck_assert(e.memory_bound);
    double bytes = (1 * 64 + 64 * 1e6 + 1e6) * 2;
    ck_assert_msg(fabs(e.seconds - bytes / bw) < 1e-15, "%.9g s", e.seconds);
}
END_TEST

/* The host: eagerly, each kernel costs the CPU h; ten 1 us kernels with h = 5 us finish at
 * 10 h + 1 us = 51 us, the GPU waiting 41 us of it (CPU-bound); ten 20 us kernels finish at
 * h + 200 us (GPU-bound: the first wait only); as one CUDA graph, the ten short kernels finish
 * at h + 10 us. */
START_TEST(test_host_stream)
{
    struct kernel_costs eager = {.launch_s = 5e-6, .host = HOST_EAGER};
    struct kernel_costs graphs = {.launch_s = 5e-6, .host = HOST_GRAPHS};
    struct kstream s = {0};
    for (int i = 0; i < 10; i++)
        kstream_issue(&s, &eager, 1e-6);
    ck_assert_msg(fabs(s.gpu - 51e-6) < 1e-15 && fabs(s.wait - 41e-6) < 1e-15, "%g %g", s.gpu,
                  s.wait);
    s = (struct kstream){0};
    for (int i = 0; i < 10; i++)
        kstream_issue(&s, &eager, 20e-6);
    ck_assert(fabs(s.gpu - 205e-6) < 1e-15 && fabs(s.wait - 5e-6) < 1e-15);
    s = (struct kstream){0};
    for (int i = 0; i < 10; i++)
        kstream_issue(&s, &graphs, 1e-6);
    ck_assert(fabs(s.gpu - 15e-6) < 1e-15 && fabs(s.wait - 5e-6) < 1e-15);
}
END_TEST

/* Mixed precision's extra bytes: FP16 loss scaling reads and writes each 16-bit gradient (4 B a
 * parameter); FP8 casts each BF16 weight (2 read + 1 written) and each GEMM's activation operand
 * (K x N elements, 3 B each); BF16 adds nothing. */
START_TEST(test_amp_bytes)
{
    ck_assert_double_eq(kcost_amp_bytes_per_param(DTYPE_FP16, false), 4);
    ck_assert_double_eq(kcost_amp_bytes_per_param(DTYPE_FP8, false), 3);
    ck_assert_double_eq(kcost_amp_bytes_per_param(DTYPE_BF16, false), 0);
    /* autocast: weight cast 4 + 2, gradient cast 2 + 4, FP16's unscale of FP32 gradients 4 + 4 */
    ck_assert_double_eq(kcost_amp_bytes_per_param(DTYPE_BF16, true), 12);
    ck_assert_double_eq(kcost_amp_bytes_per_param(DTYPE_FP16, true), 20);
    ck_assert_double_eq(kcost_amp_bytes_per_param(DTYPE_TF32, true), 0);
    struct calib cal = calib_default();
    struct kcost_gpu g = {&cal, catalog_gpu("h100"), DTYPE_FP8, 3e12};
    struct kernel k = {.cls = KC_GEMM, .m = 4096, .n = 1024, .k = 4096, .bdim = 1};
    struct kcost c;
    kcost_kernel(&g, &k, 2, &c);
    ck_assert_double_eq(c.cast_B, 4096.0 * 1024 * 2 * 3);
    ck_assert_double_eq(c.flops, 2.0 * 4096 * 1024 * 2 * 4096);
    g.dt = DTYPE_BF16;
    kcost_kernel(&g, &k, 2, &c);
    ck_assert_double_eq(c.cast_B, 0);
}
END_TEST

/* FlashAttention (FlashAttention-2, section 3): forward 4 s^2 d heads FLOPs, halved by a causal
 * mask, backward 2.5 x; a block keeps Korthikanti's 34 s h bytes (16-bit) and the logsumexp
 * (4 B per query and head) instead of the materialised 5 a s^2 bytes of scores. */
START_TEST(test_flash_attention)
{
    struct gpt_config g = model_gpt_defaults(); /* 12 x 768, 12 heads, s 1024 */
    struct model f, mt;
    ck_assert_int_eq(model_preset("gpt", &g, DTYPE_BF16, &f), 0);
    g.attention = ATTN_MATERIALISED;
    ck_assert_int_eq(model_preset("gpt", &g, DTYPE_BF16, &mt), 0);
    const struct layer *bf = &f.layers[1], *bm = &mt.layers[1]; /* block0 */
    double s = 1024, h = 768, a = 12, hd = 64, fwd = 4 * s * s * hd * a * 0.5;
    int found = 0;
    for (int i = 0; i < bf->nfwd; i++)
        if (bf->fwd[i].cls == KC_ATTN) found += bf->fwd[i].flops == fwd;
    for (int i = 0; i < bf->nbwd; i++)
        if (bf->bwd[i].cls == KC_ATTN) found += bf->bwd[i].flops == 2.5 * fwd;
    ck_assert_int_eq(found, 2);
    ck_assert_double_eq(bf->act_B, 34 * s * h + 4 * a * s);
    ck_assert_double_eq(bm->act_B, s * h * (34 + 5 * a * s / h));
    for (int i = 0; i < bm->nfwd; i++)
        ck_assert(bm->fwd[i].cls != KC_ATTN);
    model_release(&f);
    model_release(&mt);
}
END_TEST

/* BERT's heads as Hugging Face's BertForPreTraining holds them: the masked-LM transform (dense
 * 1024 x 1024 + bias, layer norm 2 x 1024), the decoder's bias (30522; its weights are the word
 * embeddings'), next-sentence prediction (1024 x 2 + 2): 1,082,170 + 2,050 over BertModel's
 * 335,141,888; the SQuAD head 1024 x 2 + 2. The decoder is a GEMM of 30522 x s x 1024. */
START_TEST(test_bert_heads)
{
    struct gpt_config g = {.seq = 128, .head = BERT_HEAD_PRETRAINING};
    struct model m;
    ck_assert_int_eq(model_preset("bert-large", &g, DTYPE_FP32, &m), 0);
    ck_assert_double_eq(model_params(&m), 335141888.0 + 1049600 + 2048 + 30522 + 2050);
    bool decoder = false;
    for (size_t l = 0; l < m.nlayers; l++)
        for (int i = 0; i < m.layers[l].nfwd; i++)
            decoder |= m.layers[l].fwd[i].m == 30522 && m.layers[l].fwd[i].n == 128;
    ck_assert(decoder);
    model_release(&m);
    g.head = BERT_HEAD_SQUAD;
    ck_assert_int_eq(model_preset("bert-large", &g, DTYPE_FP32, &m), 0);
    ck_assert_double_eq(model_params(&m), 335141888.0 + 2050);
    model_release(&m);
}
END_TEST

/* A <cluster> without intra gets the GPU's own GPU-to-GPU class, the one `dmlsim validate`
 * assumes for it: NVLink for SXM boards (h100: nvlink4, NVIDIA H100 datasheet, SXM5 NVLink 900
 * GB/s), PCIe for cards (l40s: "NVLink not supported", L40S datasheet). Before issue 29 every GPU
 * got its PCIe class here. Then every catalog GPU, as validate reads it (g->intra). */
static const struct link_class *default_intra(const char *gpu)
{
    char path[] = "/tmp/dmlsim-intra-XXXXXX.xml";
    int fd = mkstemps(path, 4);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "<scenario><cluster nodes=\"1\" gpus-per-node=\"4\" gpu=\"%s\"/>"
               "<benchmark kind=\"allreduce\" begin=\"1MiB\" end=\"1MiB\"/></scenario>\n",
            gpu);
    fclose(f);
    struct scenario sc;
    struct dmlsim_error err = {0};
    ck_assert_msg(scenario_load(path, &sc, &err) == DMLSIM_OK, "%s", err.msg);
    unlink(path);
    const struct link_class *lc = sc.cluster.intra;
    scenario_release(&sc);
    return lc;
}

START_TEST(test_cluster_default_intra)
{
    ck_assert_str_eq(default_intra("h100")->name, "nvlink4");
    ck_assert_str_eq(default_intra("l40s")->name, "pcie-gen4");
    size_t n;
    const struct gpu_model *g = catalog_gpus(&n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(default_intra(g[i].name) == catalog_link(g[i].intra),
                      "%s: <cluster> default intra differs from the GPU's own %s", g[i].name,
                      g[i].intra);
}
END_TEST

/* The GPUs of issue 29, found by the names nccl-tests' rank lines print (tests/data/nccl/public:
 * "NVIDIA L40S", "NVIDIA GeForce RTX 4090"), PCIe-only where the datasheets say no NVLink; GB200
 * and B300 on NVLink 5, whose per-GPU 1.8 TB/s (both directions, GB200 NVL72 and HGX B300
 * specifications) is 900 GB/s each way: the class's line rate. */
START_TEST(test_catalog_issue29_gpus)
{
    ck_assert_ptr_eq(catalog_gpu_match("NVIDIA L40S"), catalog_gpu("l40s"));
    ck_assert_ptr_eq(catalog_gpu_match("NVIDIA L4"), catalog_gpu("l4"));
    ck_assert_ptr_eq(catalog_gpu_match("NVIDIA GeForce RTX 4090"), catalog_gpu("rtx4090"));
    ck_assert_ptr_eq(catalog_gpu_match("NVIDIA GB200"), catalog_gpu("gb200"));
    static const char *const pcie_only[] = {"l40s", "l4", "rtx4090"};
    for (size_t i = 0; i < sizeof pcie_only / sizeof pcie_only[0]; i++)
        ck_assert_int_eq(catalog_link(catalog_gpu(pcie_only[i])->intra)->kind, LINK_PCIE);
    static const char *const nvl5[] = {"gb200", "b300"};
    for (size_t i = 0; i < 2; i++) {
        const struct link_class *lc = catalog_link(catalog_gpu(nvl5[i])->intra);
        ck_assert_int_eq(lc->kind, LINK_NVLINK);
        ck_assert_double_eq_tol(lc->line_bw_Bps, 1.8e12 / 2, 1);
    }
    /* dense peaks: the datasheets' sparsity figures halved (L4 FP8 485 -> 242.5 TFLOPS; GB200
     * NVL72 FP8 720 PFLOPS / 72 / 2 = 5 PFLOPS) */
    ck_assert_double_eq_tol(catalog_gpu("l4")->peak_flops[DTYPE_FP8], 485e12 / 2, 1e6);
    ck_assert_double_eq_tol(catalog_gpu("gb200")->peak_flops[DTYPE_FP8], 720e15 / 72 / 2, 1e6);
}
END_TEST

static Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("presets");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_exact_counts);
    tcase_add_test(tc, test_cluster_default_intra);
    tcase_add_test(tc, test_catalog_issue29_gpus);
    tcase_add_test(tc, test_counts_within_one_percent);
    tcase_add_test(tc, test_forward_flops);
    tcase_add_test(tc, test_memory_rule);
    tcase_add_test(tc, test_gpt_formula);
    tcase_add_test(tc, test_large_presets);
    tcase_add_test(tc, test_gemm_wave_quantization);
    tcase_add_test(tc, test_gemm_tile_quantization);
    tcase_add_test(tc, test_gemm_reuse_and_memory);
    tcase_add_test(tc, test_host_stream);
    tcase_add_test(tc, test_amp_bytes);
    tcase_add_test(tc, test_flash_attention);
    tcase_add_test(tc, test_bert_heads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(model_suite());
}
