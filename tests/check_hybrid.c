/* check_hybrid.c - tensor, pipeline and data parallelism (strategy="hybrid", parallel.h,
 * hybrid.h) against closed forms: the schedules and their bubble, the bytes each group's
 * messages carry, ZeRO's and Megatron's memory per rank, and a composition of all three computed
 * by hand.
 *
 * A small GPT (preset "gpt": blocks of 12h^2 + 13h parameters) on one node of H100s on NVLink4.
 * Stage times come from the compute model (worker.h, tested in check_train): t_f(s), t_b(s) of
 * stage s for one microbatch, the sum of its layers' exec amounts over the GPU's speed. A ring
 * collective inside the node: all-reduce 2(t - 1)(a + S / (t B)), reduce-scatter and all-gather
 * (t - 1)(a + S / (t B)), a the NVLink4 hop latency and B its rate (check_collective); a message
 * between two GPUs a + S / B. */
#include "calib.h"
#include "hybrid_metrics.h"
#include "kcost.h"
#include "metrics.h"
#include "par_fit.h"
#include "parallel.h"
#include "testlib.h"
#include "worker.h"

#include <simgrid/host.h>

#define HY(run) hybrid_metrics_of(&(run).rec) /* a run's hybrid part (hybrid_metrics.h) */

/* `nodes` nodes of n H100s (8 NDR NICs a node between them) training a GPT of `layers` blocks
 * of hidden h (16 heads, 256 tokens, a vocabulary of 8: the embedding and the output layer
 * nearly free) under p, ring collectives at message level, bf16, Adam, no kernel launch floor. */
static struct scenario hy_scenario_on(int nodes, int n, int layers, int h, int b,
                                      struct parallel_spec p)
{
    struct scenario sc = test_cluster(nodes, n, "h100", "nvlink4", nodes > 1 ? "ib-ndr" : NULL,
                                      nodes > 1 ? 8 : 1);
    sc.model.present = true;
    sc.model.preset = strdup("gpt");
    /* the materialised attention, whose closed forms (scores kept, selective recomputation)
       these tests check; FlashAttention's are check_model's */
    sc.model.gpt = (struct gpt_config){.layers = layers,
                                       .hidden = h,
                                       .heads = 16,
                                       .seq = 256,
                                       .vocab = 8,
                                       .attention = ATTN_MATERIALISED};
    sc.train = test_hybrid_train(p, b);
    return sc;
}

/* The same on one node of n H100s. */
static struct scenario hy_scenario(int n, int layers, int h, int b, struct parallel_spec p)
{
    return hy_scenario_on(1, n, layers, h, b, p);
}

/* GPipe's pipeline phase over p stages whose microbatch takes f[s] forward and b[s] backward,
 * m microbatches, a message of x between stages: a flow shop each way, sum f + (m - 1) max f
 * + sum b + (m - 1) max b, plus the fill's and the drain's messages, 2 (p - 1) x. */
static double gpipe_phase(const double *f, const double *b, int p, int m, double x)
{
    double sf = 0, mf = 0, sb = 0, mb = 0;
    for (int s = 0; s < p; s++) {
        sf += f[s];
        sb += b[s];
        mf = fmax(mf, f[s]);
        mb = fmax(mb, b[s]);
    }
    return sf + (m - 1) * mf + sb + (m - 1) * mb + 2 * (p - 1) * x;
}

struct hy_run {
    struct run_record rec;
    double tf[8], tb[8]; /* per stage: a microbatch's forward and backward (compute model) */
    double a, B;         /* NVLink4: hop latency, rate */
};

/* Runs sc; the stage times from the compute model on the loaded platform, stage s's layers
 * [bounds[s], bounds[s + 1]) when bounds is given, else par_stage_layers'. */
static void hy_run_bounds(struct scenario *sc, struct hy_run *out, const int *bounds)
{
    memset(out, 0, sizeof *out);
    struct platform *pf = test_load(sc);
    struct model full, share;
    struct calib cal = calib_default();
    scenario_build_model(sc, &full);
    struct gpt_config g = sc->model.gpt;
    g.tp = sc->train.par.tp;
    g.sp = sc->train.par.sp;
    model_preset("gpt", &g, sc->train.dtype, &share);
    struct worker_amounts amt = {0};
    struct kernel_costs kc = {.launch_s = 0, .host = HOST_EAGER};
    worker_amounts(&cal, pf->models[0], pf->gpus[0], sc->train.dtype, sc->train.opt, &share,
                   sc->train.batch, &kc, &amt);
    double speed = sg_host_get_speed(pf->gpus[0]);
    for (int s = 0; s < sc->train.par.pp; s++) {
        int first, last;
        par_stage_layers(&sc->train.par, g.layers, s, &first, &last);
        if (bounds) {
            first = bounds[s];
            last = bounds[s + 1];
        }
        for (int i = first; i < last; i++) {
            out->tf[s] += amt.fwd[i] / speed;
            out->tb[s] += amt.bwd[i] / speed;
        }
    }
    const struct link_class *nv = catalog_link("nvlink4");
    out->a = nv->hop_lat_s;
    out->B = nv->bw_Bps;
    test_train(sc, pf, &full, &cal, &out->rec);
    worker_amounts_release(&amt);
    model_release(&share);
    model_release(&full);
    platform_free(pf);
}

static void hy_run(struct scenario *sc, struct hy_run *out)
{
    hy_run_bounds(sc, out, NULL);
}

/* The bubble: 4 stages, 8 microbatches, no tensor or data parallelism. GPipe's pipeline phase
 * is its forward fill and drain plus its backward's: sum_s t_f(s) + (m - 1) max_s t_f(s), the
 * same for t_b, plus 2 (p - 1) messages of b s h bytes (the fill and the drain wait for them;
 * later ones are received while the previous microbatch runs). The stages are nearly uniform
 * (the embedding and the output layer of a vocabulary of 8 are nearly free), so both schedules
 * leave a bubble of (p - 1) / (m + p - 1) = 3/11 of the phase, within 2 points; 1F1B's phase is
 * GPipe's within 1%. A straggler at half speed on stage 1's GPU (<straggler factor="2">, played
 * by the injector) doubles that stage's times in the same sum. */
START_TEST(test_bubble)
{
    struct parallel_spec p = {.ep = 1,
                              .vstages = 1,
                              .tp = 1,
                              .pp = 4,
                              .dp = 1,
                              .microbatches = 8,
                              .schedule = _i == 1 ? PP_1F1B : PP_GPIPE};
    struct scenario sc = hy_scenario(4, 8, 2048, 1, p);
    double slow[4] = {1, _i == 2 ? 2 : 1, 1, 1}; /* a straggler on stage 1's GPU */
    if (_i == 2) {
        sc.faults = calloc(1, sizeof *sc.faults);
        sc.nfaults = 1;
        sc.faults[0] = (struct fault_spec){.kind = FS_STRAGGLER,
                                           .host = strdup("node0.gpu1"),
                                           .factor = 2,
                                           .at_s = 0,
                                           .for_s = -1,
                                           .step = -1,
                                           .line = 1};
    }
    struct hy_run r;
    hy_run(&sc, &r);
    double f[4], b[4], x = r.a + 256.0 * 2048 * 2 / r.B;
    for (int s = 0; s < 4; s++) {
        f[s] = r.tf[s] * slow[s];
        b[s] = r.tb[s] * slow[s];
    }
    double gpipe = gpipe_phase(f, b, 4, 8, x);
    test_assert_rel(HY(r)->par_pipe_s, gpipe, _i == 1 ? 1e-2 : 1e-6, "the pipeline phase");
    ck_assert_msg(_i == 2 || fabs(HY(r)->par_bubble_frac - 3.0 / 11) < 0.02,
                  "bubble %g, (p-1)/(m+p-1) %g", HY(r)->par_bubble_frac, 3.0 / 11);
    run_release(&r.rec);
    scenario_release(&sc);
}
END_TEST

/* Tensor and pipeline parallelism composed, by hand: tp 2 x pp 2, GPipe, 4 microbatches, 2
 * blocks a stage, ring collectives. A stage's forward of a microbatch is its kernels' t_f(s)
 * plus its blocks' two tensor-parallel all-reduces each of S = b s h bf16 bytes over 2 ranks,
 * 2 (t - 1)(a + S / (t B)); its backward t_b(s) plus the same. The pipeline phase is then
 * GPipe's sum over these stage times, sum F(s) + (m - 1) max F + sum B(s) + (m - 1) max B, plus
 * the fill's and the drain's messages, 2 (p - 1)(a + S / B): within 0.2% (the simulated phase is
 * 1.4 us longer, a twentieth of one all-reduce: messages of the two groups meeting on a GPU's
 * NVLink port, which the sum takes as free); the all-reduces are over a tenth of it. */
START_TEST(test_composition)
{
    struct parallel_spec p = {.ep = 1,
                              .vstages = 1,
                              .tp = 2,
                              .pp = 2,
                              .dp = 1,
                              .microbatches = 4,
                              .schedule = PP_GPIPE};
    struct scenario sc = hy_scenario(4, 4, 2048, 1, p);
    struct hy_run r;
    hy_run(&sc, &r);
    double t = 2, S = 256.0 * 2048 * 2, ar = 2 * (t - 1) * (r.a + S / (t * r.B)), f[2], b[2];
    for (int s = 0; s < 2; s++) { /* 2 blocks a stage, 2 all-reduces a block */
        f[s] = r.tf[s] + 2 * 2 * ar;
        b[s] = r.tb[s] + 2 * 2 * ar;
    }
    /* scatter/gather (Megatron's default): each tensor rank sends S / t; the receiving stage
       all-gathers S before each forward (stage 1) and backward (stage 0), (t - 1)(a + S/(tB)) */
    f[1] += (t - 1) * (r.a + S / (t * r.B));
    b[0] += (t - 1) * (r.a + S / (t * r.B));
    double want = gpipe_phase(f, b, 2, 4, r.a + S / (t * r.B));
    /* within 0.3%: the closed form leaves out a pipeline message sharing a GPU's NVLink with the
       other stage's all-reduces */
    test_assert_rel(HY(r)->par_pipe_s, want, 3e-3, "tp 2 x pp 2, by hand");
    run_release(&r.rec);
    scenario_release(&sc);
}
END_TEST

/* The interleaved schedule (Narayanan et al., SC'21, section 2.2.2): the same 4 stages and 8
 * microbatches, each stage holding v = 2 chunks of one block. Stage 0 runs (p - 1) 2 + (v - 1) p
 * = 10 forwards first, microbatches 0-3 through chunk 0, then 0-3 through chunk 1, then 4 and 5
 * through chunk 0; its first backward is microbatch 0's through chunk 1. The bubble shrinks to
 * (p - 1)/(v m + p - 1) = 3/19 of the phase (within 3 points: the embedding and the output
 * layer on two of the eight virtual stages, and 7 crossings each way in the fill and drain),
 * well under 1F1B's 3/11; stage 0 holds p + (p - 1)/v = 5.5 microbatches' worth of its layers
 * (Korthikanti et al.: (1 + (p - 1)/(p v)) times 1F1B's p). */
START_TEST(test_interleaved)
{
    struct parallel_spec p = {.ep = 1,
                              .vstages = 2,
                              .tp = 1,
                              .pp = 4,
                              .dp = 1,
                              .microbatches = 8,
                              .schedule = PP_INTERLEAVED};
    struct pp_op ops[32];
    par_schedule(&p, 0, ops);
    static const int mb[] = {0, 1, 2, 3, 0, 1, 2, 3, 4, 5}, ch[] = {0, 0, 0, 0, 1, 1, 1, 1, 0, 0};
    for (int k = 0; k < 10; k++)
        ck_assert(!ops[k].backward && ops[k].mb == mb[k] && ops[k].chunk == ch[k]);
    ck_assert(ops[10].backward == false && ops[11].backward && ops[11].mb == 0 &&
              ops[11].chunk == 1);
    ck_assert_double_eq(par_in_flight(&p, 0), 4 + 3.0 / 2);
    struct scenario sc = hy_scenario(4, 8, 2048, 1, p);
    struct hy_run r;
    hy_run(&sc, &r);
    ck_assert_msg(fabs(HY(r)->par_bubble_frac - 3.0 / 19) < 0.03, "bubble %g, 3/19 %g",
                  HY(r)->par_bubble_frac, 3.0 / 19);
    ck_assert(HY(r)->par_bubble_frac < 0.75 * 3.0 / 11);
    run_release(&r.rec);
    scenario_release(&sc);
}
END_TEST

/* The bytes of each group, from the messages: tensor parallelism, 4 ranks, 2 microbatches of
 * b = 2, 4 blocks: each block's forward and backward all-reduce b s h bytes twice, a ring
 * sending 2(t - 1) S in all (Narayanan et al.: 8bsh(t - 1)/t a device per layer and
 * microbatch); sequence parallelism the same bytes as a reduce-scatter and an all-gather; full
 * recomputation adds the forward's two. Pipeline, 2 stages x 2 tensor ranks: every microbatch
 * crosses the boundary forward and backward, b s h bytes from each tensor rank. Data
 * parallelism, 2 replicas: the gradients of a rank's share Psi_r all-reduced, 2(d - 1) Psi_r
 * bytes a group; ZeRO-1 reduce-scatters them and all-gathers the updated parameters, the same
 * 2(d - 1) Psi_r (ZeRO, section 7); ZeRO-2 reduce-scatters every microbatch's (it keeps only
 * its shard), (m + 1)(d - 1) Psi_r; ZeRO-3 gathers every layer's parameters for each forward
 * and backward and reduce-scatters its gradients, 3 m (d - 1) Psi_r (at m = 1, ZeRO's 1.5
 * times). */
START_TEST(test_group_bytes)
{
    static const struct {
        int tp, pp, dp, zero;
        bool sp;
        enum recompute rc;
        bool no_sg; /* scatter-gather="no" */
    } cases[] = {
            {4, 1, 1, 0, false, RECOMPUTE_NONE, false}, {4, 1, 1, 0, true, RECOMPUTE_NONE, false},
            {4, 1, 1, 0, false, RECOMPUTE_FULL, false}, {2, 2, 1, 0, false, RECOMPUTE_NONE, true},
            {1, 1, 2, 0, false, RECOMPUTE_NONE, false}, {1, 1, 2, 3, false, RECOMPUTE_NONE, false},
            {1, 1, 2, 1, false, RECOMPUTE_NONE, false}, {1, 1, 2, 2, false, RECOMPUTE_NONE, false},
            {2, 2, 1, 0, false, RECOMPUTE_NONE, false}, {4, 2, 1, 0, false, RECOMPUTE_NONE, false},
            {4, 2, 1, 0, true, RECOMPUTE_NONE, false}};
    int t = cases[_i].tp, pp = cases[_i].pp, d = cases[_i].dp, m = 2, b = 2, L = 4, h = 1024;
    struct parallel_spec p = {.ep = 1,
                              .vstages = 1,
                              .tp = t,
                              .pp = pp,
                              .dp = d,
                              .microbatches = m,
                              .zero = cases[_i].zero,
                              .sp = cases[_i].sp,
                              .no_scatter_gather = cases[_i].no_sg,
                              .recompute = cases[_i].rc};
    struct scenario sc = hy_scenario(t * pp * d, L, h, b, p);
    struct hy_run r;
    hy_run(&sc, &r);
    double S = (double)b * 256 * h * 2, steps = 2;
    double ars = cases[_i].rc == RECOMPUTE_FULL ? 6 : 4; /* a block's, a microbatch */
    double tp_B = t > 1 ? steps * m * L * ars * 2 * (t - 1) * S * pp * d / pp : 0;
    double pp_B = steps * m * 2 * (pp - 1) * t * d * S / (cases[_i].sp ? t : 1);
    /* scatter/gather (without sp, tp > 1): each tensor rank sends S / t across (pp_B / t), and
       the receiving stage's group all-gathers S, (t - 1) S bytes, for each crossing */
    if (!cases[_i].sp && !cases[_i].no_sg && t > 1) {
        pp_B /= t;
        tp_B += steps * m * 2 * (pp - 1) * d * (t - 1) * S;
    }
    /* Psi: the blocks' 12h^2 + 13h, the embedding's 8h + 256h, the final norm's 2h */
    double psi = L * (12.0 * h * h + 13 * h) + (8 + 256) * h + 2 * h;
    double passes[] = {2, 2, m + 1, 3 * m}; /* of (d - 1) Psi a step, by ZeRO stage */
    double dp_B = d < 2 ? 0 : steps * passes[cases[_i].zero] * (d - 1) * psi * 2;
    test_assert_rel(HY(r)->par_bytes[0] + 1, tp_B + 1, 1e-9, "tensor-parallel bytes");
    test_assert_rel(HY(r)->par_bytes[1] + 1, pp_B + 1, 1e-9, "pipeline bytes");
    test_assert_rel(HY(r)->par_bytes[2] + 1, dp_B + 1, 1e-9, "data-parallel bytes");
    run_release(&r.rec);
    scenario_release(&sc);
}
END_TEST

/* Expert parallelism: a Llama-style mixture (4 experts of SwiGLU 4h a block, 2 a token), 4
 * replicas, the experts over ep = 2 of them. Each block's forward and backward send a rank's
 * tokens to their experts and back: 4 all-to-alls a block and microbatch of S = b s h k
 * elements, each rank sending (ep - 1) / ep of it, so (ep - 1) S per group; P (P - 1) messages
 * each. The gradients: the dense share all-reduced over the 4 replicas, 2 (d - 1) Psi_dense; a
 * rank's experts (E / ep x 3 h ffn) over the d / ep = 2 replicas holding them, 2 (d / ep - 1)
 * Psi_experts in each of the ep groups; under ZeRO-3, 3 m times (d - 1) and (d / ep - 1). */
START_TEST(test_expert_bytes)
{
    int L = 2, h = 512, b = 2, m = 2, d = 4, ep = 2, E = 4, k = 2;
    int zero = _i == 0 ? 0 : 3;
    struct parallel_spec p = {.ep = ep, .tp = 1, .pp = 1, .dp = d, .microbatches = m, .zero = zero};
    struct scenario sc = hy_scenario(d, L, h, b, p);
    sc.model.gpt.llama = true;
    sc.model.gpt.kv_heads = 16;
    sc.model.gpt.experts = E;
    sc.model.gpt.topk = k;
    struct hy_run r;
    hy_run(&sc, &r);
    double S = (double)b * 256 * h * k * 2, steps = 2, ffn = 4.0 * h;
    test_assert_rel(HY(r)->par_bytes[3], steps * m * L * 4 * (ep - 1) * S * (d / ep), 1e-9,
                    "expert all-to-all bytes");
    /* per block: attention 4h^2, router h E, two RMSNorms 2h; embedding 8h, final norm h,
     * output layer 8h */
    double experts = (double)E / ep * 3 * h * ffn;
    double dense = L * (4.0 * h * h + h * E + 2 * h) + 8.0 * h + h + 8.0 * h;
    /* ZeRO-3: 3 passes a layer and microbatch, the experts' over their own replicas too */
    double passes = zero == 3 ? 3 * m : 2;
    double want = steps * passes * ((d - 1) * dense + ep * (d / ep - 1) * L * experts) * 2;
    test_assert_rel(HY(r)->par_bytes[2], want, 1e-9, "data-parallel bytes: dense and experts");
    run_release(&r.rec);
    scenario_release(&sc);
}
END_TEST

/* Placement: 2 nodes of 8 GPUs, tp 2 x pp 2 x dp 4, ring collectives. Megatron's order
 * tp-dp-pp puts the stages outermost: stage 0 on node 0, stage 1 on node 1, so every pipeline
 * message crosses the network (pipeline.ib-ndr = all the pipeline bytes) and every data-parallel
 * group stays inside a node (data.ib-ndr = 0). Order tp-pp-dp puts the replicas outermost:
 * replicas 0 and 1 on node 0, 2 and 3 on node 1, so the pipeline stays on NVLink and each
 * data-parallel ring 0 > 1 > 2 > 3 > 0 crosses the network on 2 of its 4 links: half its bytes.
 * Tensor groups stay inside a node either way. */
START_TEST(test_placement)
{
    bool dp_outer = _i == 1;
    struct parallel_spec p = {.ep = 1,
                              .vstages = 1,
                              .tp = 2,
                              .pp = 2,
                              .dp = 4,
                              .microbatches = 2,
                              .dp_outer = dp_outer};
    struct scenario sc = hy_scenario_on(2, 8, 4, 512, 1, p);
    struct hy_run r;
    hy_run(&sc, &r);
    double pp_ib, dp_ib, tp_ib;
    ck_assert(metrics_value("group_bytes_on:pipeline.ib-ndr", &r.rec, &pp_ib) &&
              metrics_value("group_bytes_on:data.ib-ndr", &r.rec, &dp_ib) &&
              metrics_value("group_bytes_on:tensor.ib-ndr", &r.rec, &tp_ib));
    ck_assert(HY(r)->par_bytes[1] > 0 && HY(r)->par_bytes[2] > 0);
    test_assert_rel(pp_ib + 1, (dp_outer ? 0 : HY(r)->par_bytes[1]) + 1, 1e-12, "pipeline on ib");
    test_assert_rel(dp_ib + 1, (dp_outer ? HY(r)->par_bytes[2] / 2 : 0) + 1, 1e-12, "data on ib");
    ck_assert_double_eq(tp_ib, 0);
    run_release(&r.rec);
    scenario_release(&sc);
}
END_TEST

/* The compute of a run under recomputation `rc` (a child process: one simulation each). */
static void compute_run(const void *arg, void *out)
{
    struct parallel_spec p = {.ep = 1,
                              .vstages = 1,
                              .tp = 2,
                              .pp = 1,
                              .dp = 1,
                              .microbatches = 2,
                              .recompute = *(const enum recompute *)arg};
    struct scenario sc = hy_scenario(2, 4, 1024, 2, p);
    struct hy_run r;
    hy_run(&sc, &r);
    *(double *)out = HY(r)->par_compute_s;
    run_release(&r.rec);
    scenario_release(&sc);
}

/* Selective recomputation (Korthikanti et al. 2022, section 4.1) runs each block's attention
 * core again in its backward: 4 s^2 h / t FLOPs a sample (the scores and the weighted sum of a / t
 * heads), the softmax and GPT's attention dropout. A rank's compute grows by m x blocks x that
 * core's forward (its amount over the GPU's speed) and by nothing else. */
START_TEST(test_selective)
{
    struct gpt_config g = {.layers = 4,
                           .hidden = 1024,
                           .heads = 16,
                           .seq = 256,
                           .vocab = 8,
                           .tp = 2,
                           .attention = ATTN_MATERIALISED};
    struct model core;
    model_attention_core(&g, DTYPE_BF16, &core);
    ck_assert_double_eq(model_fwd_flops(&core), 4.0 * 256 * 256 * 1024 / 2);
    static const enum recompute kinds[] = {RECOMPUTE_NONE, RECOMPUTE_SELECTIVE};
    double c[2];
    for (int k = 0; k < 2; k++)
        test_in_child(compute_run, &kinds[k], &c[k], sizeof c[k]);
    struct scenario sc = test_cluster(1, 2, "h100", "nvlink4", NULL, 1);
    struct platform *pf = test_load(&sc);
    struct calib cal = calib_default();
    struct worker_amounts a = {0};
    struct kernel_costs kc = {.launch_s = 0, .host = HOST_EAGER};
    worker_amounts(&cal, pf->models[0], pf->gpus[0], DTYPE_BF16, OPT_ADAM, &core, 2, &kc, &a);
    double core_s = a.fwd[0] / sg_host_get_speed(pf->gpus[0]);
    test_assert_rel(c[1] - c[0], 2 * 4 * core_s, 1e-9, "selective recomputation's compute");
    worker_amounts_release(&a);
    model_release(&core);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

/* Sharded checkpoints: tp 4 on one node, every step, sync, to the node's NVMe. Each rank writes
 * its share Psi_r (the blocks' 12h^2/t + 7h/t + 6h, the embedding's 8h/t + 256h, the final
 * norm's 2h) at 2 + 12 bytes a parameter (bf16 weights; Adam's moments and master copy) plus
 * 4 KiB of step and RNG: 4 (14 Psi_r + 4096) bytes a checkpoint. The four writes share the
 * node's CPU-to-switch PCIe link (B) and its NVMe (D): each checkpoint blocks the step for
 * 4S/B + 4S/D (plus microseconds of latency), twice in 2 steps. */
START_TEST(test_checkpoint)
{
    int t = 4, L = 4;
    double h = 1024;
    struct parallel_spec p = {.ep = 1, .vstages = 1, .tp = t, .pp = 1, .dp = 1, .microbatches = 1};
    struct scenario sc = hy_scenario(t, L, (int)h, 1, p);
    sc.ckpt =
            (struct checkpoint_spec){.present = true, .every_steps = 1, .target = CKPT_LOCAL_NVME};
    struct hy_run r;
    hy_run(&sc, &r);
    double psi = L * (12 * h * h / t + 7 * h / t + 6 * h) + 8 * h / t + 256 * h + 2 * h;
    double S = 14 * psi + 4096;
    test_assert_rel(r.rec.ckpt_B, t * S, 1e-12, "a checkpoint's bytes");
    ck_assert_double_eq(r.rec.checkpoints, 2);
    const struct link_class *pcie = catalog_link("pcie-gen5");
    double want = 2 * (t * S / pcie->bw_Bps + t * S / CATALOG_NVME_BPS);
    test_assert_rel(r.rec.ckpt_overhead_s, want, 1e-4, "two checkpoints' blocking");
    run_release(&r.rec);
    scenario_release(&sc);
}
END_TEST

/* The exposed data-parallel time of a ZeRO-3 run, prefetch or not (a child process). */
static void zero3_run(const void *arg, void *out)
{
    struct parallel_spec p = {.ep = 1,
                              .vstages = 1,
                              .tp = 1,
                              .pp = 1,
                              .dp = 2,
                              .microbatches = 1,
                              .zero = 3,
                              .no_prefetch = *(const bool *)arg};
    struct scenario sc = hy_scenario(2, 4, 1024, 8, p);
    struct hy_run r;
    hy_run(&sc, &r);
    double *o = out;
    o[0] = HY(r)->par_dp_s;
    o[1] = HY(r)->par_pipe_s;
    o[2] = r.a;
    o[3] = r.B;
    run_release(&r.rec);
    scenario_release(&sc);
}

/* ZeRO-3 on 2 replicas, 4 blocks of h = 1024, a microbatch of 8. Gathering each layer when it
 * runs (prefetch="no") exposes every collective: per layer its forward gather, its backward
 * gather and its gradients' reduce-scatter, each a ring of two, a + S_l / (2B) for the layer's S_l
 * bytes (bf16). Gathering one layer ahead (FSDP's prefetch, the default) hides the gathers
 * behind the layers' compute: the exposed time falls below half, and the pipeline phase
 * shrinks by more than half the gathers' time. */
START_TEST(test_zero3_prefetch)
{
    static const bool modes[] = {true, false};
    double o[2][4];
    for (int k = 0; k < 2; k++)
        test_in_child(zero3_run, &modes[k], o[k], sizeof o[k]);
    double h = 1024, a = o[0][2], B = o[0][3];
    double layers[] = {(8 + 256) * h,       12 * h * h + 13 * h, 12 * h * h + 13 * h,
                       12 * h * h + 13 * h, 12 * h * h + 13 * h, 2 * h};
    double all = 0, gathers = 0;
    for (int i = 0; i < 6; i++) {
        all += 3 * (a + layers[i] * 2 / (2 * B));
        gathers += i > 0 ? 2 * (a + layers[i] * 2 / (2 * B)) : 0;
    }
    test_assert_rel(o[0][0], all, 1e-6, "every ZeRO-3 collective exposed");
    ck_assert_msg(o[1][0] < 0.5 * o[0][0], "exposed with prefetch %g, without %g", o[1][0],
                  o[0][0]);
    ck_assert(o[0][1] - o[1][1] > 0.5 * gathers);
}
END_TEST

/* Memory per rank, bf16 and Adam (K = 12: the FP32 master copy and two moments): Psi_r = a
 * stage's share of the parameters; plain 2 + 2 + 12 bytes each, ZeRO-1 4 Psi + 12 Psi / d,
 * ZeRO-2 2 Psi + 14 Psi / d, ZeRO-3 16 Psi / d (Rajbhandari et al., SC'20, section 5.1).
 * Activations of stage 0, the one holding the most (Korthikanti et al. 2022, bytes at 16-bit):
 * b x (microbatches in flight) x (its blocks x sbh(10 + 24/t + 5as/(ht)) + the embedding's
 * output, s h elements of 2 bytes), with 1F1B's p microbatches in flight on stage 0 against GPipe's
 * m; sequence parallelism sbh/t (34 + 5as/h); selective recomputation drops the 5as/h term. */
START_TEST(test_memory)
{
    int h = 1024, L = 8, a = 16, s = 256, b = 2, t = 2, pp = 2, d = 4, m = 6;
    struct gpt_config g = {.layers = L,
                           .hidden = h,
                           .heads = a,
                           .seq = s,
                           .vocab = 8,
                           .attention = ATTN_MATERIALISED};
    double sh = (double)s * h, att = 5.0 * a * s / h;
    { /* FlashAttention keeps no scores: the 5as/h term becomes the logsumexp, 4 a s / t */
        struct gpt_config gf = g;
        gf.attention = ATTN_FLASH;
        struct parallel_spec p = {.ep = 1, .tp = t, .pp = pp, .dp = d, .microbatches = m};
        struct par_memory x = par_memory(&p, "gpt", &gf, DTYPE_BF16, OPT_ADAM, b);
        double act = (double)b * pp * (L / pp * (sh * (10 + 24.0 / t) + 4.0 * a * s / t) + 2 * sh);
        test_assert_rel(x.act_B, act, 1e-12, "1F1B's activations with FlashAttention");
    }
    for (int zero = 0; zero <= 3; zero++) {
        struct parallel_spec p = {
                .ep = 1, .tp = t, .pp = pp, .dp = d, .microbatches = m, .zero = zero};
        struct par_memory x = par_memory(&p, "gpt", &g, DTYPE_BF16, OPT_ADAM, b);
        /* stage 0: its 4 blocks' shares (12h^2 / t + 4h^2 ... : QKV and the MLP's first GEMM
         * split, biases of the split parts split), the embedding's share and positions */
        double blk = (12.0 * h * h) / t + (3.0 * h + 4.0 * h) / t + h + h + 4 * h;
        double psi = L / pp * blk + (8.0 / t) * h + (double)s * h;
        double want[] = {16 * psi, 4 * psi + 12 * psi / d, 2 * psi + 14 * psi / d, 16 * psi / d};
        double act = (double)b * pp * (L / pp * sh * (10 + 24.0 / t + att / t) + 2 * sh);
        ck_assert_int_eq(x.stage, 0);
        test_assert_rel(x.weights_B + x.grads_B + x.optimizer_B, want[zero], 1e-12,
                        "weights, gradients and optimizer state");
        test_assert_rel(x.act_B, act, 1e-12, "1F1B's activations on stage 0");
    }
    struct parallel_spec p = {
            .ep = 1, .tp = t, .pp = pp, .dp = d, .microbatches = m, .schedule = PP_GPIPE};
    struct par_memory x = par_memory(&p, "gpt", &g, DTYPE_BF16, OPT_ADAM, b);
    double gp = (double)b * m * (L / pp * sh * (10 + 24.0 / t + att / t) + 2 * sh);
    test_assert_rel(x.act_B, gp, 1e-12, "GPipe's: m microbatches in flight");
    p = (struct parallel_spec){.ep = 1,
                               .vstages = 1,
                               .tp = t,
                               .pp = pp,
                               .dp = d,
                               .microbatches = m,
                               .sp = true,
                               .recompute = RECOMPUTE_SELECTIVE};
    x = par_memory(&p, "gpt", &g, DTYPE_BF16, OPT_ADAM, b);
    test_assert_rel(x.act_B, (double)b * pp * (L / pp * 34 * sh / t + 2 * sh), 1e-12,
                    "sequence parallelism and selective recomputation: 34 sbh / t a block");
}
END_TEST

/* An out-of-memory configuration names its largest term and the smallest change that fits:
 * Llama 3 70B on 8 H100s by data parallelism alone needs 16 B a parameter (1.13 TB); no single
 * change fits 80 GB. With tp 8 (weights 17.6 GB a rank) ZeRO-1 is the first change that fits. */
START_TEST(test_out_of_memory)
{
    struct gpt_config g;
    ck_assert(model_transformer_shape("llama3-70b", &g));
    char why[512];
    struct parallel_spec p = {
            .ep = 1, .tp = 1, .pp = 1, .dp = 8, .microbatches = 1, .recompute = RECOMPUTE_FULL};
    ck_assert_int_eq(
            par_check_fit(&p, "llama3-70b", &g, DTYPE_BF16, OPT_ADAM, 1, 80e9, why, sizeof why),
            -1);
    ck_assert_msg(strstr(why, "the largest its optimizer state") &&
                          strstr(why, "no set of up to 4 changes fits"),
                  "%s", why);
    p = (struct parallel_spec){
            .ep = 1, .tp = 8, .pp = 1, .dp = 8, .microbatches = 1, .recompute = RECOMPUTE_FULL};
    ck_assert_int_eq(
            par_check_fit(&p, "llama3-70b", &g, DTYPE_BF16, OPT_ADAM, 1, 80e9, why, sizeof why),
            -1);
    ck_assert_msg(strstr(why, "expected zero=\"1\""), "%s", why);
}
END_TEST

/* Seconds of block kernel (a linear's GEMM of shape m n k, the batch multiplying dimension bdim)
 * for b samples on an H100 in bf16 (kcost.h), found by its shape among the block's kernels. */
static double gemm_s(const struct layer *y, bool bwd, int bdim, double m, double n, double k, int b)
{
    const struct gpu_model *gpu = catalog_gpu("h100");
    struct calib cal = calib_default();
    struct kcost_gpu g = {&cal, gpu, DTYPE_BF16, gpu->mem_bw_Bps * cal.mem_eff};
    const struct kernel *ks = bwd ? y->bwd : y->fwd;
    for (int i = 0; i < (bwd ? y->nbwd : y->nfwd); i++) {
        if (ks[i].cls != KC_GEMM || ks[i].bdim != bdim || ks[i].m != m || ks[i].n != n ||
            ks[i].k != k)
            continue;
        struct kcost c;
        kcost_kernel(&g, &ks[i], b, &c);
        return c.s;
    }
    ck_abort_msg("no GEMM %g x %g x %g in the block", m, n, k);
    return 0;
}

/* Tensor-parallel communication overlapped with the GEMMs (tp-comm-overlap, hy_tpov.h): tp 2
 * with sequence parallelism, one stage, 2 blocks of h 4096 (256 tokens, 4 samples), 2
 * microbatches. Without overlap a block's pass runs its kernels, then two reduce-scatters and two
 * all-gathers of S = b s h 2 bytes, each (t - 1)(a + S/(tB)): the phase is m (t_f + t_b) + m L 2
 * x 4 RS(S). With overlap every chunk's collective is shorter than its GEMM chunk here (a ring
 * step of S/t, 4 us, under QKV's half, 37 us; a reduce-scatter of S/4, 2 us, under a quarter of
 * the projection, 6 us; RS(S) under the weight gradients, 75 us), so the ring exchanges and the
 * bulk reduce-scatters hide entirely and a pipelined reduce-scatter leaves its last chunk, RS(S
 * / 4): m L 2 RS(S/4) exposed. The pipelined and bulk GEMMs (the projection's and the MLP's last
 * forward, QKV's and the MLP's first weight gradients) run on 132 - 16 SMs: their time x
 * 132/116, the rest as without overlap. */
START_TEST(test_tp_overlap)
{
    int t = 2, m = 2, b = 4, L = 2, h = 4096;
    struct parallel_spec p = {.ep = 1,
                              .vstages = 1,
                              .tp = t,
                              .pp = 1,
                              .dp = 1,
                              .microbatches = m,
                              .sp = true,
                              .tp_overlap = _i == 1};
    struct scenario sc = hy_scenario(t, L, h, b, p);
    struct hy_run r;
    hy_run(&sc, &r);
    double S = (double)b * 256 * h * 2;
    double rs = (t - 1) * (r.a + S / (t * r.B)), rs4 = (t - 1) * (r.a + S / 4 / (t * r.B));
    double compute = m * (r.tf[0] + r.tb[0]), tp = m * L * 2 * 4 * rs;
    if (_i == 1) {
        struct gpt_config g = sc.model.gpt;
        g.tp = t;
        g.sp = true;
        struct model share;
        model_preset("gpt", &g, DTYPE_BF16, &share);
        const struct layer *y = &share.layers[1];
        double s = 256, f = 4.0 * h / t;
        double slowed = gemm_s(y, false, 1, h, s, h / t, b) + gemm_s(y, false, 1, h, s, f, b) +
                        gemm_s(y, true, 2, 3.0 * h / t, h, s, b) + gemm_s(y, true, 2, f, h, s, b);
        compute += m * L * slowed * (132.0 / 116 - 1);
        tp = m * L * 2 * rs4;
        /* the premise: each chunk's communication under its GEMM chunk */
        ck_assert(r.a + S / t / r.B < gemm_s(y, false, 1, 3.0 * h / t, s, h, b) / t);
        ck_assert(rs4 < gemm_s(y, false, 1, h, s, h / t, b) / 4);
        model_release(&share);
    }
    test_assert_rel(HY(r)->par_compute_s, compute, 1e-6, "compute");
    test_assert_rel(HY(r)->par_tp_s, tp, 1e-6, "tensor-parallel time exposed");
    test_assert_rel(HY(r)->par_pipe_s, compute + tp, 1e-6, "the step's pipeline phase");
    run_release(&r.rec);
    scenario_release(&sc);
}
END_TEST

/* Uneven stages, Megatron-Core's rule (par_stages.c): the layer ranges [first, last) of each
 * virtual stage, of a model of L blocks whose layers are the embedding (0), the blocks (1 .. L)
 * and the output layer (L + 1). The first 2 and the last 4 of 12 blocks over 4 stages leave
 * (12 - 6) / 2 = 3 to each middle stage: [0, 3) [3, 6) [6, 9) [9, 14). The list 4,8 over 2
 * stages of 2 chunks each gives each chunk half its stage's: virtual stages (chunk 0 of stages
 * 0 and 1, then chunk 1) of 2, 4, 2, 4 blocks: [0, 3) [3, 7) [7, 9) [9, 14). The embedding and
 * the loss counted as layers of the split of 14 blocks over 4 stages: 16 / 4 = 4 a stage, the
 * first and the last stage a block fewer: [0, 4) [4, 8) [8, 12) [12, 16). */
START_TEST(test_stage_layers)
{
    struct parallel_spec cases[3] = {
            {.tp = 1, .pp = 4, .dp = 1, .vstages = 1, .first_blocks = 2, .last_blocks = 4},
            {.tp = 1,
             .pp = 2,
             .dp = 1,
             .vstages = 2,
             .schedule = PP_INTERLEAVED,
             .nstage_blocks = 2,
             .stage_blocks = {4, 8}},
            {.tp = 1, .pp = 4, .dp = 1, .vstages = 1, .embed_split = true, .loss_split = true},
    };
    static const int blocks[3] = {12, 12, 14};
    static const int want[3][5] = {{0, 3, 6, 9, 14}, {0, 3, 7, 9, 14}, {0, 4, 8, 12, 16}};
    for (int k = 0; k < 3; k++) {
        ck_assert(par_stages_ok(&cases[k], blocks[k], NULL, 0));
        for (int vs = 0; vs < 4; vs++) {
            int first, last;
            par_stage_layers(&cases[k], blocks[k], vs, &first, &last);
            ck_assert_msg(first == want[k][vs] && last == want[k][vs + 1],
                          "case %d, virtual stage %d: [%d, %d), expected [%d, %d)", k, vs, first,
                          last, want[k][vs], want[k][vs + 1]);
        }
    }
    /* what does not split: the rest over the middle stages, a list's sum */
    cases[0].last_blocks = 3;
    ck_assert(!par_stages_ok(&cases[0], 12, NULL, 0));
    ck_assert(!par_stages_ok(&cases[1], 13, NULL, 0));
}
END_TEST

/* A stage's memory under uneven stages: 2 stages of 3 and 1 blocks (of h = 1024, t = 2), bf16
 * and Adam, 16 B a parameter. Stage 0 holds 3 blocks' shares (12h^2/t + 7h/t + 6h each) and the
 * embedding's (8h/t + s h), and 1F1B's p - 0 = 2 microbatches' activations: b 2 (3 sbh(10 +
 * 24/t + 5as/(ht)) + 2sh); stage 1 one block and the final norm (2h; the head is tied). */
START_TEST(test_stage_memory)
{
    int h = 1024, a = 16, s = 256, b = 2, t = 2;
    struct gpt_config g = {.layers = 4, .hidden = h, .heads = a, .seq = s, .vocab = 8,
                           .attention = ATTN_MATERIALISED};
    struct parallel_spec p = {.ep = 1,
                              .vstages = 1,
                              .tp = t,
                              .pp = 2,
                              .dp = 4,
                              .microbatches = 6,
                              .nstage_blocks = 2,
                              .stage_blocks = {3, 1}};
    double sh = (double)s * h, blk = 12.0 * h * h / t + 7.0 * h / t + 6.0 * h;
    double psi0 = 3 * blk + 8.0 * h / t + sh, psi1 = blk + 2.0 * h;
    double act0 = (double)b * 2 * (3 * sh * (10 + 24.0 / t + 5.0 * a * s / h / t) + 2 * sh);
    struct par_memory x[2];
    par_memory_stages(&p, "gpt", &g, DTYPE_BF16, OPT_ADAM, b, x);
    test_assert_rel(x[0].weights_B + x[0].grads_B + x[0].optimizer_B, 16 * psi0, 1e-12,
                    "stage 0's weights, gradients and optimizer state");
    test_assert_rel(x[0].act_B, act0, 1e-12, "stage 0's activations");
    test_assert_rel(x[1].weights_B + x[1].grads_B + x[1].optimizer_B, 16 * psi1, 1e-12,
                    "stage 1's weights, gradients and optimizer state");
    ck_assert_int_eq(par_stage_blocks(&p, 4, 0), 3);
    struct par_memory most = par_memory(&p, "gpt", &g, DTYPE_BF16, OPT_ADAM, b);
    ck_assert_int_eq(most.stage, 0);
    test_assert_rel(most.total_B, 16 * psi0 + act0, 1e-12, "the most a stage needs");
}
END_TEST

/* GPipe over uneven stages: 2 stages of 3 and 1 blocks (stage 0 the embedding and blocks 1-3,
 * layers [0, 4); stage 1 block 4 and the output layer, [4, 6)), 4 microbatches. The phase is
 * GPipe's flow shop with the slower stage's times: sum f + (m - 1) max f + sum b + (m - 1) max b
 * + 2 (p - 1) messages, the stage times from the compute model over those layer ranges. */
START_TEST(test_uneven_gpipe)
{
    struct parallel_spec p = {.ep = 1,
                              .vstages = 1,
                              .tp = 1,
                              .pp = 2,
                              .dp = 1,
                              .microbatches = 4,
                              .schedule = PP_GPIPE,
                              .nstage_blocks = 2,
                              .stage_blocks = {3, 1}};
    struct scenario sc = hy_scenario(2, 4, 2048, 1, p);
    static const int bounds[3] = {0, 4, 6};
    struct hy_run r;
    hy_run_bounds(&sc, &r, bounds);
    ck_assert_msg(r.tf[0] > 2 * r.tf[1], "stage 0 (3 blocks) %g, stage 1 (1 block) %g", r.tf[0],
                  r.tf[1]);
    double x = r.a + 256.0 * 2048 * 2 / r.B;
    test_assert_rel(HY(r)->par_pipe_s, gpipe_phase(r.tf, r.tb, 2, 4, x), 1e-6,
                    "the pipeline phase");
    run_release(&r.rec);
    scenario_release(&sc);
}
END_TEST

/* The out-of-memory proposal when no single change fits but two do (par_fit.h), by hand with
 * par_memory's closed forms (test_memory's): a GPT of 8 blocks of h = 1024, tp 2 x pp 2 x dp 4,
 * 6 microbatches of 2, bf16 and Adam, a GPU of 160 MB. Stage 0's share Psi(t, k) of k blocks:
 * k (12h^2/t + 7h/t + 6h) + 8h/t + sh; its activations b n (k sbh(10 + 24/t + 5as/(ht)) + 2sh)
 * for n microbatches in flight. No single change fits (each computed below); of the pairs, in
 * the search's order, ZeRO-1 with selective or full recomputation and ZeRO-2 with selective do
 * not; ZeRO-2 (2 Psi + 14 Psi / d) with full recomputation (2sbh a block) does. */
START_TEST(test_fit_pair)
{
    int h = 1024, L = 8, a = 16, s = 256, b = 2, t = 2, pp = 2, d = 4, m = 6;
    struct gpt_config g = {.layers = L, .hidden = h, .heads = a, .seq = s, .vocab = 8,
                           .attention = ATTN_MATERIALISED};
    double sh = (double)s * h, att = 5.0 * a * s / h, mem = 160e6;
#define PSI(t_, k_)     ((k_) * ((12.0 * h * h + 7.0 * h) / (t_) + 6.0 * h) + 8.0 * h / (t_) + sh)
#define ACT(t_, k_, n_) ((double)b * (n_) * ((k_)*sh * (10 + 24.0 / (t_) + att / (t_)) + 2 * sh))
    double psi = PSI(t, 4), act = ACT(t, 4, pp);
    double sel = b * pp * (4 * sh * (10 + 24.0 / t) + 2 * sh),
           full = b * pp * (4 * 2 * sh + 2 * sh);
    double single[] = {
            4 * psi + 12 * psi / d + act,                           /* zero="1" */
            2 * psi + 14 * psi / d + act,                           /* zero="2" */
            16 * psi / d + act,                                     /* zero="3" */
            16 * psi + sel,                                         /* recompute="selective" */
            16 * psi + full,                                        /* recompute="full" */
            16 * psi + b * pp * (4 * sh / t * (34 + att) + 2 * sh), /* sequence-parallel */
            16 * PSI(t, 2) + ACT(t, 2, 4),                          /* pp 4 dp 2: 4 in flight */
            16 * PSI(t, 1) + ACT(t, 1, 6),                          /* pp 8 dp 1: min(m, 8) */
            16 * PSI(4, 4) + ACT(4, 4, pp),                         /* tp 4 dp 2 */
            16 * PSI(8, 4) + ACT(8, 4, pp),                         /* tp 8 dp 1 */
            16 * psi + act / 2,                                     /* batch-per-gpu 1 */
    };
    double before[] = {7 * psi + sel, 7 * psi + full, 5.5 * psi + sel};
    double want = 2 * psi + 14 * psi / d + full;
#undef PSI
#undef ACT
    for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
        ck_assert_msg(single[i] > mem, "single change %zu fits: %g", i, single[i]);
    for (size_t i = 0; i < 3; i++)
        ck_assert_msg(before[i] > mem, "pair %zu fits: %g", i, before[i]);
    ck_assert(want <= mem);
    struct parallel_spec p = {.ep = 1, .vstages = 1, .tp = t, .pp = pp, .dp = d, .microbatches = m};
    struct par_fit f;
    ck_assert(par_fit_search(&p, "gpt", &g, DTYPE_BF16, OPT_ADAM, b, mem, &f));
    ck_assert_int_eq(f.n, 2);
    ck_assert(f.change[0].knob == PAR_KNOB_ZERO && f.change[0].value == 2);
    ck_assert(f.change[1].knob == PAR_KNOB_RECOMPUTE && f.change[1].value == RECOMPUTE_FULL);
    test_assert_rel(f.mem.total_B, want, 1e-12, "the pair's memory");
    char why[640];
    ck_assert_int_eq(par_check_fit(&p, "gpt", &g, DTYPE_BF16, OPT_ADAM, b, mem, why, sizeof why),
                     -1);
    ck_assert_msg(strstr(why, "expected zero=\"2\" recompute=\"full\" (0.15 GB)"), "%s", why);
}
END_TEST

static Suite *hybrid_suite(void)
{
    Suite *s = suite_create("hybrid");
    TCase *tc = tcase_create("parallel");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_bubble, 0, 3);
    tcase_add_test(tc, test_interleaved);
    tcase_add_test(tc, test_composition);
    tcase_add_loop_test(tc, test_group_bytes, 0, 11);
    tcase_add_loop_test(tc, test_expert_bytes, 0, 2);
    tcase_add_loop_test(tc, test_placement, 0, 2);
    tcase_add_test(tc, test_selective);
    tcase_add_test(tc, test_checkpoint);
    tcase_add_test(tc, test_zero3_prefetch);
    tcase_add_test(tc, test_memory);
    tcase_add_test(tc, test_out_of_memory);
    tcase_add_loop_test(tc, test_tp_overlap, 0, 2);
    tcase_add_test(tc, test_stage_layers);
    tcase_add_test(tc, test_stage_memory);
    tcase_add_test(tc, test_uneven_gpipe);
    tcase_add_test(tc, test_fit_pair);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(hybrid_suite());
}
