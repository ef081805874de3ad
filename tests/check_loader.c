/* check_loader.c - the input pipeline (<data>, sim/engine/loader.h) against closed forms, on one
 * H100 of a generated node (its CPU host's NVMe at D = 7 GB/s, the node's PCIe switch between
 * the CPU and the GPU: a = one PCIe hop through the switch, B = the class's rate) and, for remote reads, the storage
 * host's disk at 3 GB/s (the seed notes' SSD) behind NDR InfiniBand.
 *
 * A batch of b samples of S stored and X decoded bytes, decode d a sample on one core, request
 * latency L, compute C (forward + backward + update, from the compute model):
 *   read (one worker, local NVMe)      R = L + b S / D
 *   decode (one worker)                E = b d
 *   copy (pinned)                      K = a + b X / B;  pageable adds b X / 40.5 GB/s (staging)
 * PyTorch's loop copies the batch when it takes it, so copy and compute are in series; W workers
 * started together stay in step (identical work), sharing the disk, so W batches take
 * L + W b S / D + b d. The steady-state step is the slowest of the two sides:
 *   step = max((L + W b S / D + b d) / W, K + C)        (W >= 1)
 *   step = R + E + K + C                                 (W = 0: loading in the training loop)
 * The seed notes' example: a batch 1 s to load from a 3 GB/s SSD, 0.1 s on the GPU: the GPU idles
 * 90% of the time. */
#include "calib.h"
#include "order.h"
#include "testlib.h"

#define STEPS 10

struct env {
    double a, B, R; /* PCIe: 2 hops' latency, rate; GEMM rate */
};

static struct env env_of(void)
{
    const struct link_class *pcie = catalog_link("pcie-gen5");
    return (struct env){pcie->hop_lat_s, pcie->bw_Bps,
                        catalog_gpu("h100")->peak_flops[DTYPE_FP32] * 0.78};
}

/* One node, one H100 (with the storage host behind an NDR NIC), a one-layer model of f forward
 * FLOPs a sample, b samples a batch, the pipeline d. */
static struct scenario data_scenario(double f, int b, struct data_spec d)
{
    struct scenario sc = test_cluster(1, 1, "h100", "nvlink4", "ib-ndr", 1);
    sc.model.present = true;
    model_init(&sc.model.explicit_, "toy");
    model_add(&sc.model.explicit_, "l", 1000, f, -1, 0);
    sc.train = (struct train_spec){.strategy = STRAT_ALLREDUCE, .algo = COLL_ALGO_RING,
                                   .level = COLL_MESSAGE, .batch = b, .steps = STEPS,
                                   .dtype = DTYPE_FP32, .opt = OPT_SGD, .bucket_B = 1e9,
                                   .overlap = true, .timeout_s = 3600, .chunks = 1, .line = 1};
    d.present = true;
    d.line = 1;
    if (d.samples == 0) d.samples = 1e6;
    if (d.shard_samples == 0) d.shard_samples = 5000;
    if (d.columns == 0) d.columns = 1;
    if (d.conn_Bps == 0) d.conn_Bps = 1e15;
    if (d.prefetch == 0) d.prefetch = 2;
    sc.train.data = d;
    return sc;
}

static void run(struct scenario *sc, struct run_record *rec)
{
    struct platform *pf = test_load(sc);
    struct model m;
    struct calib cal = calib_default();
    scenario_build_model(sc, &m);
    test_train(sc, pf, &m, &cal, rec);
    model_release(&m);
    platform_free(pf);
}

/* Runs the scenario; steps 3 to 10 (the pipeline full; 8 steps, so W workers in step deliver
 * whole rounds) last `want` each on average. Returns the compute of a step. */
static double assert_steady(struct scenario *sc, double want, const char *what)
{
    struct run_record rec;
    run(sc, &rec);
    ck_assert_int_eq((int)rec.steps, STEPS);
    double t = test_step(&rec, STEPS - 1)->t_s - test_step(&rec, 1)->t_s;
    test_assert_rel(t / (STEPS - 2), want, 1e-6, what);
    double c = test_step(&rec, STEPS - 1)->compute_s;
    run_release(&rec);
    scenario_release(sc);
    return c;
}

/* The compute of a batch of b samples of f FLOPs: 3 f b / R (forward and backward GEMMs) and
 * the SGD update of the 1,000 parameters, 12 B each at HBM x 0.92 (check_train.c). */
static double compute_of(double f, int b)
{
    return 3 * f * b / env_of().R + 12 * 1000 / (catalog_gpu("h100")->mem_bw_Bps * 0.92);
}

/* Reading from the node's NVMe sets the pace: one worker, R = L + b S / D per batch, while
 * the loop spends C + K. */
START_TEST(test_read_alone)
{
    double f = 1e8, S = 8.75e6, L = CATALOG_NVME_REQUEST_S;
    int b = 8;
    struct env e = env_of();
    struct scenario sc = data_scenario(f, b, (struct data_spec){.sample_B = S, .decoded_B = 1,
                                                                .request_s = L, .workers = 1,
                                                                .pinned = true});
    double want = L + b * S / CATALOG_NVME_BPS;
    ck_assert(want > compute_of(f, b) + e.a + b / e.B); /* read-bound */
    assert_steady(&sc, want, "read alone");
}
END_TEST

/* Decoding sets the pace: from memory, W workers each b d a batch on its own core, in step:
 * b d / W a batch. */
START_TEST(test_decode_alone)
{
    static const int workers[] = {1, 4};
    double f = 1e8, d = 1e-3;
    int b = 8, W = workers[_i];
    struct scenario sc = data_scenario(f, b, (struct data_spec){.sample_B = 1, .decoded_B = 1,
                                                                .decode_s = d,
                                                                .source = DATA_MEMORY,
                                                                .workers = W, .pinned = true});
    assert_steady(&sc, b * d / W, "decode alone");
}
END_TEST

/* The copy is on the loop's path: from memory, no decode, the step is C + K (pinned), and the
 * pageable staging copy adds b X / 40.5 GB/s. */
START_TEST(test_copy_pinned_and_pageable)
{
    double f = 1e9, X = 4e6;
    int b = 16;
    struct env e = env_of();
    bool pinned = _i == 0;
    struct scenario sc = data_scenario(f, b, (struct data_spec){.sample_B = 1, .decoded_B = X,
                                                                .source = DATA_MEMORY,
                                                                .workers = 2, .pinned = pinned});
    double K = e.a + b * X / e.B + (pinned ? 0 : b * X / CATALOG_STAGING_COPY_BPS);
    double c = assert_steady(&sc, compute_of(f, b) + K + 0, pinned ? "pinned" : "pageable");
    test_assert_rel(c, compute_of(f, b), 1e-3, "compute of a step");
}
END_TEST

/* Loading in the training loop (loader-workers 0): nothing overlaps, step = R + E + K + C. */
START_TEST(test_in_loop_is_serial)
{
    double f = 1e9, S = 1e6, X = 1e6, d = 2e-4, L = CATALOG_NVME_REQUEST_S;
    int b = 8;
    struct env e = env_of();
    struct scenario sc = data_scenario(f, b, (struct data_spec){.sample_B = S, .decoded_B = X,
                                                                .decode_s = d, .request_s = L,
                                                                .workers = 0, .pinned = true});
    double want = L + b * S / CATALOG_NVME_BPS + b * d + e.a + b * X / e.B + compute_of(f, b);
    assert_steady(&sc, want, "in the loop");
}
END_TEST

/* The slowest side sets the pace: W workers in step share the disk and decode on their own
 * cores, (L + W b S / D + b d) / W a batch, against the loop's K + C. Two workers are
 * loader-bound, eight are not (the loop then never waits after the first batches). */
START_TEST(test_slowest_side_sets_the_rate)
{
    static const int workers[] = {2, 8};
    double f = 1e10, S = 2e6, X = 1e5, d = 1e-3, L = CATALOG_NVME_REQUEST_S;
    int b = 16, W = workers[_i];
    struct env e = env_of();
    struct scenario sc = data_scenario(f, b, (struct data_spec){.sample_B = S, .decoded_B = X,
                                                                .decode_s = d, .request_s = L,
                                                                .workers = W, .pinned = true});
    double loader = (L + W * b * S / CATALOG_NVME_BPS + b * d) / W;
    double loop = e.a + b * X / e.B + compute_of(f, b);
    ck_assert(W == 2 ? loader > loop : loader < loop);
    assert_steady(&sc, fmax(loader, loop), W == 2 ? "loader-bound" : "compute-bound");
}
END_TEST

/* The seed notes' example: a 3 GB batch from the 3 GB/s store's SSD (1 s, the network and the
 * connection faster), 0.1 s of compute: every step lasts 1 s and the GPU idles 90% of it. */
START_TEST(test_seed_idle_90_percent)
{
    int b = 10;
    double f = 0.1 * env_of().R / (3 * b); /* C = 0.1 s */
    struct scenario sc = data_scenario(f, b, (struct data_spec){.sample_B = 3e8, .decoded_B = 1,
                                                                .source = DATA_REMOTE,
                                                                .workers = 1, .pinned = true});
    struct run_record rec;
    run(&sc, &rec);
    for (int s = 2; s < STEPS; s++) {
        const struct run_event *st = test_step(&rec, s);
        test_assert_rel(st->time_s, 1.0, 1e-9, "a step: 3 GB at 3 GB/s");
        test_assert_rel(1 - st->compute_s / st->time_s, 0.9, 1e-5, "the GPU's idle fraction");
    }
    ck_assert(rec.input_bound);
    /* the resources: the store's disk busy 10 s (10 batches of 3 GB at 3 GB/s), the slowest */
    test_assert_rel(rec.resources[1].used / rec.resources[1].per_s, 10.0, 1e-9,
                    "the store's disk, seconds busy");
    for (int i = 0; i < RUN_RESOURCES; i++)
        ck_assert(run_resource_util(&rec, i) <= run_resource_util(&rec, 1));
    run_release(&rec);
    scenario_release(&sc);
}
END_TEST

/* A remote read: L, then the store's disk, the network and the connection at once; with the
 * connection slowest (87.5 MB/s, AWS's guideline) one worker's batch takes L + b S / conn. */
START_TEST(test_remote_connection_rate)
{
    double f = 1e8, S = 1e6, L = CATALOG_OBJECT_REQUEST_S;
    int b = 4;
    struct scenario sc = data_scenario(f, b, (struct data_spec){.sample_B = S, .decoded_B = 1,
                                                                .source = DATA_REMOTE,
                                                                .request_s = L,
                                                                .conn_Bps = CATALOG_OBJECT_CONN_BPS,
                                                                .workers = 1, .pinned = true});
    assert_steady(&sc, L + b * S / CATALOG_OBJECT_CONN_BPS, "remote, connection-bound");
}
END_TEST

/* Formats as request patterns (one worker, from the NVMe): MDS pays L for each of the b samples
 * of a batch; WebDataset once per shard begun (shards of 4 batches: every fourth batch). */
START_TEST(test_format_requests)
{
    double f = 1e8, S = 1e5, L = 1e-3;
    int b = 8;
    bool mds = _i == 0;
    struct scenario sc = data_scenario(
            f, b, (struct data_spec){.sample_B = S, .decoded_B = 1, .request_s = L,
                                     .format = mds ? DATA_MDS : DATA_WEBDATASET,
                                     .shard_samples = 4 * b, .workers = 1, .pinned = true});
    struct run_record rec;
    run(&sc, &rec);
    double read = b * S / CATALOG_NVME_BPS;
    if (mds) {
        for (int s = 2; s < STEPS; s++)
            test_assert_rel(test_step(&rec, s)->time_s, b * L + read, 1e-6, "mds step");
    } else { /* batches 0, 4, 8 begin a shard: steps 3-10 read 8 batches, 2 of them shards' first */
        double t = test_step(&rec, STEPS - 1)->t_s - test_step(&rec, 1)->t_s;
        test_assert_rel(t, 2 * L + 8 * read, 1e-6, "webdataset, steps 3-10 (two shards begun)");
    }
    run_release(&rec);
    scenario_release(&sc);
}
END_TEST

/* Prefetch hides a slow stage up to its depth: one worker reads WebDataset shards of 4 batches
 * from the NVMe, L = 8 ms to begin a shard and r = b S / D a batch, while the loop takes
 * Q = K + C a step (the loader faster on average). The worker may start batch k once the loop
 * took k - p, (p - 1) Q + C before the loop asks for k, so a shard's first batch keeps it
 * waiting max(0, L + r - (p - 1) Q - C): steps 3-10 (two shards begun) average
 * Q + 2 max(0, L + r - (p - 1) Q - C) / 8. */
START_TEST(test_prefetch_hides_up_to_its_depth)
{
    double f = 5e9, S = 4e5, L = 8e-3;
    int b = 16, p = _i + 1;
    struct env e = env_of();
    struct scenario sc = data_scenario(
            f, b, (struct data_spec){.sample_B = S, .decoded_B = 1, .request_s = L,
                                     .format = DATA_WEBDATASET, .shard_samples = 4 * b,
                                     .workers = 1, .prefetch = p, .pinned = true});
    double r = b * S / CATALOG_NVME_BPS, C = compute_of(f, b), Q = e.a + b / e.B + C;
    ck_assert(L + r > C && L + r < Q + C); /* one batch ahead is too little, two enough */
    assert_steady(&sc, Q + 2 * fmax(0, L + r - (p - 1) * Q - C) / 8,
                  p == 1 ? "prefetch 1" : "prefetch 2");
}
END_TEST

/* GPUDirect Storage reads the NVMe straight into GPU memory ahead of the loop (the disk and the
 * PCIe transfer at once), so the loop no longer copies: step = max(L + b S / D, C), against the
 * bounce through host memory's max(L + b S / D, K + C). */
START_TEST(test_gds_against_bounce)
{
    double f = 4.8e9, S = 2e6, L = CATALOG_NVME_REQUEST_S;
    int b = 16;
    struct env e = env_of();
    bool gds = _i == 0;
    struct scenario sc = data_scenario(f, b, (struct data_spec){.sample_B = S, .decoded_B = S,
                                                                .request_s = L, .workers = 1,
                                                                .pinned = true, .gds = gds});
    double read = L + b * S / CATALOG_NVME_BPS, C = compute_of(f, b), K = e.a + b * S / e.B;
    ck_assert(C < read && read < K + C); /* the copy decides */
    assert_steady(&sc, gds ? read : K + C, gds ? "gds" : "bounce");
}
END_TEST

/* The cache tier in front of the store (in memory, one worker, a dataset of 4 batches): epoch 0
 * misses, every batch L + b S / conn from the store; from epoch 1 on every sample hits when the
 * tier holds the dataset (the loop's K + C sets the pace), and only the first two batches' when
 * it holds half (the last two of each epoch miss again). */
START_TEST(test_cache_cold_then_warm)
{
    double f = 1e8, S = 1e6, L = CATALOG_OBJECT_REQUEST_S;
    int b = 4;
    bool half = _i == 1;
    struct env e = env_of();
    struct scenario sc = data_scenario(
            f, b, (struct data_spec){.samples = 4 * b, .sample_B = S, .decoded_B = 1,
                                     .source = DATA_REMOTE, .request_s = L,
                                     .conn_Bps = CATALOG_OBJECT_CONN_BPS, .cache = CACHE_MEMORY,
                                     .cache_B = (half ? 2 : 4) * b * S, .workers = 1,
                                     .pinned = true});
    struct run_record rec;
    run(&sc, &rec);
    double miss = L + b * S / CATALOG_OBJECT_CONN_BPS, loop = e.a + b / e.B + compute_of(f, b);
    ck_assert(miss > 2 * loop);
    for (int s = 1; s < 4; s++) /* epoch 0: cold */
        test_assert_rel(test_step(&rec, s)->time_s, miss, 1e-6, "a cold step");
    if (!half) {
        for (int s = 5; s < STEPS; s++)
            test_assert_rel(test_step(&rec, s)->time_s, loop, 1e-6, "a warm step");
        test_assert_rel(rec.cache_hits / (rec.cache_hits + rec.cache_misses), 0.6, 1e-9,
                        "hits: 24 of the 40 samples (epochs 1 and 2)");
    } else { /* batches 6 and 7 miss: loaded one after the other from when the loop took 4 and 5 */
        double t = test_step(&rec, 7)->t_s - test_step(&rec, 3)->t_s;
        test_assert_rel(t, 2 * loop + miss + miss, 1e-3, "epoch 1, half of it warm");
    }
    run_release(&rec);
    scenario_release(&sc);
}
END_TEST

/* Sizes spread (sample-sigma 0.5: lognormal sizes of mean S, a sample's the same in every
 * epoch): one worker reading from the NVMe, read-bound, 400 steps of 64 samples. The mean step
 * is the mean size's, L + b S / D, within 1% (the mean of 25,600 lognormal factors of mean 1 and
 * standard deviation sqrt(e^0.25 - 1) = 0.53 has a standard error of 0.0033), while the steps
 * differ (the largest batch at least 10% above the smallest). */
START_TEST(test_size_spread)
{
    double f = 1e7, S = 1e6, L = CATALOG_NVME_REQUEST_S;
    int b = 64, steps = 400;
    struct scenario sc = data_scenario(f, b, (struct data_spec){.samples = 1e7, .sample_B = S,
                                                                .sample_sigma = 0.5,
                                                                .decoded_B = 1, .request_s = L,
                                                                .workers = 1, .pinned = true});
    sc.train.steps = steps;
    struct run_record rec;
    run(&sc, &rec);
    double lo = 1e9, hi = 0;
    for (int s = 2; s < steps; s++) {
        lo = fmin(lo, test_step(&rec, s)->time_s);
        hi = fmax(hi, test_step(&rec, s)->time_s);
    }
    double mean = (test_step(&rec, steps - 1)->t_s - test_step(&rec, 1)->t_s) / (steps - 2);
    test_assert_rel(mean, L + b * S / CATALOG_NVME_BPS, 0.01, "the mean step");
    ck_assert_msg(hi > 1.1 * lo, "steps from %g to %g s: no spread", lo, hi);
    run_release(&rec);
    scenario_release(&sc);
}
END_TEST

/* WebDataset's shuffle buffer (a buffer of K = 100 samples a loader worker, 2 workers): its
 * memory is W K S a GPU, and a sample moves on average fewer than K places (check_order tests
 * the order itself). */
START_TEST(test_shuffle_buffer_memory)
{
    double f = 1e8, S = 3e5;
    int b = 16, W = 2, K = 100;
    struct scenario sc = data_scenario(f, b, (struct data_spec){.sample_B = S, .decoded_B = 1,
                                                                .source = DATA_MEMORY,
                                                                .format = DATA_WEBDATASET,
                                                                .shuffle = SHUFFLE_BUFFER,
                                                                .shuffle_buffer = K,
                                                                .workers = W, .pinned = true});
    struct run_record rec;
    run(&sc, &rec);
    test_assert_rel(rec.shuffle_buffer_B, W * K * S, 1e-12, "the shuffle buffers of a GPU");
    ck_assert(rec.shuffle_moved > 0 && rec.shuffle_moved < K);
    run_release(&rec);
    scenario_release(&sc);
}
END_TEST

/* A cache tier that crashes without its node (<cache-crash>, back at once, empty): the set-up
 * of test_cache_cold_then_warm (4 batches a epoch, the tier holding them all, one worker, a
 * window of 2), the crash in step 5, after the loop took batch 5 (so batches up to 7 were read)
 * and before it took 6 (which lets batch 8 start). Batches 4-7 hit, 8 and 9 (epoch 2's first
 * two) miss again: 16 of the 40 samples, not the fault-free 24; the run before the crash is
 * the fault-free one's, and the crash is logged. A tier down for the whole run never hits. */
static struct data_spec cache_spec(int b)
{
    return (struct data_spec){.samples = 4 * b, .sample_B = 1e6, .decoded_B = 1,
                              .source = DATA_REMOTE, .request_s = CATALOG_OBJECT_REQUEST_S,
                              .conn_Bps = CATALOG_OBJECT_CONN_BPS, .cache = CACHE_MEMORY,
                              .cache_B = 4 * b * 1e6, .workers = 1, .pinned = true};
}

/* The fault-free run of test_cache_crash: its step ends (a child process: one simulation a
 * process). */
static void cache_free_run(const void *arg, void *out)
{
    (void)arg;
    struct scenario sc = data_scenario(1e8, 4, cache_spec(4));
    struct run_record rec;
    run(&sc, &rec);
    for (int s = 0; s < STEPS; s++)
        ((double *)out)[s] = test_step(&rec, s)->t_s;
    run_release(&rec);
    scenario_release(&sc);
}

START_TEST(test_cache_crash)
{
    double f = 1e8, ends[STEPS];
    int b = 4;
    bool forever = _i == 1;
    test_in_child(cache_free_run, NULL, ends, sizeof ends);
    struct scenario sc = data_scenario(f, b, cache_spec(b));
    sc.faults = calloc(1, sizeof *sc.faults); /* <cache-crash node="node0" at restart-after> */
    sc.nfaults = 1;
    sc.faults[0] = (struct fault_spec){.kind = FS_CACHE_CRASH, .node = strdup("node0"),
                                       .at_s = forever ? 0 : (ends[4] + ends[5]) / 2, .step = -1,
                                       .restart_s = forever ? 1e9 : 0, .line = 1};
    struct run_record rec;
    run(&sc, &rec);
    double hits = rec.cache_hits / (rec.cache_hits + rec.cache_misses);
    if (forever) {
        test_assert_rel(hits + 1, 1, 1e-12, "a tier down all along: no hit");
    } else {
        test_assert_rel(hits, 0.4, 1e-9, "hits: batches 4-7, 16 of the 40 samples");
        for (int s = 0; s < 8; s++)
            test_assert_rel(test_step(&rec, s)->t_s, ends[s], 1e-12,
                            "before the crash, the fault-free run");
        ck_assert(test_step(&rec, 8)->t_s > ends[8]);
    }
    bool logged = false;
    for (size_t i = 0; i < rec.nev; i++)
        logged |= strstr(rec.ev[i].what, "cache tier of node0 crashed") != NULL;
    ck_assert(logged);
    run_release(&rec);
    scenario_release(&sc);
}
END_TEST

/* A corrupt shard (WebDataset shards of b/2 samples, shard 1 corrupt: the second half of batch
 * 0 of each epoch of 4 batches), decoding from memory on one worker sets the pace, b d a
 * batch: its samples are read, skipped (not decoded, not trained on) and counted. Steps 3-10
 * take batches 2-9, two of them (4 and 8) with b/2 samples to decode: (8 b - b) d in all. The
 * ten batches read 10 b samples, 3 b/2 of them skipped (batches 0, 4, 8), the rest consumed;
 * the shard's skip is logged once an epoch (3). */
START_TEST(test_corrupt_shard)
{
    double f = 1e8, d = 1e-3;
    int b = 8;
    struct scenario sc = data_scenario(f, b, (struct data_spec){.samples = 4 * b, .sample_B = 1,
                                                                .decoded_B = 1, .decode_s = d,
                                                                .format = DATA_WEBDATASET,
                                                                .shard_samples = b / 2,
                                                                .source = DATA_MEMORY,
                                                                .workers = 1, .pinned = true});
    sc.faults = calloc(1, sizeof *sc.faults); /* <corrupt-shard shard="1"/> */
    sc.nfaults = 1;
    sc.faults[0] = (struct fault_spec){.kind = FS_CORRUPT_SHARD, .shard = 1, .at_s = -1,
                                       .step = -1, .restart_s = -1, .line = 1};
    struct run_record rec;
    run(&sc, &rec);
    double t = test_step(&rec, STEPS - 1)->t_s - test_step(&rec, 1)->t_s;
    test_assert_rel(t, (8 * b - b) * d, 1e-6, "steps 3-10: 7 b samples decoded");
    test_assert_rel(rec.read_samples, STEPS * b, 1e-12, "samples read");
    test_assert_rel(rec.skipped_samples, 3 * b / 2, 1e-12, "samples skipped: 3 b / 2");
    test_assert_rel(rec.consumed_samples, STEPS * b - 3 * b / 2, 1e-12, "samples consumed");
    ck_assert(run_identities_hold(&rec));
    int logged = 0;
    for (size_t i = 0; i < rec.nev; i++)
        logged += strstr(rec.ev[i].what, "corrupt shard 1 skipped") != NULL;
    ck_assert_int_eq(logged, 3);
    run_release(&rec);
    scenario_release(&sc);
}
END_TEST

static Suite *loader_suite(void)
{
    Suite *s = suite_create("loader");
    TCase *tc = tcase_create("stages");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_read_alone);
    tcase_add_loop_test(tc, test_decode_alone, 0, 2);
    tcase_add_loop_test(tc, test_copy_pinned_and_pageable, 0, 2);
    tcase_add_test(tc, test_in_loop_is_serial);
    tcase_add_loop_test(tc, test_slowest_side_sets_the_rate, 0, 2);
    tcase_add_test(tc, test_seed_idle_90_percent);
    tcase_add_test(tc, test_remote_connection_rate);
    tcase_add_loop_test(tc, test_format_requests, 0, 2);
    tcase_add_loop_test(tc, test_gds_against_bounce, 0, 2);
    tcase_add_loop_test(tc, test_prefetch_hides_up_to_its_depth, 0, 2);
    tcase_add_loop_test(tc, test_cache_cold_then_warm, 0, 2);
    tcase_add_test(tc, test_size_spread);
    tcase_add_test(tc, test_shuffle_buffer_memory);
    tcase_add_loop_test(tc, test_cache_crash, 0, 2);
    tcase_add_test(tc, test_corrupt_shard);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(loader_suite());
}
