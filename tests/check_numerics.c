/* check_numerics.c - real training through the simulated all-reduce (<numerics>): one worker is
 * plain sequential SGD to the bit, and P workers with the ring equal large-batch SGD (the mean
 * gradient of all P x b examples of each step) to float tolerance, buckets and all. The dataset is
 * a small IDX pair the test writes itself, so it runs where Fashion-MNIST is not installed. */
#include "idxfile.h"
#include "numerics.h"
#include "testlib.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#define IN 16
#define CLASSES 4

/* n examples of 4 x 4 pixels, the label the brightest of the first four (learnable). */
static void write_set(const char *dir, const char *img, const char *lab, int n, unsigned seed)
{
    unsigned char *px = malloc((size_t)n * IN), *y = malloc((size_t)n);
    srand(seed);
    for (int i = 0; i < n; i++) {
        int best = 0;
        for (int k = 0; k < IN; k++) {
            px[i * IN + k] = (unsigned char)(rand() % 256);
            if (k < CLASSES && px[i * IN + k] > px[i * IN + best]) best = k;
        }
        y[i] = (unsigned char)best;
    }
    char *path = malloc(strlen(dir) + 64);
    sprintf(path, "%s/%s.gz", dir, img);
    write_idx(path, 2051, (unsigned[]){(unsigned)n, 4, 4}, 3, px, (size_t)n * IN, 1);
    sprintf(path, "%s/%s.gz", dir, lab);
    write_idx(path, 2049, (unsigned[]){(unsigned)n}, 1, y, (size_t)n, 1);
    free(path);
    free(px);
    free(y);
}

/* P workers of batch b training an MLP 16-8-4 with momentum for `steps` steps, evaluated every 4:
 * all-reduce over one node of P GPUs (ring, a bucket per layer), or a parameter server of K
 * dedicated machines for P one-GPU nodes (ps_init). */
static void numerics_train(struct scenario *sc, int b, int steps, char *dir)
{
    sc->train = (struct train_spec){.strategy = STRAT_ALLREDUCE, .algo = COLL_ALGO_RING,
                                    .batch = b, .steps = steps, .dtype = DTYPE_FP32,
                                    .opt = OPT_MOMENTUM, .bucket_B = 100, /* a bucket per layer */
                                    .overlap = true, .timeout_s = 3600, .chunks = 1, .line = 1};
    struct numerics_spec *nm = &sc->train.numerics;
    *nm = (struct numerics_spec){.present = true, .dir = dir, .hidden = {8}, .nhidden = 1,
                                 .lr = 0.1, .eval_every = 4, .line = 1};
    write_set(dir, "train-images-idx3-ubyte", "train-labels-idx1-ubyte", 256, 3);
    write_set(dir, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", 64, 4);
}

static struct scenario numerics_scenario(int P, int b, int steps, char *dir)
{
    struct scenario sc = test_cluster(1, P, "h100", "nvlink4", NULL, 1);
    numerics_train(&sc, b, steps, dir);
    return sc;
}

static struct scenario ps_scenario(int P, int K, enum ps_mode mode, bool by_bytes, int b,
                                   int steps, char *dir)
{
    struct scenario sc = test_cluster(P, 1, "h100", "nvlink4", "ib-ndr", 1);
    sc.cluster.ps_nodes = K;
    numerics_train(&sc, b, steps, dir);
    sc.train.strategy = STRAT_PS;
    sc.train.ps = (struct ps_spec){.shards = K, .dedicated = true, .split_bytes = by_bytes,
                                   .mode = mode, .line = 1};
    return sc;
}

/* The run's evaluations, with nm left open for the reference. */
static void run_numerics(struct scenario *sc, struct numerics *nm, struct run_record *rec)
{
    struct platform *pf = test_load(sc);
    struct dmlsim_error err = {0};
    int P = (int)pf->ngpus;
    ck_assert_msg(numerics_open(sc, P, nm, &err) == DMLSIM_OK, "%s", err.msg);
    struct model m;
    if (sc->train.numerics.cost_model) /* a proxy: the preset's buckets, the MLP's floats */
        ck_assert_int_eq(model_preset(sc->train.numerics.cost_model, NULL, DTYPE_FP32, &m), 0);
    else
        numerics_model(nm, &m);
    struct calib cal = calib_default();
    struct job j = {.sc = sc, .pf = pf, .m = &m, .cal = &cal, .plan = &test_plan, .nm = nm};
    const struct strategy *st = strategy_get(sc->train.strategy);
    ck_assert_msg(st->check(&j, &err) == DMLSIM_OK, "%s", err.msg);
    strategy_run(st, &j, rec);
    model_release(&m);
    platform_free(pf);
}

/* temp_dir's directories are named after the test's process (each test runs in a child of its
 * own, and some of them fork again to simulate): the checked fixture's teardown removes every
 * directory of that name with its files. */
static pid_t test_pid;

static void note_test_pid(void)
{
    test_pid = getpid();
}

static char *temp_dir(void)
{
    char *d = malloc(64);
    snprintf(d, 64, "/tmp/check_numerics-%ld-XXXXXX", (long)test_pid);
    ck_assert_ptr_nonnull(mkdtemp(d));
    return d;
}

static void remove_dir(const char *name)
{
    char path[600];
    DIR *dir = opendir(name);
    for (struct dirent *e; dir != NULL && (e = readdir(dir)) != NULL;) {
        int len = snprintf(path, sizeof path, "%s/%s", name, e->d_name);
        if (e->d_name[0] != '.' && len < (int)sizeof path) unlink(path);
    }
    if (dir != NULL) closedir(dir);
    rmdir(name);
}

static void remove_temp_dirs(void)
{
    char prefix[64], path[600];
    snprintf(prefix, sizeof prefix, "check_numerics-%ld-", (long)test_pid);
    DIR *tmp = opendir("/tmp");
    for (struct dirent *e; tmp != NULL && (e = readdir(tmp)) != NULL;) {
        int len = snprintf(path, sizeof path, "/tmp/%s", e->d_name);
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && len < (int)sizeof path)
            remove_dir(path);
    }
    if (tmp != NULL) closedir(tmp);
}

/* The run's evaluations are those of sequential SGD with momentum on one worker's batches, bit
 * for bit; then releases everything. */
static void assert_sequential(struct scenario *sc, struct numerics *nm, struct run_record *rec)
{
    struct replica ref;
    replica_init(nm, &ref);
    for (int s = 0, e = 0; s < 12; s++) {
        replica_gradient(nm, &ref, 0, s);
        nn_opt_step(&ref.opt, ref.params, ref.grad);
        if ((s + 1) % 4 != 0) continue;
        double loss, acc = numerics_evaluate(nm, ref.params, &loss);
        ck_assert_double_eq(rec->evals[e].loss, loss);
        ck_assert_double_eq(rec->evals[e].accuracy, acc);
        ck_assert_int_eq(rec->evals[e++].step, s + 1);
    }
    replica_release(&ref);
    numerics_close(nm);
    run_release(rec);
    scenario_release(sc);
}

/* Each step applied the mean gradient of its P x b examples (worker r holds examples
 * (P s + r) b .. + b - 1, together P b s .. P b s + P b - 1): large-batch SGD, up to the order of
 * the float additions; then releases everything. */
static void assert_large_batch(struct scenario *sc, struct numerics *nm, struct run_record *rec,
                               int P, int b)
{
    struct replica ref;
    replica_init(nm, &ref);
    struct nn_work w;
    nn_work_init(&w, &nm->net, P * b);
    for (int s = 0, e = 0; s < 12; s++) {
        const float *x = nm->train.x + (size_t)(s * P * b % nm->train.n) * IN;
        nn_loss_grad(&nm->net, ref.params, x, nm->train.y + s * P * b % nm->train.n, P * b,
                     ref.grad, &w);
        /* warm-up over W steps: lr + (P lr - lr) s / W, then P lr (Goyal et al. 2017, 2.2) */
        const struct numerics_spec *sp = &sc->train.numerics;
        double top = sp->lr_linear ? sp->lr * P : sp->lr;
        ref.opt.lr = s < sp->warmup ? sp->lr + (top - sp->lr) * s / sp->warmup : top;
        nn_opt_step(&ref.opt, ref.params, ref.grad);
        if ((s + 1) % 4 != 0) continue;
        double loss;
        numerics_evaluate(nm, ref.params, &loss);
        test_assert_rel(rec->evals[e++].loss, loss, 1e-5, "test loss against large-batch SGD");
    }
    nn_work_release(&w);
    replica_release(&ref);
    numerics_close(nm);
    run_release(rec);
    scenario_release(sc);
}

/* Runs sc, whose 12 steps are evaluated at 4, 8 and 12, and checks it against sequential SGD
 * (P = 0) or large-batch SGD of P workers of b examples; then releases everything. */
static void check_against(struct scenario *sc, int P, int b)
{
    struct numerics nm;
    struct run_record rec;
    run_numerics(sc, &nm, &rec);
    ck_assert_uint_eq(rec.nevals, 3); /* steps 4, 8, 12 */
    if (P == 0)
        assert_sequential(sc, &nm, &rec);
    else
        assert_large_batch(sc, &nm, &rec, P, b);
}

/* One worker: the simulated run is sequential SGD with momentum, bit for bit. */
START_TEST(test_one_worker_is_sequential_sgd)
{
    struct scenario sc = numerics_scenario(1, 8, 12, temp_dir());
    check_against(&sc, 0, 0);
}
END_TEST

/* P = 4 workers of b = 8 with the ring: large-batch SGD of 32 examples a step. */
START_TEST(test_ring_is_large_batch_sgd)
{
    struct scenario sc = numerics_scenario(4, 8, 12, temp_dir());
    check_against(&sc, 4, 8);
}
END_TEST

/* lr-scaling="linear" with warmup="8": the lr of step s is 0.1 + (0.4 - 0.1) s / 8 for s < 8, then
 * 0.4, under the ring (i = 0) and a sync PS (1): large-batch SGD with that schedule. */
START_TEST(test_warmup_is_large_batch_sgd)
{
    struct scenario sc = _i == 0 ? numerics_scenario(4, 8, 12, temp_dir())
                                 : ps_scenario(4, 2, PS_SYNC, true, 8, 12, temp_dir());
    sc.train.numerics.lr_linear = true;
    sc.train.numerics.warmup = 8;
    check_against(&sc, 4, 8);
}
END_TEST

/* One worker and a PS of 2 shards (split by bytes: each holds a run of the vector), sync or
 * async, or async split by layer with coordinator="enforce": each version applies the one
 * gradient the worker computed from the parameters it pulled, which are the current ones:
 * sequential SGD, bit for bit. */
START_TEST(test_ps_one_worker_is_sequential_sgd)
{
    enum ps_mode mode = _i ? PS_ASYNC : PS_SYNC;
    struct scenario sc = ps_scenario(1, 2, mode, _i < 2, 8, 12, temp_dir());
    sc.train.ps.coordinator = sc.train.ps.enforce = _i == 2; /* the global version on the pull */
    check_against(&sc, 0, 0);
}
END_TEST

/* Sync PS, 4 workers, 2 shards split by layer (each a layer of the MLP): each version applies
 * the mean of its quorum's 4 pushes, large-batch SGD. */
START_TEST(test_sync_ps_is_large_batch_sgd)
{
    struct scenario sc = ps_scenario(4, 2, PS_SYNC, false, 8, 12, temp_dir());
    check_against(&sc, 4, 8);
}
END_TEST

/* Sync PS with local aggregation, 2 nodes x 2 GPUs: each node's first GPU copies the pulled
 * parameters to the other, sums the node's two gradients and pushes the sum, counted as two;
 * the shard applies the mean of the 4: large-batch SGD again. */
START_TEST(test_local_aggregation_is_large_batch_sgd)
{
    struct scenario sc = test_cluster(2, 2, "h100", "nvlink4", "ib-ndr", 1);
    sc.cluster.ps_nodes = 1;
    numerics_train(&sc, 8, 12, temp_dir());
    sc.train.strategy = STRAT_PS;
    sc.train.ps = (struct ps_spec){.shards = 1, .dedicated = true, .split_bytes = true,
                                   .mode = PS_SYNC, .local_agg = true, .line = 1};
    check_against(&sc, 4, 8);
}
END_TEST

/* cost-model="resnet50": the steps take ResNet-50's time and its gradient buckets (DDP's 25 MB
 * here, so several), which carry the MLP's gradient in proportion; the learning is unchanged:
 * large-batch SGD, with the ring (i = 0), the nccl family (1) and a sync PS of 2 shards (2). */
START_TEST(test_proxy_is_large_batch_sgd)
{
    struct scenario sc = _i < 2 ? numerics_scenario(4, 8, 12, temp_dir())
                                : ps_scenario(4, 2, PS_SYNC, false, 8, 12, temp_dir());
    sc.train.numerics.cost_model = strdup("resnet50");
    sc.train.bucket_B = 25e6;
    if (_i == 1) sc.train.algo = COLL_ALGO_NCCL;
    struct numerics nm;
    struct run_record rec;
    run_numerics(&sc, &nm, &rec);
    ck_assert_uint_eq(rec.nevals, 3);
    ck_assert_str_eq(rec.proxy, "resnet50");
    assert_large_batch(&sc, &nm, &rec, 4, 8);
}
END_TEST

/* With an input pipeline that shuffles (<data shuffle="epoch">: MDS's epoch-consistent order,
 * checked by check_order), the workers learn from the examples the pipeline delivers: 4 workers
 * with the ring equal large-batch SGD whose step s takes the examples order_sample gives for
 * workers 0-3, slots 0-7, within 10^-5; and the result differs from the file's order. */
START_TEST(test_pipeline_order_is_learnt)
{
    char *dir = temp_dir();
    struct scenario sc = numerics_scenario(4, 8, 12, dir);
    sc.train.data = (struct data_spec){.present = true, .samples = 256, .sample_B = 1,
                                       .decoded_B = 1, .shuffle = SHUFFLE_EPOCH,
                                       .shard_samples = 5000, .columns = 1,
                                       .source = DATA_MEMORY, .conn_Bps = 1e15, .workers = 1,
                                       .prefetch = 2, .pinned = true, .seed = sc.seed,
                                       .shuffle_buffer = 1000, .line = 1};
    struct numerics nm;
    struct run_record rec;
    run_numerics(&sc, &nm, &rec);
    ck_assert_uint_eq(rec.nevals, 3);
    struct order o;
    order_init(&o, SHUFFLE_EPOCH, nm.train.n, 4, 8, sc.seed, 0);
    struct replica ref;
    replica_init(&nm, &ref);
    struct nn_work w;
    nn_work_init(&w, &nm.net, 32);
    float *x = malloc(32 * IN * sizeof *x);
    unsigned char y[32];
    double unshuffled_differs = 0;
    for (int s = 0, e = 0; s < 12; s++) {
        for (int k = 0; k < 32; k++) {
            long long i = order_sample(&o, k / 8, s, k % 8);
            unshuffled_differs += i != (long long)(s * 32 + k) % nm.train.n;
            memcpy(x + k * IN, nm.train.x + i * IN, IN * sizeof *x);
            y[k] = nm.train.y[i];
        }
        nn_loss_grad(&nm.net, ref.params, x, y, 32, ref.grad, &w);
        nn_opt_step(&ref.opt, ref.params, ref.grad);
        if ((s + 1) % 4 != 0) continue;
        double loss;
        numerics_evaluate(&nm, ref.params, &loss);
        test_assert_rel(rec.evals[e++].loss, loss, 1e-5, "test loss against the pipeline's order");
    }
    ck_assert(unshuffled_differs > 0);
    free(x);
    nn_work_release(&w);
    replica_release(&ref);
    order_release(&o);
    numerics_close(&nm);
    run_release(&rec);
    scenario_release(&sc);
}
END_TEST

/* The training set rewritten sorted by class (the test set as it was): a file in class order. */
static void sort_by_class(const char *dir)
{
    struct idx_set set;
    char path[256];
    struct dmlsim_error err = {0};
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", dir);
    char lab[256];
    snprintf(lab, sizeof lab, "%s/train-labels-idx1-ubyte.gz", dir);
    ck_assert_msg(idx_load(path, lab, 0, &set, &err) == DMLSIM_OK, "%s", err.msg);
    int n = set.n;
    unsigned char *px = malloc((size_t)n * IN), *y = malloc((size_t)n);
    int k = 0;
    for (int c = 0; c < CLASSES; c++)
        for (int i = 0; i < n; i++) {
            if (set.y[i] != c) continue;
            for (int d = 0; d < IN; d++)
                px[k * IN + d] = (unsigned char)lrintf(set.x[(size_t)i * IN + d] * 255);
            y[k++] = (unsigned char)c;
        }
    ck_assert_int_eq(k, n);
    write_idx(path, 2051, (unsigned[]){(unsigned)n, 4, 4}, 3, px, (size_t)n * IN, 1);
    write_idx(lab, 2049, (unsigned[]){(unsigned)n}, 1, y, (size_t)n, 1);
    idx_release(&set);
    free(px);
    free(y);
}

/* Corrupt shards are not learnt: four workers of batch 8, WebDataset shards of 4 samples in the
 * file's order, shards 1 and 6 corrupt (samples 4-7 and 24-27 of each epoch). Each worker's
 * gradient is the mean over the samples of its batch outside them (PyTorch's mean loss over
 * what the loader delivered), and the ring averages the four: the test losses equal that
 * computed here (within 1e-5). */
START_TEST(test_corrupt_shards_are_not_learnt)
{
    char *dir = temp_dir();
    struct scenario sc = numerics_scenario(4, 8, 12, dir);
    sc.train.data = (struct data_spec){.present = true, .samples = 256, .sample_B = 1,
                                       .decoded_B = 1, .format = DATA_WEBDATASET,
                                       .shard_samples = 4, .columns = 1, .source = DATA_MEMORY,
                                       .conn_Bps = 1e15, .workers = 1, .prefetch = 2,
                                       .pinned = true, .seed = sc.seed, .shuffle_buffer = 1000,
                                       .line = 1};
    sc.faults = calloc(2, sizeof *sc.faults); /* <corrupt-shard shard="1"/> and "6" */
    sc.nfaults = 2;
    for (int k = 0; k < 2; k++)
        sc.faults[k] = (struct fault_spec){.kind = FS_CORRUPT_SHARD, .shard = k ? 6 : 1,
                                           .at_s = -1, .step = -1, .restart_s = -1, .line = 1};
    struct numerics nm;
    struct run_record rec;
    run_numerics(&sc, &nm, &rec);
    ck_assert_uint_eq(rec.nevals, 3);
    struct replica ref;
    replica_init(&nm, &ref);
    struct nn_work w;
    nn_work_init(&w, &nm.net, 8);
    float *x = malloc(8 * IN * sizeof *x), *sum = malloc(nm.net.nparams * sizeof *sum);
    unsigned char y[8];
    for (int s = 0, e = 0; s < 12; s++) {
        memset(sum, 0, nm.net.nparams * sizeof *sum);
        for (int r = 0; r < 4; r++) {
            int n = 0;
            for (int j = 0; j < 8; j++) {
                long long i = (long long)(s * 32 + r * 8 + j) % nm.train.n, shard = i / 4;
                if (shard == 1 || shard == 6) continue;
                memcpy(x + n * IN, nm.train.x + i * IN, IN * sizeof *x);
                y[n++] = nm.train.y[i];
            }
            nn_loss_grad(&nm.net, ref.params, x, y, n, ref.grad, &w);
            for (size_t p = 0; p < nm.net.nparams; p++)
                sum[p] += ref.grad[p] / 4;
        }
        nn_opt_step(&ref.opt, ref.params, sum);
        if ((s + 1) % 4 != 0) continue;
        double loss;
        numerics_evaluate(&nm, ref.params, &loss);
        test_assert_rel(rec.evals[e++].loss, loss, 1e-5, "test loss without the corrupt shards");
    }
    ck_assert(rec.skipped_samples > 0);
    free(x);
    free(sum);
    nn_work_release(&w);
    replica_release(&ref);
    numerics_close(&nm);
    run_release(&rec);
    scenario_release(&sc);
}
END_TEST

/* The class-sorted run of test_shuffle_quality_is_learnt in order *kind (+ BY_LAYOUT: the files
 * left as they are, <data layout="by-class"> sorting them): its last test loss. */
#define BY_LAYOUT 100
static void sorted_run(const void *kind, void *loss)
{
    char *dir = temp_dir();
    int k = *(const int *)kind;
    struct scenario sc = numerics_scenario(1, 8, 96, dir);
    if (k < BY_LAYOUT) sort_by_class(dir);
    sc.train.numerics.eval_every = 96;
    sc.train.data = (struct data_spec){.present = true, .samples = 256, .sample_B = 1,
                                       .decoded_B = 1, .shuffle = k % BY_LAYOUT,
                                       .by_class = k >= BY_LAYOUT,
                                       .shuffle_buffer = 64, .shard_samples = 5000,
                                       .columns = 1, .source = DATA_MEMORY, .conn_Bps = 1e15,
                                       .workers = 1, .prefetch = 2, .pinned = true,
                                       .seed = sc.seed, .line = 1};
    struct numerics nm;
    struct run_record rec;
    run_numerics(&sc, &nm, &rec);
    *(double *)loss = rec.evals[rec.nevals - 1].loss;
}

/* What the order teaches, on a training set sorted by class (one worker, batch 8, 96 steps: 3
 * epochs): in the file's order every batch holds one class, and the model ends trained on the
 * last class it saw; MDS's epoch shuffle mixes the classes, and so does a WebDataset buffer of
 * 64 samples, less well: the test loss orders them none > buffer > epoch. <data
 * layout="by-class"> over the files as written gives the sorted files' run exactly. */
START_TEST(test_shuffle_quality_is_learnt)
{
    static const int kinds[] = {SHUFFLE_NONE, SHUFFLE_BUFFER, SHUFFLE_EPOCH,
                                BY_LAYOUT + SHUFFLE_NONE};
    double loss[4];
    for (int k = 0; k < 4; k++)
        test_in_child(sorted_run, &kinds[k], &loss[k], sizeof loss[k]);
    ck_assert_msg(loss[0] > loss[1] && loss[1] > loss[2],
                  "test loss: file order %g, buffer %g, epoch shuffle %g", loss[0], loss[1],
                  loss[2]);
    /* layout="by-class" is the files sorted: the same run, to the bit */
    ck_assert_msg(loss[3] == loss[0], "layout by-class %.17g, sorted files %.17g", loss[3],
                  loss[0]);
}
END_TEST

/* ---- failures and the real state ------------------------------------------------------------ */

/* `nodes` one-GPU nodes train `steps` steps of b = 8 through the ring (the dataset of
 * numerics_train in dir), with `timing` added to <training> and `numerics` to <numerics>; `extra`
 * adds elements after <training>. Written as a scenario file and loaded by the parser, as a
 * user's would be. */
static struct scenario nodes_scenario(char *dir, int nodes, int steps, const char *timing,
                                      const char *numerics, const char *extra)
{
    struct scenario sc = numerics_scenario(1, 8, 12, strdup(dir)); /* writes the dataset */
    scenario_release(&sc);
    char path[96];
    snprintf(path, sizeof path, "%s/s.xml", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "<scenario name=\"t\" seed=\"1\">\n"
               "  <cluster nodes=\"%d\" gpus-per-node=\"1\" gpu=\"h100\" nic=\"ib-hdr\"/>\n"
               "  <training strategy=\"allreduce\" algo=\"ring\" batch-per-gpu=\"8\" "
               "steps=\"%d\" optimizer=\"momentum\" %s>\n"
               "    <numerics dataset=\"idx\" dir=\"%s\" hidden=\"8\" lr=\"0.1\" "
               "eval-every=\"4\"%s/>\n  </training>\n%s</scenario>\n",
            nodes, steps, timing, dir, numerics, extra);
    fclose(f);
    struct dmlsim_error err = {0};
    ck_assert_msg(scenario_load(path, &sc, &err) == DMLSIM_OK, "%s", err.msg);
    return sc;
}

/* Two one-GPU nodes train 12 steps (nodes_scenario). */
static struct scenario two_nodes(char *dir, const char *extra)
{
    return nodes_scenario(dir, 2, 12, "timeout=\"50ms\"", "", extra);
}

/* A crash of node1's worker at the start of step 6, back after 1 s; the survivors wait for it. */
#define CRASH_AT_6                                                                                 \
    "  <recovery policy=\"wait\" replacement-timeout=\"10s\"%s/>\n"                             \
    "  <faults><crash host=\"node1.gpu0\" step=\"6\" restart-after=\"1s\"/></faults>\n"

/* What a run of two_nodes ended with. */
struct outcome {
    unsigned long long fnv;
    double loss, lost_steps, membership_changes;
};

/* Runs nodes_scenario(...) in a child process (SimGrid initialises once per process). */
struct nodes_args {
    int nodes, steps;
    const char *timing, *numerics, *extra;
};

static void nodes_run(const void *arg, void *out)
{
    const struct nodes_args *a = arg;
    char *dir = temp_dir();
    struct scenario sc = nodes_scenario(dir, a->nodes, a->steps, a->timing, a->numerics, a->extra);
    struct numerics nm;
    struct run_record rec;
    run_numerics(&sc, &nm, &rec);
    *(struct outcome *)out = (struct outcome){rec.params_fnv, rec.evals[rec.nevals - 1].loss,
                                              rec.lost_steps, rec.membership_changes};
}

static struct outcome run_nodes(int nodes, int steps, const char *timing, const char *numerics,
                                const char *extra)
{
    struct outcome o = {0};
    struct nodes_args a = {nodes, steps, timing, numerics, extra};
    test_in_child(nodes_run, &a, &o, sizeof o);
    return o;
}

static struct outcome run_two_nodes(const char *extra)
{
    return run_nodes(2, 12, "timeout=\"50ms\"", "", extra);
}

/* Checkpoints every 4 steps, the crash at step 6: everyone rolls back to the checkpoint of step 4
 * (steps 4 and 5 are lost, 6 - 4 = 2), restores its weights, momentum and data position, replays
 * steps 4.. on the same batches, and ends with the weights of the run without a crash, to the
 * bit. Restarting from the initial state without a checkpoint (all 6 steps lost), or taking the
 * survivor's state (restore-from="survivor": none lost), ends there too. */
START_TEST(test_restore_is_bitwise)
{
    static const char *const how[] = {" restore-from=\"checkpoint\"", "",
                                      " restore-from=\"survivor\""};
    static const char *const ckpt[] = {"  <checkpoint every=\"4 steps\"/>\n", "", ""};
    static const double lost[] = {3, 7, 1};
    char extra[512], rec_[256];
    snprintf(rec_, sizeof rec_, CRASH_AT_6, how[_i]);
    snprintf(extra, sizeof extra, "%s%s", ckpt[_i], rec_);
    struct outcome plain = run_two_nodes(""), crashed = run_two_nodes(extra);
    ck_assert_double_eq(crashed.membership_changes, 1);
    ck_assert_double_eq(crashed.lost_steps, lost[_i]);
    ck_assert_msg(plain.fnv == crashed.fnv, "final parameters differ: %016llx, %016llx",
                  plain.fnv, crashed.fnv);
    ck_assert_double_eq(plain.loss, crashed.loss);
}
END_TEST

/* lost-batches="skip": after the rollback to step 4 the data goes on past every batch read (the
 * survivor read position 6 before the crash stopped the step), so steps 4..11 read positions
 * 7..14: large-batch SGD over positions 0-3 and 7-14, not the uninterrupted run's weights. */
START_TEST(test_skip_reads_on)
{
    char extra[512], rec_[256];
    snprintf(rec_, sizeof rec_, CRASH_AT_6, " lost-batches=\"skip\"");
    snprintf(extra, sizeof extra, "  <checkpoint every=\"4 steps\"/>\n%s", rec_);
    char *dir = temp_dir();
    struct scenario sc = two_nodes(dir, extra);
    struct numerics nm;
    struct outcome plain = run_two_nodes("");
    struct run_record rec;
    run_numerics(&sc, &nm, &rec);
    ck_assert_msg(rec.params_fnv != plain.fnv, "skipping batches changed nothing");
    struct replica ref;
    replica_init(&nm, &ref);
    struct nn_work w;
    nn_work_init(&w, &nm.net, 16);
    for (int s = 0; s < 12; s++) {
        int pos = s < 4 ? s : s + 3, first = pos * 16 % nm.train.n;
        nn_loss_grad(&nm.net, ref.params, nm.train.x + (size_t)first * IN, nm.train.y + first, 16,
                     ref.grad, &w);
        nn_opt_step(&ref.opt, ref.params, ref.grad);
    }
    double loss;
    numerics_evaluate(&nm, ref.params, &loss);
    test_assert_rel(rec.evals[rec.nevals - 1].loss, loss, 1e-5, "test loss after skipping");
    nn_work_release(&w);
    replica_release(&ref);
    numerics_close(&nm);
    run_release(&rec);
    scenario_release(&sc);
    free(dir);
}
END_TEST

/* ---- split brain ----------------------------------------------------------------------------- */

/* Four nodes, 60 steps with ResNet-50's step cost (tens of ms, so the partition and the
 * heal fall mid-run), checkpoints every 4 steps; node0,node1 | node2,node3 partitioned from
 * 100 ms for 500 ms; `rdzv` is the <recovery> attribute under test. */
#define SPLIT_TIMING "timeout=\"200ms\""
#define SPLIT_COST " cost-model=\"resnet50\""
#define SPLIT_FAULTS                                                                               \
    "  <checkpoint every=\"4 steps\"/>\n"                                                        \
    "  <recovery policy=\"elastic\" rendezvous-timeout=\"20ms\"%s/>\n"                           \
    "  <faults><partition groups=\"node0,node1|node2,node3\" at=\"100ms\" "                    \
    "heal-after=\"500ms\"/></faults>\n"

/* Large-batch SGD with momentum from ref's state over steps [from, to), each step the mean
 * gradient of ranks lo..hi-1 of 4 (their examples are contiguous: (4 s + r) b ..). */
static void large_batch_steps(struct numerics *nm, struct replica *ref, int from, int to, int lo,
                              int hi)
{
    int b = 8, n = (hi - lo) * b;
    struct nn_work w;
    nn_work_init(&w, &nm->net, n);
    for (int s = from; s < to; s++) {
        int first = (4 * s + lo) * b % nm->train.n;
        nn_loss_grad(&nm->net, ref->params, nm->train.x + (size_t)first * IN,
                     nm->train.y + first, n, ref->grad, &w);
        nn_opt_step(&ref->opt, ref->params, ref->grad);
    }
    nn_work_release(&w);
}

/* The recovery events' steps: the store side's rollback (c0), the fork of node2's side (h), the
 * merge (the side at x, the store's at y) and the step the merged membership resumes at (r). */
struct split_steps {
    int c0, h, x, y, r;
};

static struct split_steps split_steps_of(const struct run_record *rec)
{
    struct split_steps st = {-1, -1, -1, -1, -1};
    for (size_t i = 0; i < rec->nev; i++) {
        const struct run_event *e = &rec->ev[i];
        int id, n, side;
        if (e->kind != RUN_RECOVERY) continue;
        if (strstr(e->what, "replica:") && st.h < 0)
            st.h = e->step;
        else if (st.c0 < 0 && sscanf(e->what, "membership %d: %d worker(s)", &id, &n) == 2 && n == 2)
            st.c0 = e->step;
        else if (st.x < 0 && sscanf(e->what, "merge: side %d at %d acc %*f; store's at %d", &side,
                                    &st.x, &st.y) == 3)
            continue;
        else if (st.x >= 0 && sscanf(e->what, "membership %d: %d worker(s)", &id, &n) == 2)
            st.r = e->step;
    }
    return st;
}

/* rendezvous="per-side": both sides train on, node0,node1 from the checkpoint they roll back to
 * (c0), node2,node3 from the state they held (h), as two rings of 2; at the heal the two models'
 * L2 distance is the distance between large-batch SGD over ranks 0,1 for c0..y and over ranks
 * 2,3 for h..x, each after large-batch SGD of all four up to its start; then everyone rolls back
 * to the checkpoint written before the split, the last all agree on, and replays: the final
 * parameters are those of the run without the partition, to the bit. */
START_TEST(test_split_brain_diverges_and_merges)
{
    struct outcome plain = /* first: SimGrid initialises once per process */
            run_nodes(4, 60, SPLIT_TIMING, SPLIT_COST, "  <checkpoint every=\"4 steps\"/>\n");
    char *dir = temp_dir(), extra[512];
    snprintf(extra, sizeof extra, SPLIT_FAULTS, " rendezvous=\"per-side\"");
    struct scenario sc = nodes_scenario(dir, 4, 60, SPLIT_TIMING, SPLIT_COST, extra);
    struct numerics nm;
    struct run_record rec;
    run_numerics(&sc, &nm, &rec);
    struct split_steps st = split_steps_of(&rec);
    ck_assert_double_eq(rec.sides, 2);
    ck_assert_int_ge(st.c0, 0);
    ck_assert_int_gt(st.h, st.c0 - 1);
    ck_assert_msg(st.x > st.h && st.y > st.c0, "no merge after both sides trained (%d %d %d %d)",
                  st.c0, st.h, st.x, st.y);
    /* the last checkpoint all agree on: the last the first membership wrote (every 4 steps) up to
     * the state the side took, not a later one of the store's side */
    ck_assert_int_eq(st.r, st.h / 4 * 4);
    ck_assert_int_lt(st.r, st.y / 4 * 4);
    struct replica a, b;
    replica_init(&nm, &a);
    replica_init(&nm, &b);
    large_batch_steps(&nm, &a, 0, st.c0, 0, 4);
    large_batch_steps(&nm, &a, st.c0, st.y, 0, 2);
    large_batch_steps(&nm, &b, 0, st.h, 0, 4);
    large_batch_steps(&nm, &b, st.h, st.x, 2, 4);
    double l2 = 0;
    for (size_t i = 0; i < nm.net.nparams; i++)
        l2 += ((double)a.params[i] - b.params[i]) * ((double)a.params[i] - b.params[i]);
    test_assert_rel(rec.divergence_l2, sqrt(l2), 1e-4, "L2 distance of the two sides' models");
    replica_release(&a);
    replica_release(&b);
    ck_assert_double_eq(plain.membership_changes, 0);
    ck_assert_msg(rec.params_fnv == plain.fnv, "final parameters differ from the uninterrupted "
                  "run's: %016llx, %016llx", rec.params_fnv, plain.fnv);
    numerics_close(&nm);
    run_release(&rec);
    scenario_release(&sc);
    free(dir);
}
END_TEST

/* The single store (the default): the side without it waits for the heal, so one model only:
 * no replica forms a membership, and new ones come from the store alone (node0,node1 at the
 * split, the others as they rejoin after the heal). */
START_TEST(test_single_store_never_splits)
{
    char *dir = temp_dir(), extra[512];
    snprintf(extra, sizeof extra, SPLIT_FAULTS, "");
    struct scenario sc = nodes_scenario(dir, 4, 60, SPLIT_TIMING, SPLIT_COST, extra);
    struct numerics nm;
    struct run_record rec;
    run_numerics(&sc, &nm, &rec);
    ck_assert_double_eq(rec.sides, 1);
    ck_assert_double_eq(rec.divergence_l2, 0);
    ck_assert_double_eq(rec.steps_completed, 60);
    ck_assert_double_ge(rec.membership_changes, 2);
    for (size_t i = 0; i < rec.nev; i++)
        ck_assert_msg(strstr(rec.ev[i].what, "replica") == NULL, "%s", rec.ev[i].what);
    numerics_close(&nm);
    run_release(&rec);
    scenario_release(&sc);
    free(dir);
}
END_TEST

static Suite *numerics_suite(void)
{
    Suite *s = suite_create("numerics");
    TCase *tc = tcase_create("allreduce");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, note_test_pid, remove_temp_dirs);
    tcase_add_test(tc, test_one_worker_is_sequential_sgd);
    tcase_add_test(tc, test_ring_is_large_batch_sgd);
    tcase_add_loop_test(tc, test_warmup_is_large_batch_sgd, 0, 2);
    tcase_add_test(tc, test_pipeline_order_is_learnt);
    tcase_add_test(tc, test_shuffle_quality_is_learnt);
    tcase_add_test(tc, test_corrupt_shards_are_not_learnt);
    suite_add_tcase(s, tc);
    tc = tcase_create("ps");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, note_test_pid, remove_temp_dirs);
    tcase_add_loop_test(tc, test_ps_one_worker_is_sequential_sgd, 0, 3);
    tcase_add_test(tc, test_sync_ps_is_large_batch_sgd);
    tcase_add_test(tc, test_local_aggregation_is_large_batch_sgd);
    tcase_add_loop_test(tc, test_proxy_is_large_batch_sgd, 0, 3);
    suite_add_tcase(s, tc);
    tc = tcase_create("failures");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, note_test_pid, remove_temp_dirs);
    tcase_add_loop_test(tc, test_restore_is_bitwise, 0, 3);
    tcase_add_test(tc, test_skip_reads_on);
    suite_add_tcase(s, tc);
    tc = tcase_create("split brain");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, note_test_pid, remove_temp_dirs);
    tcase_add_test(tc, test_split_brain_diverges_and_merges);
    tcase_add_test(tc, test_single_store_never_splits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(numerics_suite());
}
