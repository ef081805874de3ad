/* check_hycp.c - context parallelism in the hybrid strategy (<parallel cp>, parallel.h, hy_cp.h)
 * against closed forms: where the ranks sit, the bytes the ring and the all-gather carry, the
 * data-parallel reduction over the dp x cp ranks, the memory of s / cp tokens, a rank's compute
 * and the ring's exposed time.
 *
 * A small GPT (preset "gpt": blocks of 12h^2 + 13h parameters, learned positions of s h, 16
 * heads, FlashAttention: the attention context parallelism runs in) on one node of H100s on
 * NVLink4, bf16, Adam, ring collectives at message level. A message between two GPUs of the node
 * takes a + S / B, a the NVLink4 hop latency and B its rate (check_collective). */
#include "calib.h"
#include "hybrid_metrics.h"
#include "metrics.h"
#include "parallel.h"
#include "testlib.h"
#include "worker.h"

#include <simgrid/host.h>

#define HY(run) hybrid_metrics_of(&(run).rec) /* a run's hybrid part (hybrid_metrics.h) */

/* One node of n H100s training a GPT of `layers` blocks of hidden h, s tokens, under p. */
static struct scenario cp_scenario(int n, int layers, int h, int s, int b, struct parallel_spec p)
{
    struct scenario sc = test_cluster(1, n, "h100", "nvlink4", NULL, 1);
    sc.model.present = true;
    sc.model.preset = strdup("gpt");
    sc.model.gpt = (struct gpt_config){.layers = layers,
                                       .hidden = h,
                                       .heads = 16,
                                       .seq = s,
                                       .vocab = 8,
                                       .attention = ATTN_FLASH};
    sc.train = test_hybrid_train(p, b);
    return sc;
}

/* Runs sc into rec (run_release). */
static void cp_run(struct scenario *sc, struct run_record *rec)
{
    memset(rec, 0, sizeof *rec);
    struct platform *pf = test_load(sc);
    struct model full;
    struct calib cal = calib_default();
    scenario_build_model(sc, &full);
    test_train(sc, pf, &full, &cal, rec);
    model_release(&full);
    platform_free(pf);
}

/* Ranks: rank = t + tp (c + cp (d + dp s)) (tp-dp-pp, Megatron-Core's tp-cp-ep-dp-pp) or
 * t + tp (c + cp (s + pp d)) (tp-pp-dp): the context ranks right after the tensor ranks; every
 * rank's coordinates come back; cp = 1 is today's t + tp (d + dp s). */
START_TEST(test_coords)
{
    for (int outer = 0; outer < 2; outer++) {
        struct parallel_spec p = {.tp = 2, .cp = 3, .pp = 2, .dp = 2, .dp_outer = outer};
        int seen[24] = {0};
        for (int s = 0; s < 2; s++)
            for (int d = 0; d < 2; d++)
                for (int c = 0; c < 3; c++)
                    for (int t = 0; t < 2; t++) {
                        int want = outer ? t + 2 * (c + 3 * (s + 2 * d))
                                         : t + 2 * (c + 3 * (d + 2 * s));
                        int k = par_rank_cp(&p, t, c, s, d), t2, c2, s2, d2;
                        ck_assert_int_eq(k, want);
                        par_coords_cp(&p, k, &t2, &c2, &s2, &d2);
                        ck_assert(t2 == t && c2 == c && s2 == s && d2 == d);
                        seen[k]++;
                    }
        for (int k = 0; k < 24; k++)
            ck_assert_int_eq(seen[k], 1);
    }
    struct parallel_spec q = {.tp = 4, .cp = 1, .pp = 2, .dp = 3};
    ck_assert_int_eq(par_rank_cp(&q, 3, 0, 1, 2), 3 + 4 * (2 + 3 * 1));
    ck_assert_int_eq(par_rank(&q, 3, 1, 2), 3 + 4 * (2 + 3 * 1));
}
END_TEST

/* Bytes by group, tp = pp = dp = 1, so the tensor dimension carries the context exchange only.
 * A rank's K and V chunk: X = 2 b (s / cp) a hd 2 bytes (16 heads of h / 16). p2p, per block and
 * microbatch, each of the cp ranks sends cp - 1 chunks in the forward and 2 (cp - 1) in the
 * backward (K and V, then dK and dV): 3 cp (cp - 1) X. all-gather: a ring all-gather of cp X
 * over cp ranks carries (cp - 1) cp X, twice (forward, backward), and the reduce-scatter of dK
 * and dV as much: 3 cp (cp - 1) X too. The data bytes: the cp ranks hold the same parameters,
 * their gradients all-reduced over them: 2 (cp - 1) Psi a step (ZeRO-0), Psi the whole model's
 * bytes with the positions of all s tokens (s h). */
START_TEST(test_cp_bytes)
{
    static const struct {
        int cp;
        bool ag;
    } cases[] = {{2, false}, {4, false}, {4, true}};
    int cp = cases[_i].cp, m = 2, b = 2, L = 2, h = 512, s = 512;
    struct parallel_spec p = {
            .tp = 1, .pp = 1, .dp = 1, .cp = cp, .cp_allgather = cases[_i].ag, .microbatches = m};
    struct scenario sc = cp_scenario(cp, L, h, s, b, p);
    struct run_record rec;
    cp_run(&sc, &rec);
    double X = 2.0 * b * (s / cp) * h * 2, steps = 2;
    double psi = L * (12.0 * h * h + 13 * h) + (8.0 + s) * h + 2 * h;
    test_assert_rel(hybrid_metrics_of(&rec)->par_bytes[0], steps * m * L * 3 * cp * (cp - 1) * X,
                    1e-9, "context-parallel bytes");
    test_assert_rel(hybrid_metrics_of(&rec)->par_bytes[2], steps * 2 * (cp - 1) * psi * 2, 1e-9,
                    "gradients reduced over the context ranks");
    ck_assert_double_eq(hybrid_metrics_of(&rec)->par_bytes[1], 0);
    run_release(&rec);
    scenario_release(&sc);
}
END_TEST

/* Memory (Korthikanti et al. 2022 with s / cp tokens, FlashAttention's logsumexp 4 a s / t):
 * 1F1B's pp microbatches in flight on stage 0 of b (L / pp (s' h (10 + 24 / t) + 4 a s' / t) +
 * 2 s' h) with s' = s / cp; ZeRO over the dp x cp ranks; the parameters those of every token's
 * positions. */
START_TEST(test_memory)
{
    int h = 1024, L = 8, a = 16, s = 1024, b = 2, t = 2, pp = 2, d = 2, m = 6, cp = 4;
    struct gpt_config g = {.layers = L, .hidden = h, .heads = a, .seq = s, .vocab = 8};
    double sc = (double)s / cp, sh = sc * h;
    for (int zero = 0; zero <= 3; zero++) {
        struct parallel_spec p = {
                .ep = 1, .tp = t, .cp = cp, .pp = pp, .dp = d, .microbatches = m, .zero = zero};
        ck_assert(par_shape_ok(&p, &g));
        struct par_memory x = par_memory(&p, "gpt", &g, DTYPE_BF16, OPT_ADAM, b);
        double blk = (12.0 * h * h) / t + (3.0 * h + 4.0 * h) / t + h + h + 4 * h;
        double psi = L / pp * blk + (8.0 / t) * h + (double)s * h, n = d * cp;
        double want[] = {16 * psi, 4 * psi + 12 * psi / n, 2 * psi + 14 * psi / n, 16 * psi / n};
        double act = (double)b * pp * (L / pp * (sh * (10 + 24.0 / t) + 4.0 * a * sc / t) + 2 * sh);
        test_assert_rel(x.weights_B + x.grads_B + x.optimizer_B, want[zero], 1e-12,
                        "weights, gradients and optimizer state, ZeRO over dp x cp");
        test_assert_rel(x.act_B, act, 1e-12, "activations of s / cp tokens");
    }
    /* sequence parallelism: selective recomputation keeps 34 s' h / t a block, full its input,
       2 s' h / t */
    static const enum recompute rc[] = {RECOMPUTE_SELECTIVE, RECOMPUTE_FULL};
    for (int k = 0; k < 2; k++) {
        struct parallel_spec p = {.ep = 1,
                                  .tp = t,
                                  .cp = cp,
                                  .pp = pp,
                                  .dp = d,
                                  .microbatches = m,
                                  .sp = true,
                                  .recompute = rc[k]};
        struct par_memory x = par_memory(&p, "gpt", &g, DTYPE_BF16, OPT_ADAM, b);
        double blk = k == 0 ? 34 * sh / t : 2 * sh / t;
        test_assert_rel(x.act_B, (double)b * pp * (L / pp * blk + 2 * sh), 1e-12,
                        "recomputed activations of s / cp tokens");
    }
    struct parallel_spec p = {.ep = 1, .tp = t, .cp = 3, .pp = pp, .dp = d, .microbatches = m};
    ck_assert(!par_shape_ok(&p, &g)); /* 1024 tokens: not 6 chunks */
}
END_TEST

/* A rank's compute per step (a child process each). */
static void compute_run(const void *arg, void *out)
{
    const int *v = arg; /* cp, h, s */
    struct parallel_spec p = {.tp = 1, .pp = 1, .dp = 1, .cp = v[0], .microbatches = 2};
    struct scenario sc = cp_scenario(v[0], 2, v[1], v[2], 1, p);
    struct run_record rec;
    cp_run(&sc, &rec);
    double *o = out;
    o[0] = hybrid_metrics_of(&rec)->par_compute_s;
    o[1] = hybrid_metrics_of(&rec)->par_tp_s;
    run_release(&rec);
    scenario_release(&sc);
}

/* A rank's compute: its s / cp tokens through the linear layers (1 / cp of the work) and its
 * share of the causal attention (s / cp queries against the keys before them, balanced: 1 / cp
 * of it), so 1 / cp of cp = 1's, whether the GEMMs dominate (h 4096, s 4096: the attention
 * s / 6h = 1/6 of the FLOPs) or the attention (h 1024, s 16384: 2.7 times the GEMMs'); at
 * least that and within 5% (a rank's 1024 or more tokens keep its GEMMs as efficient; with a
 * few hundred their waves run part-empty and the ratio grows); and exactly closed_run's. */
/* The closed form of compute_run's rank (a child process): m microbatches through L blocks of
 * s / cp tokens whose attention core (the diagonal step) is one of cp steps of that core, each
 * amount over the GPU's speed: m (sum over layers of fwd + bwd + L (cp - 1)(core_fwd +
 * core_bwd)). */
static void closed_run(const void *arg, void *out)
{
    const int *v = arg; /* cp, h, s */
    struct scenario sc = cp_scenario(v[0], 2, v[1], v[2], 1, (struct parallel_spec){.tp = 1});
    struct platform *pf = test_load(&sc);
    struct calib cal = calib_default();
    struct gpt_config g = sc.model.gpt;
    g.seq /= v[0];
    g.tp = 1;
    struct model blk, core;
    model_preset("gpt", &g, DTYPE_BF16, &blk);
    model_attention_core(&g, DTYPE_BF16, &core);
    struct worker_amounts a = {0}, c = {0};
    struct kernel_costs kc = {.launch_s = 0, .host = HOST_EAGER};
    worker_amounts(&cal, pf->models[0], pf->gpus[0], DTYPE_BF16, OPT_ADAM, &blk, 1, &kc, &a);
    worker_amounts(&cal, pf->models[0], pf->gpus[0], DTYPE_BF16, OPT_ADAM, &core, 1, &kc, &c);
    double sum = 0;
    for (size_t i = 0; i < blk.nlayers; i++)
        sum += a.fwd[i] + a.bwd[i];
    sum += 2 * (v[0] - 1) * (c.fwd[0] + c.bwd[0]);             /* L = 2 blocks */
    *(double *)out = 2 * sum / sg_host_get_speed(pf->gpus[0]); /* m = 2 */
    worker_amounts_release(&a);
    worker_amounts_release(&c);
    model_release(&blk);
    model_release(&core);
    platform_free(pf);
    scenario_release(&sc);
}

START_TEST(test_compute)
{
    static const int shapes[2][2] = {{4096, 4096}, {1024, 16384}};
    for (int k = 0; k < 2; k++) {
        int one[] = {1, shapes[k][0], shapes[k][1]}, four[] = {4, shapes[k][0], shapes[k][1]};
        double c1[2], c4[2];
        test_in_child(compute_run, one, c1, sizeof c1);
        test_in_child(compute_run, four, c4, sizeof c4);
        ck_assert_msg(c4[0] >= c1[0] / 4 && c4[0] <= 1.05 * c1[0] / 4,
                      "shape %d: compute %g s at cp 4, %g s at cp 1", k, c4[0], c1[0]);
        double want;
        test_in_child(closed_run, four, &want, sizeof want);
        test_assert_rel(c4[0], want, 1e-9, "a rank's compute at cp 4");
    }
}
END_TEST

/* The ring hides its messages behind the attention: with cp = 2, s = 16384, h = 1024, each step's
 * attention (s / 2 queries against s / 2 keys, causal: 2 (s / 2)^2 h FLOPs, ~0.3 ms) outlasts a
 * chunk's transfer (2 (s / 2) h 2 bytes, 32 MiB, a + X / B ~ 0.07 ms on NVLink4): the exchange's
 * exposed time is under 5% of its transfers' (3 messages a block and microbatch). With s = 512,
 * h = 4096 the attention (~5 us) is shorter than a transfer (~9 us): most of it is exposed. */
START_TEST(test_overlap)
{
    const struct link_class *nv = catalog_link("nvlink4");
    static const int shapes[2][2] = {{1024, 16384}, {4096, 512}};
    for (int k = 0; k < 2; k++) {
        int v[] = {2, shapes[k][0], shapes[k][1]};
        double o[2];
        test_in_child(compute_run, v, o, sizeof o);
        double X = 2.0 * (v[2] / 2) * v[1] * 2, L = 2, m = 2;
        double transfers = m * L * 3 * (nv->hop_lat_s + X / nv->bw_Bps);
        if (k == 0)
            ck_assert_msg(o[1] < 0.05 * transfers, "exposed %g s of transfers %g s", o[1],
                          transfers);
        else
            ck_assert_msg(o[1] > 0.3 * transfers, "exposed %g s of transfers %g s", o[1],
                          transfers);
    }
}
END_TEST

static Suite *hycp_suite(void)
{
    Suite *s = suite_create("hycp");
    TCase *tc = tcase_create("context");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_coords);
    tcase_add_loop_test(tc, test_cp_bytes, 0, 3);
    tcase_add_test(tc, test_memory);
    tcase_add_test(tc, test_compute);
    tcase_add_test(tc, test_overlap);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(hycp_suite());
}
