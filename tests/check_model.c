/* check_model.c - presets computed from their architectures against published parameter counts
 * and FLOPs, and the memory rule. */
#include "model.h"
#include "testlib.h"

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
     * VGG-16 15.47, Inception v3 5.71; one multiply-add = 2 FLOPs. */
    static const struct {
        const char *name;
        double gmacs;
    } ref[] = {{"resnet50", 4.09}, {"resnet101", 7.80}, {"vgg16", 15.47}, {"inception-v3", 5.71}};
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
    } big[] = {{"gpt3-175b", 174.6e9}, {"llama3-8b", 8.03e9}, {"llama3-70b", 70.6e9},
               {"llama3-405b", 405e9}, {"mixtral-8x7b", 46.7e9}};
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

static Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("presets");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_exact_counts);
    tcase_add_test(tc, test_counts_within_one_percent);
    tcase_add_test(tc, test_forward_flops);
    tcase_add_test(tc, test_memory_rule);
    tcase_add_test(tc, test_gpt_formula);
    tcase_add_test(tc, test_large_presets);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(model_suite());
}
