/* cmd_run.c - `dmlsim run` (see cmd_run.h). */
#include "cmd_run.h"

#include "bench.h"
#include "calib.h"
#include "cmdline.h"
#include "collective.h"
#include "datadir.h"
#include "error.h"
#include "expect.h"
#include "fault.h"
#include "interrupt.h"
#include "junit.h"
#include "level.h"
#include "loader.h"
#include "memcheck.h"
#include "model.h"
#include "nccl_socket.h"
#include "outfile.h"
#include "platform.h"
#include "report.h"
#include "report_bench.h"
#include "scen_emb.h"
#include "scenario.h"
#include "sgcfg.h"
#include "sgguard.h"
#include "strategy.h"
#include "trace.h"
#include "validate.h"
#include "warn.h"

#include <xbt/log.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- progress: on a terminal, a run longer than PROGRESS_AFTER_S of wall-clock time shows its
 * simulated time and steps done on stderr, rewritten in place at most every PROGRESS_EVERY_S;
 * nothing when stderr is not a terminal, so files and pipes stay byte-identical. */
#define PROGRESS_AFTER_S 2.0
#define PROGRESS_EVERY_S 0.25

static double progress_start, progress_last;
static bool progress_shown;

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void progress_step(double t_s, int step, int planned)
{
    double now = wall_now();
    if (now - progress_start < PROGRESS_AFTER_S || now - progress_last < PROGRESS_EVERY_S) return;
    progress_last = now;
    progress_shown = true;
    fprintf(stderr, "\r\033[Kdmlsim: simulated %.3f s, step %d of %d, %.0f s so far", t_s, step,
            planned, now - progress_start);
}

static void progress_begin(void)
{
    progress_start = wall_now();
    if (isatty(STDERR_FILENO)) run_set_step_hook(progress_step);
}

static void progress_end(void)
{
    if (progress_shown) fputs("\r\033[K", stderr);
    progress_shown = false;
    run_set_step_hook(NULL);
}

/* "# nccl socket" when the nccl family's network is a TCP class (NCCL's socket transport,
 * nccl_socket.h): each connection's sockets and what they can carry at most. */
static void print_socket(const struct scenario *sc)
{
    bool train = sc->train.strategy != STRAT_NONE;
    const struct nccl_opts *o = train ? &sc->train.nccl : &sc->bench.nccl;
    enum coll_algo_id algo = train ? sc->train.algo : sc->bench.algo;
    const struct link_class *nic = sc->has_cluster ? sc->cluster.nic : NULL;
    if (nic == NULL || nic->kind != LINK_TCP || nic->stream_Bps <= 0 || algo != COLL_ALGO_NCCL ||
        sc->cluster.nodes < 2 || (!train && sc->bench.kind == BENCH_P2P))
        return;
    int n = nccl_socket_count(o);
    printf("# nccl socket   %d helper thread(s) x %d socket(s) per connection%s "
           "(NCCL_SOCKET_NTHREADS, NCCL_NSOCKS_PERTHREAD), %.2f Gb/s per TCP stream: at most "
           "%.2f Gb/s a connection, %s %.2f Gb/s effective; host-staged (no GPUDirect RDMA)\n",
           nccl_socket_threads(o), nccl_socket_per_thread(o),
           o->socket_nthreads > 0 || o->nsocks_perthread > 0 ? "" : " (NCCL's auto-detect)",
           nic->stream_Bps * 8e-9, fmin(n * nic->stream_Bps, nic->bw_Bps) * 8e-9, nic->name,
           nic->bw_Bps * 8e-9);
}

static void print_config(const struct scenario *sc, const struct platform *pf)
{
    printf("# dmlsim %s\n", DMLSIM_VERSION);
    printf("# scenario      %s (name \"%s\", seed %lu)\n", sc->path, sc->name, sc->seed);
    printf("# platform      %s\n", pf->description);
    printf("# gpus          %zu\n", pf->ngpus);
    printf("# network       %s\n", platform_network_model(sc));
    for (int i = 0; sgcfg_option(i) != NULL; i++) /* --cfg: SimGrid's own, over dmlsim's */
        printf("# simgrid cfg   %s (--cfg)\n", sgcfg_option(i));
    print_socket(sc);
}

/* Options of `run`. */
struct run_opts {
    const char *path;                 /* scenario file */
    struct scenario_override *ov;     /* --set overrides */
    size_t nov;                       /* number of overrides */
    const char *csv, *json, *summary; /* output files, or NULL */
    const char *calib;                /* --calib FILE, or NULL */
    const char *trace;                /* --trace FILE, or NULL */
    const char *junit;                /* --junit FILE, or NULL */
    bool fault_plan;                  /* print the fault plan and stop */
    bool memory_only;                 /* --memory-only: the memory check, no simulation */
    bool timing;                      /* --timing: where the wall-clock time went, on stderr */
    const char **cfg;                 /* --cfg KEY:VALUE options for SimGrid */
    int ncfg;                         /* how many */
};

/* Loads the run's calibration (--calib, else <calib>, else the spec default) and fits its
 * network part from the measured collectives; before simgrid_init (the fit forks simulations). */
static enum dmlsim_err load_calibration(const struct run_opts *o, const struct scenario *sc,
                                        struct calib *cal, struct dmlsim_error *err)
{
    *cal = calib_default();
    char shipped[PATH_MAX];
    const char *cfile =
            o->calib ? datadir_calib(o->calib, shipped, sizeof shipped) : sc->calib_file;
    if (cfile == NULL) return DMLSIM_OK;
    enum dmlsim_err rc = calib_load(cfile, cal, err);
    if (rc == DMLSIM_OK) rc = validate_fit_network(cal, cfile, NULL, NULL, err);
    return rc;
}

/* "# calibration" lines: the profile, and what its collectives change in the network. */
static void print_calibration(const struct calib *cal)
{
    printf("# calibration   %s\n", cal->source);
    for (size_t i = 0; cal->netcal && i < cal->netcal->ncurves; i++) {
        const struct netcal_curve *c = &cal->netcal->curves[i];
        double lo = c->factor[0], hi = c->factor[0];
        for (size_t k = 1; k < c->n; k++)
            lo = fmin(lo, c->factor[k]), hi = fmax(hi, c->factor[k]);
        printf("# network cal   %s on %s %s: %d GPU(s) on %d node(s) measured at %zu sizes "
               "(%.0f..%.0f B); nccl calls dilated x%.3f..x%.3f\n",
               collective_op_name((enum coll_op)c->op), c->multinode ? "several nodes" : "one node",
               c->gpu, c->nranks, c->nodes, c->n, c->size_B[0], c->size_B[c->n - 1], lo, hi);
    }
}

static void release_calibration(struct calib *cal)
{
    if (cal->netcal) netcal_release(cal->netcal);
    free(cal->netcal);
    cal->netcal = NULL;
    calib_release(cal);
}

/* What an output of a training run is written from (outfile_write's ctx). */
struct run_output {
    const struct scenario *sc;    /* the scenario */
    const struct model *m;        /* its model */
    const struct run_record *rec; /* the run */
    const struct provenance *pv;  /* what produced it (the JSON's and the CSV's) */
};

static void write_csv(const void *ctx, FILE *out)
{
    const struct run_output *r = ctx;
    report_csv(r->pv, r->rec, out);
}

static void write_json(const void *ctx, FILE *out)
{
    const struct run_output *r = ctx;
    report_json(r->sc, r->m, r->rec, r->pv, out);
}

static void write_summary(const void *ctx, FILE *out)
{
    report_summary(((const struct run_output *)ctx)->rec, out);
}

static void write_trace(const void *ctx, FILE *out)
{
    const struct run_output *r = ctx;
    report_trace(r->sc, r->rec, out);
}

static void write_junit(const void *ctx, FILE *out)
{
    const struct run_output *r = ctx;
    junit_write(r->sc, r->rec, out);
}

/* The output files of `run`, as one set (outfile.h); r may be NULL when only checking them. */
#define RUN_OUTPUTS 5
static size_t run_outputs(const struct run_opts *o, const struct run_output *r,
                          struct outfile outs[RUN_OUTPUTS])
{
    outs[0] = (struct outfile){"--csv", o->csv, write_csv, r};
    outs[1] = (struct outfile){"--json", o->json, write_json, r};
    outs[2] = (struct outfile){"--summary", o->summary, write_summary, r};
    outs[3] = (struct outfile){"--trace", o->trace, write_trace, r};
    outs[4] = (struct outfile){"--junit", o->junit, write_junit, r};
    return RUN_OUTPUTS;
}

/* The output files of `run` describe a training, and none may be one of the files it reads. */
static enum dmlsim_err check_run_outputs(const struct run_opts *o, const struct scenario *sc,
                                         struct dmlsim_error *err)
{
    bool train = sc->train.strategy != STRAT_NONE, bench = sc->bench.kind != BENCH_NONE;
    if ((o->summary || o->trace || o->junit) && !train)
        return dmlsim_fail(err, DMLSIM_EUSAGE,
                           "%s:0: --summary, --trace and --junit describe training; expected a "
                           "scenario with <training>",
                           o->path);
    if (o->junit) {
        enum dmlsim_err rc = junit_check(sc, err);
        if (rc != DMLSIM_OK) return rc;
    }
    if ((o->csv || o->json) && !train && !bench)
        return dmlsim_fail(err, DMLSIM_EUSAGE,
                           "%s:0: --csv and --json describe a training or a benchmark; expected "
                           "a scenario with <training> or <benchmark>",
                           o->path);
    struct outfile outs[RUN_OUTPUTS];
    const struct outfile_input ins[] = {
            {"scenario file", o->path},
            {"calibration file", o->calib},
            {"calibration file", sc->calib_file},
            {"platform file", sc->has_cluster ? NULL : sc->platform_file},
    };
    size_t n = run_outputs(o, NULL, outs);
    return outfile_check(outs, n, ins, sizeof ins / sizeof ins[0], err);
}

static void print_model(const struct scenario *sc, const struct model *m)
{
    const struct train_spec *ts = &sc->train;
    struct memory_need need = model_memory_placed(m, ts->dtype, ts->opt, ts->batch,
                                                  scen_emb_tables_on_gpu(ts), ts->ps.cache_rows);
    printf("# model         %s: %.0f parameters, %zu layers, %.3f GFLOP forward per sample\n",
           m->name, model_params(m), m->nlayers, model_fwd_flops(m) / 1e9);
    /* per rank: the strategy's lines (sharded embeddings: ar_emb_describe's) */
    if (ts->strategy == STRAT_HYBRID || ts->emb_sharded) return;
    printf("# memory/gpu    %.2f GB = weights %.2f + gradients %.2f + optimizer %.2f + "
           "activations %.2f (batch %d)\n",
           need.total_B / 1e9, need.weights_B / 1e9, need.grads_B / 1e9, need.optimizer_B / 1e9,
           need.act_B / 1e9, ts->batch);
    if (m->ntables > 0) memcheck_print_tables(sc, m, &need);
}

/* The configuration lines of a training run. */
static void print_training(const struct job *j, const struct strategy *st)
{
    print_config(j->sc, j->pf);
    print_model(j->sc, j->m);
    if (j->nm && j->nm->spec->cost_model)
        printf("# numerics      PROXY: an MLP of %zu parameters really trains; every step's cost "
               "is %s's (cost-model)\n",
               j->nm->net.nparams, j->m->name);
    print_calibration(j->cal);
    st->describe(j, stdout);
    if (j->sc->train.data.present) loader_describe(&j->sc->train.data, stdout);
    printf("#\n");
}

/* A benchmark's result and scenario, as the ctx of its output files. */
struct bench_output {
    const struct scenario *sc;
    const void *res; /* struct p2p_result or coll_result */
};

static void write_p2p_csv(const void *ctx, FILE *out)
{
    const struct bench_output *b = ctx;
    report_p2p_csv(b->sc, b->res, out);
}

static void write_p2p_json(const void *ctx, FILE *out)
{
    const struct bench_output *b = ctx;
    report_p2p_json(b->sc, b->res, out);
}

static void write_coll_csv(const void *ctx, FILE *out)
{
    const struct bench_output *b = ctx;
    report_coll_csv(b->sc, b->res, out);
}

static void write_coll_json(const void *ctx, FILE *out)
{
    const struct bench_output *b = ctx;
    report_coll_json(b->sc, b->res, out);
}

/* A benchmark's --csv and --json, as one set (report.h). */
static enum dmlsim_err write_bench_outputs(const struct run_opts *o, const struct scenario *sc,
                                           const void *res, bool p2p, struct dmlsim_error *err)
{
    const struct bench_output b = {sc, res};
    const struct outfile outs[] = {
            {"--csv", o->csv, p2p ? write_p2p_csv : write_coll_csv, &b},
            {"--json", o->json, p2p ? write_p2p_json : write_coll_json, &b},
    };
    return outfile_write(outs, 2, err);
}

/* The p2p benchmark of `run`: checks its hosts before any output, then prints its table and
 * writes its files. */
static enum dmlsim_err run_p2p(const struct run_opts *o, const struct scenario *sc,
                               const struct platform *pf, struct dmlsim_error *err)
{
    struct p2p_result res;
    size_t nsizes;
    enum dmlsim_err rc = bench_check_hosts(sc, err);
    if (rc != DMLSIM_OK) return rc;
    free(bench_sizes(&sc->bench, &nsizes));
    print_config(sc, pf);
    printf("# benchmark     p2p, %zu pair(s), %zu size(s) from %.0f B to %.0f B, factor %g, "
           "timeout %g s\n#\n",
           sc->bench.npairs, nsizes, sc->bench.begin_B, sc->bench.end_B, sc->bench.factor,
           sc->bench.timeout_s);
    bench_p2p_run(sc, &res);
    bench_p2p_print(sc, &res, stdout);
    rc = write_bench_outputs(o, sc, &res, true, err);
    bench_p2p_release(&res);
    return rc;
}

/* The collective benchmark of `run`, with the network calibration of `cal` if it has one. */
static enum dmlsim_err run_collective(const struct run_opts *o, const struct scenario *sc,
                                      const struct platform *pf, const struct calib *cal,
                                      struct dmlsim_error *err)
{
    struct coll_result res;
    int P = sc->bench.gpus > 0 ? sc->bench.gpus : (int)pf->ngpus;
    enum dmlsim_err rc = bench_coll_check(sc, pf, err); /* before any output */
    if (rc != DMLSIM_OK) return rc;
    print_config(sc, pf);
    if (cal->netcal) print_calibration(cal);
    printf("# benchmark     %s, algo %s, %s level, %d rank(s), chunks %d, factor %g, timeout "
           "%g s\n#\n",
           collective_op_name(sc->bench.op), coll_algo_name(sc->bench.algo),
           sc->bench.level == COLL_FLOW ? "flow" : "message", P, sc->bench.chunks, sc->bench.factor,
           sc->bench.timeout_s);
    fflush(stdout);
    bench_coll_run(sc, pf, cal->netcal, &res);
    bench_coll_print(sc, &res, stdout);
    rc = write_bench_outputs(o, sc, &res, false, err);
    bench_coll_release(&res);
    return rc;
}

/* The training of `run`: one check, the configuration, the run, its report and outputs. The
 * status: 0, 3 (an expectation failed) or 4 (the simulated job failed, unless an expectation
 * names job_failed). */
static enum dmlsim_err run_training(const struct run_opts *o, const struct job *j, int *status,
                                    struct dmlsim_error *err)
{
    const struct scenario *sc = j->sc;
    const struct strategy *st = strategy_get(sc->train.strategy);
    enum dmlsim_err rc = st->check(j, err); /* the one validation pass, before any output */
    if (rc != DMLSIM_OK) return rc;
    print_training(j, st);
    fflush(stdout);
    struct run_record rec;
    strategy_run(st, j, &rec);
    progress_end(); /* before the report: stdout and stderr may be one terminal */
    report_text(&rec, stdout);
    warn_print(sc, &rec, stdout, stderr);
    if (sc->nexpects > 0 && expect_check(sc, &rec, stdout) > 0)
        *status = dmlsim_err_status(DMLSIM_EEXPECT);
    struct provenance pv;
    provenance_init(&pv, sc, j->pf);
    struct run_output r = {sc, j->m, &rec, &pv};
    struct outfile outs[RUN_OUTPUTS];
    rc = outfile_write(outs, run_outputs(o, &r, outs), err);
    if (rc == DMLSIM_OK && rec.job_failed) {
        fflush(stdout);
        fprintf(stderr, "%s:%d: the simulated job failed: %s\n", sc->path, sc->train.line,
                rec.failure);
        if (expect_job_error(sc, &rec)) *status = dmlsim_err_status(DMLSIM_EJOB);
    }
    trace_free(rec.trace);
    run_release(&rec);
    return rc;
}

/* --timing: the run's wall clock, and with <numerics> its real training's share (not an output:
 * outputs stay byte-identical from run to run). */
static void print_timing(double wall_s, const struct numerics *nm)
{
    if (nm == NULL) {
        fprintf(stderr, "timing: %.3f s wall (simulation and outputs)\n", wall_s);
        return;
    }
    double num = nm->grad_wall_s + nm->eval_wall_s;
    fprintf(stderr,
            "timing: %.3f s wall = numerics %.3f s (gradients %.3f s, evaluations %.3f s) + "
            "simulation, updates and outputs %.3f s\n",
            wall_s, num, nm->grad_wall_s, nm->eval_wall_s, wall_s - num);
}

/* A training: its model (with <numerics>, the network it really trains, whose data is read
 * first), then the strategy. */
static enum dmlsim_err run_built(const struct run_opts *o, struct scenario *sc,
                                 const struct platform *pf, const struct calib *cal,
                                 const struct fault_plan *plan, int *status,
                                 struct dmlsim_error *err)
{
    struct model m = {0};
    struct numerics nm;
    struct job j = {.sc = sc, .pf = pf, .m = &m, .cal = cal, .plan = plan};
    enum dmlsim_err rc = DMLSIM_OK;
    if (sc->train.numerics.present) {
        rc = numerics_open(sc, job_workers(&j), &nm, err);
        if (rc != DMLSIM_OK) return rc;
        if (sc->train.numerics.cost_model) /* a proxy: the preset's cost, the MLP's learning */
            model_preset(sc->train.numerics.cost_model, NULL, sc->train.dtype, &m);
        else
            numerics_model(&nm, &m);
        j.nm = &nm;
    } else {
        scenario_build_model(sc, &m);
    }
    level_resolve(sc, &m, job_workers(&j), sc->train.level_why, sizeof sc->train.level_why);
    double t0 = numerics_wall_now();
    rc = run_training(o, &j, status, err);
    if (o->timing) print_timing(numerics_wall_now() - t0, j.nm);
    if (j.nm) numerics_close(&nm);
    model_release(&m);
    return rc;
}

/* What a loaded scenario runs: the fault plan, a benchmark or a training. */
static enum dmlsim_err run_loaded(const struct run_opts *o, struct scenario *sc,
                                  const struct calib *cal, int *status, struct dmlsim_error *err)
{
    struct platform *pf = NULL;
    struct fault_plan plan = {0};
    enum dmlsim_err rc = platform_setup(sc, &plan, &pf, err);
    if (rc != DMLSIM_OK) goto out;
    if (o->fault_plan) {
        print_config(sc, pf);
        fault_plan_print(&plan, stdout);
    } else if (sc->bench.kind == BENCH_P2P) {
        rc = run_p2p(o, sc, pf, err);
    } else if (sc->bench.kind == BENCH_COLLECTIVE) {
        rc = run_collective(o, sc, pf, cal, err);
    } else if (sc->train.strategy != STRAT_NONE) {
        rc = run_built(o, sc, pf, cal, &plan, status, err);
    } else {
        print_config(sc, pf);
        printf("# nothing to run: the scenario has no <benchmark> or <training>\n");
    }
out:
    fault_plan_release(&plan);
    platform_free(pf);
    return rc;
}

static int cmd_run(const struct run_opts *o)
{
    struct scenario sc;
    struct dmlsim_error err = {0};
    int status = 0;
    if (scenario_load_with(o->path, o->ov, o->nov, &sc, &err) != DMLSIM_OK) return cli_fail(&err);
    if (o->memory_only) { /* no platform, no SimGrid (memcheck.h) */
        status = memcheck_run(&sc, &err) == DMLSIM_OK ? 0 : cli_fail(&err);
        scenario_release(&sc);
        return status;
    }
    if (expect_validate(&sc, &err) != DMLSIM_OK || check_run_outputs(o, &sc, &err) != DMLSIM_OK) {
        scenario_release(&sc);
        return cli_fail(&err);
    }
    struct calib cal;
    enum dmlsim_err rc = sgcfg_check(o->cfg, o->ncfg, &err);
    if (rc != DMLSIM_OK) {
        scenario_release(&sc);
        return cli_fail(&err);
    }
    rc = load_calibration(o, &sc, &cal, &err);
    if (rc == DMLSIM_OK) {
        sgcfg_init(o->cfg, o->ncfg);
        interrupt_catch(); /* again: simgrid_init set its own SIGINT handler */
        sgguard_install(sc.path, sc.train.line); /* and its own std::terminate handler */
        xbt_log_control_set("root.thres:critical");
        platform_configure(&sc);
        sc.train.trace = o->trace != NULL;
        progress_begin();
        rc = run_loaded(o, &sc, &cal, &status, &err);
        progress_end();
    }
    if (rc != DMLSIM_OK) status = cli_fail(&err);
    release_calibration(&cal);
    scenario_release(&sc);
    return status;
}

/* The options of `run` (cli_args) into o. */
static int parse_run(const struct cli_args *a, struct run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->path = a->args[0];
    o->ov = calloc((size_t)a->nhits + 1, sizeof *o->ov);
    o->cfg = calloc((size_t)a->nhits + 1, sizeof *o->cfg);
    for (int i = 0; i < a->nhits; i++) {
        const struct cli_hit *h = &a->hits[i];
        char *eq = h->key == CLI_SET ? strchr(h->value, '=') : NULL;
        switch (h->key) {
        case CLI_CSV:
            o->csv = h->value;
            break;
        case CLI_JSON:
            o->json = h->value;
            break;
        case CLI_SUMMARY:
            o->summary = h->value;
            break;
        case CLI_CALIB:
            o->calib = h->value;
            break;
        case CLI_TRACE:
            o->trace = h->value;
            break;
        case CLI_JUNIT:
            o->junit = h->value;
            break;
        case CLI_FAULT_PLAN:
            o->fault_plan = true;
            break;
        case CLI_MEMORY_ONLY:
            o->memory_only = true;
            break;
        case CLI_TIMING:
            o->timing = true;
            break;
        case CLI_CFG:
            o->cfg[o->ncfg++] = h->value;
            break;
        case CLI_UNSET:
            o->ov[o->nov++] = (struct scenario_override){h->value, NULL};
            break;
        case CLI_SET:
            if (eq == NULL) return cli_error(a->cmd, "--set expects ELEM.ATTR=VALUE");
            *eq = '\0';
            o->ov[o->nov++] = (struct scenario_override){h->value, eq + 1};
            break;
        default:
            break;
        }
    }
    return 0;
}

int cmd_run_main(const struct cli_args *a)
{
    struct run_opts o;
    int st = parse_run(a, &o);
    if (st == 0) st = cmd_run(&o);
    free(o.ov);
    free(o.cfg);
    return st;
}
