/* check_hy_dpov.c - the hybrid strategy's overlapped data-parallel collectives (hy_dpov.h,
 * <parallel overlap-grad-reduce overlap-param-gather bucket-size>) against closed forms.
 *
 * A small GPT (preset "gpt": blocks of Psi_b = 12h^2 + 13h parameters, an embedding of
 * (8 + 256) h with a vocabulary of 8 and 256 positions, a final norm of 2h) of 4 blocks of
 * h = 1024 on one node of H100s on NVLink4, bf16, a microbatch of 8, ring collectives at message
 * level: on 2 replicas an all-reduce of S bytes takes 2(a + S / 2B), a reduce-scatter or an
 * all-gather a + S / 2B (a the NVLink4 hop latency, B its rate; check_collective). With
 * bucket-size Psi_b + 1 the buckets, formed in reverse layer order and closed on the layer that
 * fills them, are {output layer, block 4}, {block 3, block 2}, {block 1, embedding}: the last
 * reduced (and the first gathered) holds S_0 = 2 (Psi_b + 264h) bytes, the others
 * S_1 = 2 x 2 Psi_b and S_2 = 2 (Psi_b + 2h). A block's backward (about 0.24 ms here) is longer
 * than the reduction of the bucket before it (2 blocks: about 0.11 ms), and its forward longer
 * than a bucket's gather, so only the last reduction and the first gather can show.
 */
#include "hybrid_metrics.h"
#include "metrics.h"
#include "testlib.h"

#define H     1024.0
#define PSI_B (12 * H * H + 13 * H) /* a block's parameters */

/* One run's settings (a child process each). */
struct ov_case {
    int dp, pp, m, zero, ep;
    bool grad, params; /* overlap-grad-reduce, overlap-param-gather */
    bool moe;          /* test_expert_bytes' mixture of experts instead of the GPT */
    long bucket;       /* bucket-size (0: Megatron's default) */
};

/* What a run gives back. */
struct ov_out {
    double total_s, step_s[2]; /* the run, its two steps */
    double dp_s, dp_B;         /* dp_exposed_s, the data-parallel bytes */
    double a, B;               /* NVLink4: hop latency, rate */
};

static void ov_run(const void *arg, void *out)
{
    const struct ov_case *k = arg;
    struct scenario sc = test_cluster(1, k->dp * k->pp, "h100", "nvlink4", NULL, 1);
    sc.model.present = true;
    sc.model.preset = strdup("gpt");
    sc.model.gpt = (struct gpt_config){.layers = 4,
                                       .hidden = (int)H,
                                       .heads = 16,
                                       .seq = 256,
                                       .vocab = 8,
                                       .attention = ATTN_MATERIALISED};
    if (k->moe) /* 2 blocks of h = 512, 4 experts of SwiGLU 4h, 2 a token */
        sc.model.gpt = (struct gpt_config){.layers = 2,
                                           .hidden = 512,
                                           .heads = 16,
                                           .seq = 256,
                                           .vocab = 8,
                                           .attention = ATTN_MATERIALISED,
                                           .llama = true,
                                           .kv_heads = 16,
                                           .experts = 4,
                                           .topk = 2};
    struct parallel_spec p = {.tp = 1,
                              .pp = k->pp,
                              .dp = k->dp,
                              .ep = k->ep > 1 ? k->ep : 1,
                              .microbatches = k->m,
                              .vstages = 1,
                              .zero = k->zero,
                              .overlap_grad = k->grad,
                              .overlap_params = k->params,
                              .bucket_params = k->bucket};
    sc.train = test_hybrid_train(p, 8);
    struct platform *pf = test_load(&sc);
    struct model full;
    struct calib cal = calib_default();
    scenario_build_model(&sc, &full);
    struct run_record rec;
    test_train(&sc, pf, &full, &cal, &rec);
    const struct hybrid_record *h = hybrid_metrics_of(&rec);
    const struct link_class *nv = catalog_link("nvlink4");
    struct ov_out *o = out;
    *o = (struct ov_out){.total_s = rec.total_s,
                         .step_s = {test_step(&rec, 0)->time_s, test_step(&rec, 1)->time_s},
                         .dp_s = h->par_dp_s,
                         .dp_B = h->par_bytes[2],
                         .a = nv->hop_lat_s,
                         .B = nv->bw_Bps};
    run_release(&rec);
    model_release(&full);
    platform_free(pf);
    scenario_release(&sc);
}

static struct ov_out ov(struct ov_case k)
{
    struct ov_out o;
    test_in_child(ov_run, &k, &o, sizeof o);
    return o;
}

/* (a) Gradients reduced during the backward (pp 1, dp 2, no ZeRO): a step is the same step
 * without data parallelism (dp 1: the same kernels and optimizer) plus the last bucket's
 * all-reduce alone, 2(a + S_0 / 2B), and that is dp_exposed_s. (b) Without overlap (today's) the
 * whole all-reduce after the backward shows: 2(a + S / 2B), S = 2 Psi. */
START_TEST(test_grad_overlap)
{
    struct ov_out one = ov((struct ov_case){.dp = 1, .pp = 1, .m = 1});
    struct ov_out on =
            ov((struct ov_case){.dp = 2, .pp = 1, .m = 1, .grad = true, .bucket = (long)PSI_B + 1});
    struct ov_out off = ov((struct ov_case){.dp = 2, .pp = 1, .m = 1});
    double a = on.a, B = on.B, S0 = 2 * (PSI_B + 264 * H);
    double S = 2 * (4 * PSI_B + 264 * H + 2 * H);
    double last = 2 * (a + S0 / (2 * B)), all = 2 * (a + S / (2 * B));
    for (int s = 0; s < 2; s++) {
        test_assert_rel(on.step_s[s] - one.step_s[s], last, 1e-6, "overlapped: last bucket");
        test_assert_rel(off.step_s[s] - one.step_s[s], all, 1e-6, "not overlapped: all of it");
    }
    test_assert_rel(on.dp_s, last, 1e-6, "dp_exposed_s overlapped");
    test_assert_rel(off.dp_s, all, 1e-6, "dp_exposed_s not overlapped");
}
END_TEST

/* (c) ZeRO-1 (the distributed optimizer), 2 steps: bucket-wise reduce-scatters overlapped
 * either way; with overlap-param-gather the all-gathers leave step 1 (dispatched after its
 * optimizer, into step 2's forward), where the first bucket's, a + S_0 / 2B, is waited for
 * before the first layer and the others hide behind the forward; the last step gathers
 * synchronously (Megatron's end of training), as without the option. So step 1 is shorter by
 * every bucket's gather, sum_k (a + S_k / 2B), and step 2 longer by the first's. */
START_TEST(test_param_overlap)
{
    struct ov_case k = {
            .dp = 2, .pp = 1, .m = 1, .zero = 1, .grad = true, .bucket = (long)PSI_B + 1};
    struct ov_out grad = ov(k);
    k.params = true;
    struct ov_out both = ov(k);
    double a = grad.a, B = grad.B;
    double S[3] = {2 * (PSI_B + 264 * H), 2 * 2 * PSI_B, 2 * (PSI_B + 2 * H)};
    double gathers = 0;
    for (int i = 0; i < 3; i++)
        gathers += a + S[i] / (2 * B);
    test_assert_rel(grad.step_s[0] - both.step_s[0], gathers, 1e-6, "step 1: every gather hidden");
    test_assert_rel(both.step_s[1] - grad.step_s[1], a + S[0] / (2 * B), 1e-6,
                    "step 2: the first bucket's gather waited for");
}
END_TEST

/* (d) The same collectives, bucketed or not: the data-parallel bytes are 2 (d - 1) Psi x 2 bytes
 * a step (all-reduce, or reduce-scatter and all-gather; ZeRO section 7) with or without overlap,
 * here with 2 stages (the second unbucketed) and 2 microbatches (reduced on the last only) and
 * Megatron's default bucket size (one bucket: the model is below 40M parameters). */
START_TEST(test_bytes)
{
    int zero = _i;
    struct ov_case k = {.dp = 2, .pp = 2, .m = 2, .zero = zero};
    struct ov_out off = ov(k);
    k.grad = true;
    k.params = zero == 1;
    struct ov_out on = ov(k);
    k.bucket = 1; /* a bucket a layer on stage 0 */
    struct ov_out small = ov(k);
    double psi = 4 * PSI_B + 264 * H + 2 * H, want = 2 * 2 * (2 - 1) * psi * 2;
    test_assert_rel(off.dp_B, want, 1e-9, "bytes not overlapped");
    test_assert_rel(on.dp_B, want, 1e-9, "bytes overlapped");
    test_assert_rel(small.dp_B, want, 1e-9, "bytes in a bucket a layer");
}
END_TEST

/* Experts (ep 2 of 4 replicas, m = 2, ZeRO 0 and 1): a bucket's dense bytes over the 4
 * replicas, its experts' over the 2 holding the same ones, as without overlap (check_hybrid's
 * test_expert_bytes): 2 ((d - 1) Psi_dense + ep (d / ep - 1) L Psi_experts) x 2 bytes a step,
 * Psi_experts = E / ep x 3 h 4h a block, Psi_dense = L (4h^2 + h E + 2h) + 8h + h + 8h. */
START_TEST(test_expert_bytes)
{
    struct ov_case k = {.dp = 4,
                        .pp = 1,
                        .m = 2,
                        .zero = _i,
                        .ep = 2,
                        .moe = true,
                        .grad = true,
                        .params = _i == 1,
                        .bucket = 1};
    struct ov_out on = ov(k);
    double h = 512, L = 2, E = 4, d = 4, ep = 2, experts = E / ep * 3 * h * 4 * h;
    double dense = L * (4 * h * h + h * E + 2 * h) + 8 * h + h + 8 * h;
    double want = 2 * 2 * ((d - 1) * dense + ep * (d / ep - 1) * L * experts) * 2;
    test_assert_rel(on.dp_B, want, 1e-9, "data-parallel bytes: dense and experts, overlapped");
}
END_TEST

static Suite *hy_dpov_suite(void)
{
    Suite *s = suite_create("hy_dpov");
    TCase *tc = tcase_create("overlap");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_grad_overlap);
    tcase_add_test(tc, test_param_overlap);
    tcase_add_loop_test(tc, test_bytes, 0, 2);
    tcase_add_loop_test(tc, test_expert_bytes, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(hy_dpov_suite());
}
