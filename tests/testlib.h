/* testlib.h - helpers shared by the Check tests: a scenario built in memory, SimGrid set up inside
 * the forked test process, and a main() that runs one suite. */
#ifndef DMLSIM_TESTLIB_H
#define DMLSIM_TESTLIB_H

#include "bench.h"
#include "catalog.h"
#include "platform.h"
#include "collective.h"
#include "route.h"
#include "scenario.h"
#include "strategy.h"

#include <check.h>
#include <simgrid/engine.h>
#include <xbt/log.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The hybrid strategy's training as its checks run it (check_hybrid, check_hycp, check_hy_dpov):
 * 2 steps of microbatches of b under p (its line 1, its ep and virtual stages at least 1), ring
 * collectives at message level, bf16 and Adam, a 1 h watchdog. */
static inline struct train_spec test_hybrid_train(struct parallel_spec p, int b)
{
    p.line = 1;
    p.ep = p.ep > 1 ? p.ep : 1;
    p.vstages = p.vstages > 1 ? p.vstages : 1;
    return (struct train_spec){.strategy = STRAT_HYBRID,
                               .algo = COLL_ALGO_RING,
                               .level = COLL_MESSAGE,
                               .batch = b,
                               .steps = 2,
                               .dtype = DTYPE_BF16,
                               .opt = OPT_ADAM,
                               .timeout_s = 3600,
                               .chunks = 1,
                               .par = p,
                               .line = 1};
}

/* A generated cluster with the given classes (nic may be NULL for one node). */
static inline struct scenario test_cluster(int nodes, int gpus, const char *gpu, const char *intra,
                                           const char *nic, int nics)
{
    struct scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.path = strdup("test.xml");
    sc.name = strdup("test");
    sc.seed = 1;
    sc.net_model = NET_CM02;
    sc.has_cluster = true;
    struct cluster_spec *c = &sc.cluster;
    c->nodes = nodes;
    c->gpus_per_node = gpus;
    c->gpu = catalog_gpu(gpu);
    c->intra = catalog_link(intra);
    c->pcie = c->intra->kind == LINK_PCIE ? c->intra : catalog_link(c->gpu->pcie);
    c->nic = nic ? catalog_link(nic) : NULL;
    c->nics_per_node = nics;
    c->topology = TOPO_STAR;
    c->nodes_per_leaf = nodes;
    c->spines = 1;
    c->oversubscription = 1;
    ck_assert(scenario_is_sane(&sc));
    return sc;
}

/* Fails unless |got - want| <= rel * want; `what` names the quantity in the message. */
static inline void test_assert_rel(double got, double want, double rel, const char *what)
{
    ck_assert_msg(fabs(got - want) <= rel * want, "%s: simulated %.9g, closed form %.9g", what, got,
                  want);
}

/* The fault plan of the platform test_load loaded (one per forked test). */
static struct fault_plan test_plan;

/* simgrid_init + quiet logs + our network configuration + load. Call once per forked test. */
static inline struct platform *test_load(const struct scenario *sc)
{
    int argc = 1;
    char *argv[] = {"test", NULL};
    simgrid_init(&argc, argv);
    xbt_log_control_set("root.thres:critical");
    platform_configure(sc);
    struct platform *pf = NULL;
    struct dmlsim_error err = {0};
    ck_assert_msg(platform_setup(sc, &test_plan, &pf, &err) == DMLSIM_OK, "%s", err.msg);
    return pf;
}

/* Runs the one-size collective benchmark set up in sc->bench (sizes, timeouts filled here) on
 * a freshly loaded platform; returns its time and, if asked, the messages sent. */
static inline double test_coll_time(struct scenario *sc, double size_B, double *messages)
{
    sc->bench.kind = BENCH_COLLECTIVE;
    sc->bench.begin_B = sc->bench.end_B = size_B;
    sc->bench.factor = 2;
    sc->bench.timeout_s = 3600;
    struct platform *pf = test_load(sc);
    struct coll_result res;
    struct dmlsim_error err = {0};
    ck_assert_msg(bench_coll_check(sc, pf, &err) == DMLSIM_OK, "%s", err.msg);
    bench_coll_run(sc, pf, NULL, &res);
    ck_assert_uint_eq(res.nrows, 1);
    ck_assert_int_eq(res.rows[0].status, NET_OK);
    double t = res.rows[0].time_s;
    if (messages) *messages = res.messages;
    bench_coll_release(&res);
    platform_free(pf);
    return t;
}

/* Runs the scenario's training on a loaded platform through the strategy table (the check must
 * pass) into rec (run_release). */
static inline void test_train(const struct scenario *sc, const struct platform *pf,
                              const struct model *m, const struct calib *cal,
                              struct run_record *rec)
{
    struct job j = {.sc = sc, .pf = pf, .m = m, .cal = cal, .plan = &test_plan};
    const struct strategy *st = strategy_get(sc->train.strategy);
    struct dmlsim_error err = {0};
    ck_assert_msg(st->check(&j, &err) == DMLSIM_OK, "%s", err.msg);
    strategy_run(st, &j, rec);
}

/* The check of the scenario's strategy. */
static inline enum dmlsim_err test_check(const struct scenario *sc, const struct platform *pf,
                                         const struct model *m, struct dmlsim_error *err)
{
    struct job j = {.sc = sc, .pf = pf, .m = m, .plan = &test_plan};
    return strategy_get(sc->train.strategy)->check(&j, err);
}

/* Step row s (0-based) of a run's events log. */
static inline const struct run_event *test_step(const struct run_record *r, int s)
{
    for (size_t i = 0; i < r->nev; i++)
        if (r->ev[i].kind == RUN_STEP && s-- == 0) return &r->ev[i];
    ck_abort_msg("no step row %d", s);
    return NULL;
}

static inline int test_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Runs run(arg, out) in a child process (SimGrid initialises once per process) and copies its
 * n bytes of out back; the child must succeed. */
static inline void test_in_child(void (*run)(const void *arg, void *out), const void *arg,
                                 void *out, size_t n)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        run(arg, out);
        _exit(write(fd[1], out, n) == (ssize_t)n ? 0 : 1);
    }
    close(fd[1]);
    ck_assert_int_eq(read(fd[0], out, n), (ssize_t)n);
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

#endif
