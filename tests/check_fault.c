/* check_fault.c - the fault plan: materialisation, ordering, determinism, and the random
 * processes against their distributions' means. */
#include "fault.h"
#include "progress.h"
#include "sgguard.h"
#include "testlib.h"

#include <simgrid/actor.h>
#include <simgrid/host.h>

#include <math.h>

static char *names_buf[1000];

static char **gpu_names(int n)
{
    for (int i = 0; i < n; i++) {
        free(names_buf[i]);
        names_buf[i] = malloc(32);
        snprintf(names_buf[i], 32, "node%d.gpu0", i);
    }
    return names_buf;
}

static struct scenario with_fault(struct fault_spec f)
{
    struct scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.path = strdup("test.xml");
    sc.seed = 42;
    sc.train.steps = 100;
    sc.nfaults = 1;
    sc.faults = calloc(1, sizeof *sc.faults);
    sc.faults[0] = f;
    return sc;
}

START_TEST(test_crash_and_restart)
{
    struct fault_spec f = {.kind = FS_CRASH,
                           .host = strdup("node1"),
                           .at_s = 2,
                           .step = -1,
                           .restart_s = 3,
                           .line = 7};
    struct scenario sc = with_fault(f);
    char *hosts[] = {"node0.gpu0", "node1.gpu0", "node1.gpu1", "node1.cpu", "node10.gpu0"};
    struct fault_plan plan;
    struct dmlsim_error err = {0};
    ck_assert_int_eq(fault_plan_build(&sc, &(struct fault_names){gpu_names(2), 2, hosts, 5, NULL, 0}, &plan, &err),
                     DMLSIM_OK);
    /* "node1" names its three hosts, not node10: 3 crashes at 2 s, 3 restarts at 5 s */
    ck_assert_uint_eq(plan.n, 6);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(plan.ev[i].kind, FAULT_CRASH);
        ck_assert_double_eq(plan.ev[i].t_s, 2);
        ck_assert_int_eq(plan.ev[3 + i].kind, FAULT_RESTART);
        ck_assert_double_eq(plan.ev[3 + i].t_s, 5);
    }
    fault_plan_release(&plan);
    free(sc.faults[0].host);
    sc.faults[0].host = strdup("node7");
    ck_assert_int_eq(fault_plan_build(&sc, &(struct fault_names){gpu_names(2), 2, hosts, 5, NULL, 0}, &plan, &err),
                     DMLSIM_EVALUE);
    ck_assert_msg(strstr(err.msg, "test.xml:7: no host named \"node7\""), "%s", err.msg);
    scenario_release(&sc);
}
END_TEST

/* The pipeline's faults in the plan (issue 30: one route for every kind), from a scenario's XML:
 * a corrupt shard is a standing fault, its event at time 0 (target "shard K"); a cache crash at
 * `at` on the node's CPU host carries its down time as its restart delay, and a cache-restart
 * follows at at + restart-after (none when absent: back at once). Closed form from the XML below:
 *   t = 0    corrupt-shard shard 7 (line 10), corrupt-shard shard 3 (line 13), in XML order
 *   t = 1    cache-crash node0.cpu (line 12), down 0 s, no restart event
 *   t = 2    cache-crash node1.cpu (line 11), down 0.1 s
 *   t = 2.1  cache-restart node1.cpu (line 11)
 * Shards of 48 samples: shard 3 is samples 144-191, shard 7 336-383. */
static const char pipeline_xml[] =
        "<?xml version=\"1.0\"?>\n"
        "<scenario name=\"pipeline-faults\" seed=\"1\">\n"
        "  <cluster nodes=\"2\" gpus-per-node=\"1\" gpu=\"h100\" nic=\"ib-ndr\"/>\n"
        "  <model preset=\"resnet50\"/>\n"
        "  <training strategy=\"allreduce\" algo=\"ring\" batch-per-gpu=\"64\" steps=\"40\">\n"
        "    <data preset=\"imagenet\" samples=\"1280\" format=\"webdataset\" "
        "shard-samples=\"48\"\n"
        "          source=\"remote\" cache=\"memory\" cache-capacity=\"1GiB\"/>\n"
        "  </training>\n"
        "  <faults>\n"
        "    <corrupt-shard shard=\"7\"/>\n"
        "    <cache-crash node=\"node1\" at=\"2s\" restart-after=\"100ms\"/>\n"
        "    <cache-crash node=\"node0\" at=\"1s\"/>\n"
        "    <corrupt-shard shard=\"3\"/>\n"
        "  </faults>\n"
        "</scenario>\n";

static void load_pipeline(struct scenario *sc)
{
    char path[] = "/tmp/check_fault_XXXXXX.xml";
    int fd = mkstemps(path, 4);
    ck_assert(fd >= 0 && write(fd, pipeline_xml, sizeof pipeline_xml - 1) > 0);
    close(fd);
    struct dmlsim_error err = {0};
    enum dmlsim_err rc = scenario_load(path, sc, &err);
    unlink(path);
    ck_assert_msg(rc == DMLSIM_OK, "%s", err.msg);
}

START_TEST(test_pipeline_faults_in_the_plan)
{
    struct scenario sc;
    load_pipeline(&sc);
    char *hosts[] = {"node0.gpu0", "node0.cpu", "node1.gpu0", "node1.cpu"};
    struct fault_names nm = {gpu_names(2), 2, hosts, 4, NULL, 0};
    struct fault_plan plan;
    struct dmlsim_error err = {0};
    ck_assert_int_eq(fault_plan_build(&sc, &nm, &plan, &err), DMLSIM_OK);
    static const struct {
        enum fault_kind kind;
        double t_s, restart_s;
        const char *target;
        long long shard;
        int line;
    } want[] = {{FAULT_SHARD_CORRUPT, 0, -1, "shard 7", 7, 10},
                {FAULT_SHARD_CORRUPT, 0, -1, "shard 3", 3, 13},
                {FAULT_CACHE_CRASH, 1, 0, "node0.cpu", -1, 12},
                {FAULT_CACHE_CRASH, 2, 0.1, "node1.cpu", -1, 11},
                {FAULT_CACHE_RESTART, 2 + 0.1, -1, "node1.cpu", -1, 11}};
    ck_assert_uint_eq(plan.n, 5);
    for (size_t i = 0; i < 5; i++) {
        const struct fault_event *e = &plan.ev[i];
        ck_assert_msg(e->kind == want[i].kind, "event %zu: %s", i, fault_kind_name(e->kind));
        ck_assert_double_eq_tol(e->t_s, want[i].t_s, 1e-12);
        ck_assert_double_eq_tol(e->restart_s, want[i].restart_s, 1e-12);
        ck_assert_str_eq(e->target, want[i].target);
        ck_assert_int_eq(e->shard, want[i].shard);
        ck_assert_int_eq(e->step, -1);
        ck_assert_int_eq(e->line, want[i].line);
    }
    static const long long edges[][2] = {{143, 0}, {144, 1}, {191, 1}, {192, 0},
                                         {335, 0}, {336, 1}, {383, 1}, {384, 0}};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        ck_assert_msg(fault_sample_corrupt(&plan, 48, edges[i][0]) == edges[i][1], "sample %lld",
                      edges[i][0]);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    fault_plan_print(&plan, f);
    fclose(f);
    ck_assert_msg(strstr(out, ": 5 event(s)") && strstr(out, "cache-restart node1.cpu"), "%s", out);
    free(out);
    fault_plan_release(&plan);
    /* a node without a CPU host has no cache tier */
    nm.nhosts = 3;
    ck_assert_int_eq(fault_plan_build(&sc, &nm, &plan, &err), DMLSIM_EVALUE);
    ck_assert_msg(strstr(err.msg, ":11: no node with a CPU host named \"node1\""), "%s", err.msg);
    scenario_release(&sc);
}
END_TEST

static double mean_gap(bool weibull, double shape, unsigned long seed)
{
    /* 1000 GPUs, MTBF 1 h, no repair time, horizon 100 h: the failures per GPU average
     * horizon / mean time between failures (renewal theorem), i.e. 100 for any distribution
     * with mean 1 h. */
    struct fault_spec f = {.kind = FS_MTBF,
                           .weibull = weibull,
                           .shape = shape,
                           .mtbf_s = 3600,
                           .restart_s = 0,
                           .until_s = 100 * 3600.0,
                           .step = -1};
    struct scenario sc = with_fault(f);
    sc.seed = seed;
    struct fault_plan plan;
    struct dmlsim_error err = {0};
    ck_assert_int_eq(
            fault_plan_build(&sc, &(struct fault_names){gpu_names(1000), 1000, names_buf, 1000, NULL, 0}, &plan,
                             &err),
            DMLSIM_OK);
    double crashes = 0;
    for (size_t i = 0; i < plan.n; i++)
        crashes += plan.ev[i].kind == FAULT_CRASH;
    for (size_t i = 1; i < plan.n; i++) /* sorted by time */
        ck_assert(plan.ev[i].t_s >= plan.ev[i - 1].t_s);
    fault_plan_release(&plan);
    scenario_release(&sc);
    return crashes / 1000;
}

START_TEST(test_mtbf_means)
{
    /* 100,000 draws: the sample mean is within 2% of the expectation (its relative standard
     * error is about 1 / sqrt(100,000) = 0.3% for the exponential) */
    double exp_rate = mean_gap(false, 1, 1);
    ck_assert_msg(fabs(exp_rate - 100) < 2, "exponential: %g failures per GPU", exp_rate);
    double wb = mean_gap(true, 0.7, 1); /* Weibull shape 0.7, scale chosen for a 1 h mean */
    ck_assert_msg(fabs(wb - 100) < 3, "weibull: %g failures per GPU", wb);
    /* the same seed gives the same plan; another seed another */
    ck_assert_double_eq(mean_gap(false, 1, 1), exp_rate);
    ck_assert_double_ne(mean_gap(false, 1, 2), exp_rate);
}
END_TEST

START_TEST(test_jitter)
{
    struct fault_plan plan = {.jitter_sigma = 0.3, .seed = 9};
    double sum = 0;
    for (int r = 0; r < 100; r++)
        for (int s = 0; s < 100; s++) {
            double f = fault_jitter(&plan, r, s);
            ck_assert(f >= 1);
            ck_assert_double_eq(f, fault_jitter(&plan, r, s)); /* reproducible */
            sum += f;
        }
    /* E[max(1, X)] for X lognormal(0, 0.3) = 0.5 + E[X; X > 1] = 0.5 + e^(s^2/2) Phi(s)
     * = 0.5 + 1.046 x 0.618 = 1.1465 */
    double want = 0.5 + exp(0.045) * 0.617911;
    ck_assert_msg(fabs(sum / 10000 - want) < 0.01, "mean jitter %g, expected %g", sum / 10000,
                  want);
}
END_TEST

/* The simulation's watchdog (progress.h, issue 28): an actor progresses at t = 0, 1, 2, 3, 4 s
 * (progress_s), then sleeps 1 s at a time for ever. With a limit of 10 s the watchdog stops the
 * run at the last progress + 10 = 14 s, or, with the plan's last fault at 20 s, at 20 + 10 =
 * 30 s; the job fails naming the actor still waiting. */
static void spinner(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct run_record *r = sg_actor_self_get_data();
    for (int i = 0; i < 1000000; i++) {
        if (i < 5) r->progress_s = simgrid_get_clock();
        sg_actor_sleep_for(1);
    }
}

static void watchdog_case(double quiet_s, double want_end_s)
{
    struct scenario sc = test_cluster(1, 1, "h100", "nvlink4", NULL, 1);
    struct platform *pf = test_load(&sc);
    struct run_record r;
    run_init(&r, STRAT_ALLREDUCE, 1, 16, 10);
    sg_actor_t a = sg_actor_init("spinner", pf->gpus[0]);
    sg_actor_set_data(a, &r);
    sg_actor_start(a, spinner, 0, NULL);
    progress_watch(&r, pf->gpus[0], 10, quiet_s);
    simgrid_run();
    ck_assert(progress_stalled());
    ck_assert_double_eq_tol(simgrid_get_clock(), want_end_s, 1e-9);
    ck_assert(r.job_failed);
    ck_assert_msg(strstr(r.failure, "no progress for 10 s") && strstr(r.failure, "spinner@"),
                  "%s", r.failure);
    run_release(&r);
    platform_free(pf);
    scenario_release(&sc);
}

START_TEST(test_watchdog_stops_a_stalled_run)
{
    watchdog_case(0, 14);
}
END_TEST

START_TEST(test_watchdog_waits_for_the_plan)
{
    watchdog_case(20, 30);
}
END_TEST

/* A SimGrid exception that escapes an actor (here HostFailureException: an actor started on a
 * host that is off) ends the process with exit 4, the status of a failed job (sgguard.h), not
 * SimGrid's abort (134) and backtrace. */
static void idle(int argc, char **argv)
{
    (void)argc;
    (void)argv;
}

static void starter(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    sg_host_t off = sg_actor_self_get_data();
    sg_host_turn_off(off);
    sg_actor_create("on-a-host-that-is-off", off, idle, 0, NULL);
}

START_TEST(test_escaped_exception_is_exit_4)
{
    struct scenario sc = test_cluster(1, 2, "h100", "nvlink4", NULL, 1);
    struct platform *pf = test_load(&sc);
    sgguard_install("test.xml", 7);
    sg_actor_t a = sg_actor_init("starter", pf->gpus[0]);
    sg_actor_set_data(a, pf->gpus[1]);
    sg_actor_start(a, starter, 0, NULL);
    simgrid_run();
}
END_TEST

static Suite *fault_suite(void)
{
    Suite *s = suite_create("fault");
    TCase *tc = tcase_create("plan");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_crash_and_restart);
    tcase_add_test(tc, test_pipeline_faults_in_the_plan);
    tcase_add_test(tc, test_mtbf_means);
    tcase_add_test(tc, test_jitter);
    tcase_add_test(tc, test_watchdog_stops_a_stalled_run);
    tcase_add_test(tc, test_watchdog_waits_for_the_plan);
    tcase_add_exit_test(tc, test_escaped_exception_is_exit_4, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(fault_suite());
}
