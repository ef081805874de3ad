/* check_ps.c - parameter-server training against closed forms.
 *
 * Generated platform: P nodes of one H100 + K parameter-server machines on a star of NDR NICs.
 * Worker-to-shard routes: PCIe Gen5, NIC, switch, NIC, PCIe Gen5, so every route has latency
 *     a = pcie hop + ndr hop + switch port-to-port, bandwidth B = min(pcie, ndr, switch port)
 * and a shard's own NIC is what N concurrent transfers share:
 *     push phase, one shard:  a + N S / B for every worker (each gets B / N: all finish together)
 *     push phase, K shards:   a + N S / (K B)   (each worker sends S / K to each shard)
 *     sync step (one shard, one layer, steady state):
 *         pull (a + N S / B) + compute (3 f b / R) + push (a + N S / B) + update (U)
 *     with U = params x 12 B (FP32 SGD: read weight and gradient, write weight) / (204.8 GB/s x
 *     0.92), the shard CPU's memory bandwidth (AMD EPYC 7742: 8 x DDR4-3200) at the calibrated
 *     memory-bound efficiency; the next pull's request (a) hides under U when U > a.
 * tests/data/ps-platform.xml: workers g0..g3 and host ps, each on a 47 GBps, 1 us link (routes
 * a = 2 us, B = 47 GBps); g1 runs at 0.3 speed (a straggler). */
#include "ps.h"
#include "ps_metrics.h"
#include "ps_rpc.h"
#include "ps_state.h"
#include "testlib.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>

#include <math.h>

#define PS_OF(rec) ps_metrics_of(&(rec)) /* a record's parameter-server part */

#define CPU_BPS (204.8e9 * 0.92)

struct env {
    double a, B, R;
};

static struct env star_env(void)
{
    const struct link_class *pcie = catalog_link("pcie-gen5"), *ndr = catalog_link("ib-ndr");
    return (struct env){pcie->hop_lat_s + ndr->hop_lat_s + CATALOG_SWITCH_LAT_S,
                        fmin(fmin(pcie->bw_Bps, ndr->bw_Bps), ndr->line_bw_Bps),
                        catalog_gpu("h100")->peak_flops[DTYPE_FP32] * 0.78};
}

/* nodes of G GPUs (one NIC each), K parameter-server machines */
static struct scenario ps_nodes(int nodes, int G, int K, double params, double flops, int batch,
                                int steps)
{
    struct scenario sc = test_cluster(nodes, G, "h100", "nvlink4", "ib-ndr", 1);
    sc.cluster.ps_nodes = K;
    sc.model.present = true;
    model_init(&sc.model.explicit_, "toy");
    model_add(&sc.model.explicit_, "l", params, flops, -1, 0);
    sc.train = (struct train_spec){.strategy = STRAT_PS,
                                   .algo = COLL_ALGO_RING,
                                   .batch = batch,
                                   .steps = steps,
                                   .dtype = DTYPE_FP32,
                                   .opt = OPT_SGD,
                                   .bucket_B = 25e6,
                                   .timeout_s = 3600,
                                   .chunks = 1,
                                   .line = 1};
    sc.train.ps = (struct ps_spec){
            .shards = K, .dedicated = true, .split_bytes = true, .mode = PS_SYNC, .line = 1};
    return sc;
}

static struct scenario ps_scenario(int P, int K, double params, double flops, int batch, int steps)
{
    return ps_nodes(P, 1, K, params, flops, batch, steps);
}

static void run(struct scenario *sc, struct run_record *res)
{
    struct platform *pf = test_load(sc);
    struct model m;
    struct calib cal = calib_default();
    scenario_build_model(sc, &m);
    test_train(sc, pf, &m, &cal, res);
    /* every computed gradient slice is applied or dropped with a reason */
    ck_assert_double_eq(res->computed, res->applied + res->dropped_stale + res->dropped_late);
    model_release(&m);
    platform_free(pf);
}

static const int shard_cases[] = {1, 2, 4};

START_TEST(test_push_phase)
{
    int N = 8, K = shard_cases[_i];
    double params = 4e6, S = params * 4; /* FP32 gradients */
    struct env e = star_env();
    struct scenario sc = ps_scenario(N, K, params, 1e9, 8, 2);
    struct run_record res;
    run(&sc, &res);
    for (int r = 0; r < N; r++)
        test_assert_rel(PS_OF(res)->first_push_s[r], e.a + N * S / (K * e.B), 1e-3, "push phase");
    ck_assert_double_eq(res.applied, (double)N * 2 * K);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_sync_step)
{
    int N = 4, b = 8;
    double params = 2e6, f = 2e9, S = params * 4;
    struct env e = star_env();
    struct scenario sc = ps_scenario(N, 1, params, f, b, 4);
    struct run_record res;
    run(&sc, &res);
    double pull = e.a + N * S / e.B, push = pull, C = 3 * f * b / e.R, U = params * 12 / CPU_BPS;
    ck_assert(U > e.a); /* the next request hides under the update */
    for (int s = 1; s < (int)res.steps; s++)
        test_assert_rel(test_step(&res, s)->time_s, pull + C + push + U, 1e-3, "sync step");
    ck_assert_double_eq(res.dropped_late + res.dropped_stale, 0);
    ck_assert_double_eq(PS_OF(res)->stale_hist[0], N * 4.0);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

/* The same with gRPC over TCP (catalog.h, ps_rpc.h): each end of every message spends m = msgs x
 * msg of CPU time, the receiving end also S x byte (wc = m + S byte: the sender's bytes go out
 * uncopied), on its process's one thread per side; a GPU-side tensor is copied through host
 * memory (cp = S / copy_Bps). Steady state, N workers (a process each), one PS task, with N = 1
 * or msg = 0 (so the shard's server thread lets the N answers go at once): the parameters cross
 * the shard's NIC (a + N S / B) after the shard serialised them (m; N m = 0 when N > 1), every
 * worker reads and copies in its own (wc + cp), computes (C), copies out and serialises (cp + m);
 * the N gradients cross together (a + N S / B), the shard's client thread reads them one after
 * another (N wc), then the update (U):
 *     step = 2 (a + N S / B) + 2 m + wc + 2 cp + C + N wc + U
 * The requests (m each) hide under the shard's reading and update. */
static double grpc_step(const struct env *e, const struct transport *tp, int N, double S, int msgs,
                        double C, double U)
{
    double m = msgs * tp->msg_s, wc = m + S * tp->byte_s, cp = S / tp->copy_Bps;
    ck_assert(N == 1 || m == 0);
    return 2 * (e->a + N * S / e->B) + 2 * m + wc + 2 * cp + C + N * wc + U;
}

START_TEST(test_sync_step_grpc)
{
    int N = 4, b = 8;
    double params = 2e6, f = 2e9, S = params * 4;
    struct env e = star_env();
    struct transport grpc = *catalog_transport("grpc-tcp"), *tp = &grpc;
    grpc.msg_s = 0; /* N > 1: see grpc_step */
    struct scenario sc = ps_scenario(N, 1, params, f, b, 4);
    sc.train.ps.transport = tp;
    struct run_record res;
    run(&sc, &res);
    double C = 3 * f * b / e.R, U = params * 12 / CPU_BPS;
    for (int s = 1; s < (int)res.steps; s++)
        test_assert_rel(test_step(&res, s)->time_s, grpc_step(&e, tp, N, S, 1, C, U), 1e-3,
                        "sync step over grpc-tcp");
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

/* Push during the backward: one worker, two shards split by layer (L0 on shard 0, L1 on shard 1).
 * The backward does L1 first: shard 1's 32 MB slice leaves as soon as L1 is done and arrives
 * within L0's backward (a + S1/B < t0), so the push phase of the first iteration, from the first
 * post to the last arrival, is t0 + a + S0/B; pushed after the backward, both slices share the
 * NIC: a + (S0 + S1)/B. */
START_TEST(test_push_during_backward)
{
    int during = _i;
    struct env e = star_env();
    double p0 = 2e6, p1 = 8e6, f0 = 4e9, f1 = 1e9, S0 = 4 * p0, S1 = 4 * p1;
    int b = 16;
    double t0 = 2 * f0 * b / e.R;
    ck_assert(e.a + S1 / e.B < t0);
    struct scenario sc = ps_scenario(1, 2, p0, f0, b, 2);
    model_add(&sc.model.explicit_, "l1", p1, f1, -1, 0);
    sc.train.ps.split_bytes = false;
    sc.train.ps.push_during = during;
    struct run_record res;
    run(&sc, &res);
    double want = during ? t0 + e.a + S0 / e.B : e.a + (S0 + S1) / e.B;
    test_assert_rel(PS_OF(res)->first_push_s[0], want, 1e-3, during ? "push during" : "push after");
    ck_assert(run_identities_hold(&res));
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

/* One RPC per tensor: with two layers split by bytes, each slice holds two tensors, so each
 * message end pays two messages' msg (grpc_step with msgs = 2; one worker). */
START_TEST(test_per_tensor_rpc)
{
    int N = 1, b = 8, per_tensor = _i;
    double params = 2e6, f = 2e9, S = params * 4;
    struct env e = star_env();
    const struct transport *tp = catalog_transport("grpc-tcp");
    struct scenario sc = ps_scenario(N, 1, params / 2, f / 2, b, 4);
    model_add(&sc.model.explicit_, "l1", params / 2, f / 2, -1, 0);
    sc.train.ps.transport = tp;
    sc.train.ps.per_tensor_rpc = per_tensor;
    struct run_record res;
    run(&sc, &res);
    double C = 3 * f * b / e.R, U = params * 12 / CPU_BPS;
    double want = grpc_step(&e, tp, N, S, per_tensor ? 2 : 1, C, U);
    for (int s = 1; s < (int)res.steps; s++)
        test_assert_rel(test_step(&res, s)->time_s, want, 1e-3,
                        per_tensor ? "per-tensor rpcs" : "per-shard rpcs");
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

/* Prefetch: the next iteration's parameters are fetched (one version behind) while this one
 * computes, so with one worker and one shard, once the fetch and the update hide under the
 * compute (C > U + 2a + S/B), an iteration is its compute and its push: step = C + a + S/B
 * (against pull + C + push + U without), and every applied slice has lag 1 but the first. */
START_TEST(test_prefetch)
{
    int b = 8;
    double params = 2e6, f = 2e9, S = params * 4;
    struct env e = star_env();
    struct scenario sc = ps_scenario(1, 1, params, f, b, 5);
    sc.train.ps.prefetch = true;
    struct run_record res;
    run(&sc, &res);
    double C = 3 * f * b / e.R, U = params * 12 / CPU_BPS;
    ck_assert(C > U + 2 * e.a + S / e.B);
    for (int s = 2; s < (int)res.steps; s++)
        test_assert_rel(test_step(&res, s)->time_s, C + e.a + S / e.B, 1e-3, "step with prefetch");
    ck_assert_double_eq(PS_OF(res)->stale_hist[0], 1);
    ck_assert_double_eq(PS_OF(res)->stale_hist[1], 4);
    ck_assert(run_identities_hold(&res));
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

/* Local aggregation: N nodes of G H100s (NVLink4 through NVSwitch: a GPU-to-GPU route is the
 * sender's NVLink UP and the receiver's DOWN, latency a_n = one NVLink hop, bandwidth B_n = its
 * rate) and one shard. Only each node's first GPU pulls and pushes, so N transfers share the
 * shard's NIC; it copies the parameters to its G - 1 followers over its own UP link (shared by
 * G - 1 flows), and their gradients come back through its DOWN link; it sums the G gradients in
 * one kernel that reads G buffers and writes one at the memory rate (MXNet's CommDevice). Step:
 *     pull (a + N S/B) + bcast (a_n + (G-1) S/B_n) + C + gather (a_n + (G-1) S/B_n)
 *     + reduce ((G+1) S / (HBM x 0.92)) + push (a + N S/B) + U. */
START_TEST(test_local_aggregation)
{
    int N = 2, G = 4, b = 8, steps = 4;
    double params = 2e6, f = 2e9, S = params * 4;
    struct env e = star_env();
    const struct link_class *nv = catalog_link("nvlink4");
    const struct gpu_model *h100 = catalog_gpu("h100");
    struct scenario sc = ps_nodes(N, G, 1, params, f, b, steps);
    sc.train.ps.local_agg = true;
    struct run_record res;
    run(&sc, &res);
    double pull = e.a + N * S / e.B, bcast = nv->hop_lat_s + (G - 1) * S / nv->bw_Bps;
    double C = 3 * f * b / e.R, U = params * 12 / CPU_BPS;
    double reduce = (G + 1) * S / (h100->mem_bw_Bps * 0.92);
    double want = pull + bcast + C + bcast + reduce + pull + U;
    for (int s = 1; s < (int)res.steps; s++)
        test_assert_rel(test_step(&res, s)->time_s, want, 1e-3, "step with local aggregation");
    ck_assert_double_eq(res.applied, (double)N * steps); /* one push per node and version */
    ck_assert_double_eq(res.consumed_samples, (double)N * G * b * steps);
    ck_assert(run_identities_hold(&res));
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

static struct scenario straggler(void)
{
    struct scenario sc;
    struct dmlsim_error err = {0};
    ck_assert_msg(scenario_load("tests/data/ps-straggler.xml", &sc, &err) == DMLSIM_OK, "%s",
                  err.msg);
    return sc;
}

START_TEST(test_backup_worker)
{
    /* 4 workers, g1 at 0.3 speed, b = 1: version 1 comes after everyone's pull (4 transfers on
     * the shard's link), the fast compute, and the 3 fast pushes (3 transfers), plus the update
     * and the first request's latency; every one of the slow worker's pushes is late. */
    struct scenario sc = straggler();
    sc.train.ps.backup = 1;
    struct run_record res;
    run(&sc, &res);
    double a = 2e-6, B = 47e9, S = 4e6, b = 16, f = 1e10;
    double R = catalog_gpu("h100")->peak_flops[DTYPE_FP32] * 0.78, U = 1e6 * 12 / CPU_BPS;
    double req = a + 64 / B;
    double v1 = req + (a + 4 * S / B) + 3 * f * b / R + (a + 3 * S / B) + U;
    test_assert_rel(test_step(&res, 0)->time_s, v1, 1e-3, "first step with a backup worker");
    ck_assert_double_eq(res.dropped_late, 4);  /* the slow worker's 4 pushes */
    ck_assert_double_eq(res.applied, 3.0 * 4); /* quorum 3, 4 versions */
    ck_assert_double_eq(res.global_batch, 3 * 16);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

/* Async, 2 workers (g0 fast, g1 at 0.3 speed), a budget of 2 x 6 iterations. Transfers are tiny
 * beside the compute (4 MB at 47 GB/s is 85 us; compute is 9.2 ms fast, 30.6 ms slow), so worker
 * w's i-th push lands at about i x T_w with T_w its compute time. The slow worker's i-th push,
 * computed from the version it pulled at (i - 1) T_s, has lag = the fast pushes applied in
 * ((i - 1) T_s, i T_s]; it is dropped iff that lag exceeds tau. The fast worker always sees lag
 * 0, since every slow push before its own is either dropped or applied before its pull. */
static int expected_drops(int tau, int budget)
{
    double R = catalog_gpu("h100")->peak_flops[DTYPE_FP32] * 0.78;
    double Tf = 3 * 1e10 * 16 / R, Ts = Tf / 0.3;
    /* the run's budget of iterations goes to whoever is free first: the fast worker takes one
     * at 0, Tf, 2 Tf, ..., the slow one at 0, Ts, 2 Ts, ... (ties: the fast one first) */
    int nf = 0, ns = 0;
    for (int k = 0; k < budget; k++)
        if (nf * Tf <= ns * Ts)
            nf++;
        else
            ns++;
    int drops = 0;
    for (int i = 1; i <= ns; i++) {
        int lag = 0;
        for (int j = 1; j <= nf; j++)
            lag += j * Tf > (i - 1) * Ts && j * Tf <= i * Ts;
        drops += lag > tau;
    }
    return drops;
}

static const int tau_cases[] = {0, 100};

START_TEST(test_async_staleness)
{
    int tau = tau_cases[_i];
    struct scenario sc = straggler();
    sc.train.gpus = 2;
    sc.train.steps = 6;
    sc.train.ps.mode = PS_ASYNC;
    sc.train.ps.staleness = tau;
    struct run_record res;
    run(&sc, &res);
    int want = expected_drops(tau, 2 * 6); /* async: a budget of P x steps iterations */
    ck_assert_msg(res.dropped_stale == want, "tau %d: %.0f dropped, closed form %d", tau,
                  res.dropped_stale, want);
    ck_assert_double_eq(res.applied, 12.0 - want);
    if (tau == 0)
        ck_assert_int_eq(want, 3); /* every one of the slow worker's 3 pushes (the fast did 9) */
    else
        ck_assert_double_eq(res.dropped_stale, 0);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_coordinator)
{
    /* Sync, K = 2 shards, 3 steps: the coordinator hears every advance (K x steps) and ends at
     * global version = steps; the shards never differ by more than one version. */
    struct scenario sc = ps_scenario(4, 2, 1e6, 1e9, 8, 3);
    sc.train.ps.coordinator = true;
    struct run_record res;
    run(&sc, &res);
    ck_assert_double_eq(PS_OF(res)->coordinator_msgs, 2 * 3);
    ck_assert_double_eq(PS_OF(res)->coordinator_global, 3);
    ck_assert(PS_OF(res)->coordinator_spread <= 1 && PS_OF(res)->spread_max <= 1);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_split)
{
    /* by layer: whole layers round-robin; by bytes: even */
    struct model m;
    model_init(&m, "three");
    model_add(&m, "a", 100, 0, 0, 0);
    model_add(&m, "b", 10, 0, 0, 0);
    model_add(&m, "c", 30, 0, 0, 0);
    double out[2];
    ps_split(&m, 2, false, out);
    ck_assert_double_eq(out[0], 130);
    ck_assert_double_eq(out[1], 10);
    ps_split(&m, 2, true, out);
    ck_assert_double_eq(out[0], 70);
    ck_assert_double_eq(out[1], 70);
    model_release(&m);
}
END_TEST

/* gRPC's threads (ps_rpc.h), driven directly: actors started at t = 0, each one message end on a
 * side of a process, in the order started. A side with T threads serves them first come first
 * served, each taking w = msg + S x byte (a receiving side) on one core of its host, so the i-th
 * (0-based) ends at
 *     (floor(i / T) + 1) x w,   the last at ceil(N / T) x w.
 * Hosts: `nodes` nodes of `G` GPUs (one worker process each) and K dedicated PS machines. */
#define RPC_MAX 16

struct rpc_job {
    struct ps_ctx *c;
    int shard;    /* >= 0: shard `shard`'s client side (a push deserialised) */
    int worker;   /* shard < 0: worker `worker`'s client side (parameters read) */
    double bytes; /* the message */
    double *done; /* when it ended (s) */
};

static void rpc_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct rpc_job *j = sg_actor_self_get_data();
    if (j->shard >= 0)
        ps_rpc_shard(j->c, &j->c->shards[j->shard], RPC_CLIENT, j->bytes, 1);
    else
        ps_rpc_worker(j->c, j->worker, RPC_CLIENT, j->bytes, false, 1);
    *j->done = simgrid_get_clock();
}

/* Runs n jobs (their c, done filled here) on nodes x G workers and K shards, transport tp. */
static void rpc_run(int nodes, int G, int K, const struct transport *tp, struct rpc_job *jobs,
                    int n, double *done)
{
    struct scenario sc = ps_nodes(nodes, G, K, 1e6, 1e9, 8, 1);
    sc.train.ps.transport = tp;
    struct platform *pf = test_load(&sc);
    struct shard shards[4] = {0};
    struct ps_ctx c = {.sc = &sc, .pf = pf, .P = nodes * G, .K = K, .shards = shards};
    for (int k = 0; k < K; k++) {
        shards[k].id = k;
        shards[k].host = pf->ps_hosts[k];
    }
    ps_rpc_init(&c);
    ck_assert(c.rpc != NULL && !c.in_process);
    for (int i = 0; i < n; i++) {
        jobs[i].c = &c;
        jobs[i].done = &done[i];
        sg_actor_t a = sg_actor_init("job", pf->gpus[0]);
        sg_actor_set_data(a, &jobs[i]);
        sg_actor_start(a, rpc_actor, 0, NULL);
    }
    simgrid_run();
    ps_rpc_release(&c);
    platform_free(pf);
    scenario_release(&sc);
}

static const int rpc_cases[][2] = {{8, 1}, {8, 3}, {4, 8}}; /* N pushes, T threads */

/* N workers (one node each) push S bytes of one tensor to one PS task with T threads. */
START_TEST(test_rpc_threads)
{
    int N = rpc_cases[_i][0], T = rpc_cases[_i][1];
    struct transport tp = {"test", 8e-6, 1e-9, 0, T, "test"};
    double S = 50e6, w = tp.msg_s + S * tp.byte_s, done[RPC_MAX];
    struct rpc_job jobs[RPC_MAX];
    for (int i = 0; i < N; i++)
        jobs[i] = (struct rpc_job){.shard = 0, .bytes = S};
    rpc_run(N, 1, 1, &tp, jobs, N, done);
    double last = 0;
    for (int i = 0; i < N; i++) {
        test_assert_rel(done[i], (i / T + 1) * w, 1e-9, "i-th push deserialised");
        last = fmax(last, done[i]);
    }
    test_assert_rel(last, ceil((double)N / T) * w, 1e-9, "last push: ceil(N / T) x w");
}
END_TEST

/* A hot tensor makes a hot PS task: N workers push a big tensor (S0) to shard 0 and a small one
 * (S1) to shard 1, one thread each: shard 0 ends at N w0, shard 1 at N w1, each on its own. */
START_TEST(test_rpc_hot_tensor)
{
    int N = 6;
    const struct transport *tp = catalog_transport("grpc-tcp");
    double S0 = 411e6, S1 = 4e6, done[RPC_MAX];
    double w0 = tp->msg_s + S0 * tp->byte_s, w1 = tp->msg_s + S1 * tp->byte_s;
    struct rpc_job jobs[RPC_MAX];
    for (int i = 0; i < 2 * N; i++)
        jobs[i] = (struct rpc_job){.shard = i % 2, .bytes = i % 2 ? S1 : S0};
    rpc_run(N, 1, 2, tp, jobs, 2 * N, done);
    double end0 = 0, end1 = 0;
    for (int i = 0; i < 2 * N; i++)
        if (i % 2)
            end1 = fmax(end1, done[i]);
        else
            end0 = fmax(end0, done[i]);
    test_assert_rel(end0, N * w0, 1e-9, "hot shard: N x w0");
    test_assert_rel(end1, N * w1, 1e-9, "cold shard: N x w1");
}
END_TEST

/* A worker process is one per node: 2 nodes x 2 GPUs, each GPU reading S of parameters: the two
 * GPUs of a node take turns (w, 2 w), the nodes run side by side. */
START_TEST(test_rpc_worker_process)
{
    const struct transport *tp = catalog_transport("grpc-tcp");
    double S = 20e6, w = tp->msg_s + S * tp->byte_s, done[4];
    struct rpc_job jobs[4];
    for (int r = 0; r < 4; r++)
        jobs[r] = (struct rpc_job){.shard = -1, .worker = r, .bytes = S};
    rpc_run(2, 2, 1, tp, jobs, 4, done);
    test_assert_rel(done[0], w, 1e-9, "node 0, first GPU");
    test_assert_rel(done[1], 2 * w, 1e-9, "node 0, second GPU waits");
    test_assert_rel(done[2], w, 1e-9, "node 1, first GPU");
    test_assert_rel(done[3], 2 * w, 1e-9, "node 1, second GPU waits");
}
END_TEST

/* One process (ps_rpc.h): every worker and shard on one node's CPU (colocated) is
 * tf_cnn_benchmarks' single-machine run; two nodes, or a dedicated PS machine, are not. */
static const int process_cases[][3] = {{1, 0, 1}, {2, 0, 0}, {1, 1, 0}}; /* nodes, dedicated,
                                                                             one process */

START_TEST(test_rpc_in_process)
{
    const int *k = process_cases[_i];
    struct scenario sc = ps_nodes(k[0], 2, k[1], 1e6, 1e9, 8, 1);
    sc.train.ps.dedicated = k[1];
    struct platform *pf = test_load(&sc);
    struct ps_ctx c = {.sc = &sc, .pf = pf, .P = 2 * k[0], .K = 1};
    ck_assert(ps_rpc_in_process(&c) == (bool)k[2]);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

static Suite *ps_suite(void)
{
    Suite *s = suite_create("ps");
    TCase *tc = tcase_create("closed-form");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_push_phase, 0, sizeof shard_cases / sizeof shard_cases[0]);
    tcase_add_test(tc, test_sync_step);
    tcase_add_test(tc, test_sync_step_grpc);
    tcase_add_loop_test(tc, test_push_during_backward, 0, 2);
    tcase_add_loop_test(tc, test_per_tensor_rpc, 0, 2);
    tcase_add_test(tc, test_prefetch);
    tcase_add_test(tc, test_local_aggregation);
    tcase_add_test(tc, test_backup_worker);
    tcase_add_loop_test(tc, test_async_staleness, 0, sizeof tau_cases / sizeof tau_cases[0]);
    tcase_add_test(tc, test_coordinator);
    tcase_add_test(tc, test_split);
    tcase_add_loop_test(tc, test_rpc_threads, 0, sizeof rpc_cases / sizeof rpc_cases[0]);
    tcase_add_test(tc, test_rpc_hot_tensor);
    tcase_add_test(tc, test_rpc_worker_process);
    tcase_add_loop_test(tc, test_rpc_in_process, 0, sizeof process_cases / sizeof process_cases[0]);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(ps_suite());
}
