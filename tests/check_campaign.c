/* check_campaign.c - the campaign's discrete-event simulation (sim/core/campaign.h) against
 * closed forms: no failures gives exactly steps x step time plus the checkpoints' blocks;
 * exponential failures restarting in place match Daly's expected completion time within the
 * replications' 95% confidence interval; the interval that maximises the effective training
 * time lies within 10% of Young's and Daly's optimum where their assumptions hold; a fully
 * busy GPU's energy is its power x time; every replication's parts add up to its wall time. */
#include "campaign.h"
#include "campaign_stats.h"

#include <check.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A job of 64 GPUs (8 nodes of 8, dp 8) with one cause of failure that restarts in place. */
static void base_config(struct camp_config *c, struct camp_costs *k)
{
    memset(c, 0, sizeof *c);
    memset(k, 0, sizeof *k);
    c->gpus = 64;
    c->gpus_per_node = 8;
    c->rack_nodes = 2;
    c->dp = 8;
    c->failure_scale = 1;
    c->replications = 1;
    c->seed = 7;
    c->ncauses = 1;
    c->causes[0] = (struct camp_cause){
            .name = "software", .kind = CAMP_CRASH, .scope = CAMP_SCOPE_NONE, .detect_s = 0};
    k->step_s = 10;
    k->busy_power_w = 700;
    k->idle_power_w = 70;
}

START_TEST(test_no_failures_is_exact)
{
    struct camp_config c;
    struct camp_costs k;
    base_config(&c, &k);
    c.target_steps = 1000;
    c.every_steps = 30;
    k.ckpt_block_s = 4;
    struct camp_rep r;
    campaign_run_one(&c, &k, 0, &r);
    /* checkpoints after steps 30, 60, ..., 990: floor((1000 - 1) / 30) = 33 of them; none after
       the last step (the job ends there) */
    double want = 1000 * 10.0 + 33 * 4.0;
    ck_assert_msg(fabs(r.wall_s - want) <= 1e-9 * want, "wall %.12g, want %.12g", r.wall_s, want);
    ck_assert_int_eq(r.steps, 1000);
    ck_assert_int_eq(r.checkpoints, 33);
    ck_assert(fabs(r.productive_s - 10000) <= 1e-9 * 10000);
    ck_assert(r.reached);
    ck_assert(campaign_rep_is_sane(&c, &r));
    /* a fully busy GPU draws its busy power the whole time: energy = P x GPUs x busy time */
    c.every_steps = 0;
    campaign_run_one(&c, &k, 0, &r);
    ck_assert(fabs(campaign_energy_j(&r, &k) - 700.0 * 64 * 10000) <= 1e-9 * 700 * 64 * 10000);
    ck_assert(fabs(campaign_ettr(&r) - 1) < 1e-12);
}
END_TEST

/* Daly (FGCS 22(3), 2006, eq. 9): with exponential failures of mean M, a restart R that a
 * failure can interrupt, work segments of tau each followed by a checkpoint delta, a segment
 * takes M e^(R/M) (e^((tau + delta)/M) - 1) on average. Our job writes no checkpoint after its
 * last segment, so that one takes M e^(R/M) (e^(tau/M) - 1). */
START_TEST(test_daly_expected_time)
{
    struct camp_config c;
    struct camp_costs k;
    base_config(&c, &k);
    double M = 3600, tau = 600, delta = 30,
           R = 1200;                              /* a long restart: failures during it matter */
    c.causes[0].per_gpu_hour = 3600 / M / c.gpus; /* the job's rate 1/M */
    c.target_steps = 6000;                        /* T_s = 60,000 s: 100 segments */
    c.every_steps = 60;                           /* tau = 60 steps x 10 s */
    k.ckpt_block_s = delta;
    k.restart_s = 900;
    k.reload_s = 300; /* R = restart + reload, detection 0 */
    int n = 400;
    double *w = malloc(sizeof *w * (size_t)n);
    for (int i = 0; i < n; i++) {
        struct camp_rep r;
        campaign_run_one(&c, &k, i, &r);
        ck_assert(r.reached && campaign_rep_is_sane(&c, &r));
        w[i] = r.wall_s;
    }
    struct camp_stat st;
    campaign_stat(w, n, &st);
    double seg = M * exp(R / M) * (exp((tau + delta) / M) - 1);
    double last = M * exp(R / M) * (exp(tau / M) - 1);
    double want = 99 * seg + last;
    ck_assert_msg(st.ci_lo <= want && want <= st.ci_hi, "mean %.1f [%.1f, %.1f], Daly %.1f",
                  st.mean, st.ci_lo, st.ci_hi, want);
    free(w);
}
END_TEST

/* Young (CACM 17(9), 1974): tau = sqrt(2 delta M); Daly's higher order: sqrt(2 delta M) (1 +
 * sqrt(delta / 2M) / 3 + delta / 18M) - delta. Both assume delta << M and exponential failures.
 * The interval of the highest mean ETTR over a grid of intervals (the same failures for every
 * interval: common random numbers) must lie within 10% of them. */
START_TEST(test_young_daly_optimum)
{
    struct camp_config c;
    struct camp_costs k;
    base_config(&c, &k);
    double M = 7200, delta = 10;
    k.step_s = 1;
    c.causes[0].per_gpu_hour = 3600 / M / c.gpus;
    c.duration_s = 20 * 86400.0;
    k.ckpt_block_s = delta;
    k.restart_s = 60;
    double best = 0, best_tau = 0;
    for (int tau = 250; tau <= 550; tau += 10) {
        c.every_steps = tau;
        double sum = 0;
        for (int i = 0; i < 60; i++) {
            struct camp_rep r;
            campaign_run_one(&c, &k, i, &r);
            sum += campaign_ettr(&r);
        }
        if (sum > best) best = sum, best_tau = tau;
    }
    double young = sqrt(2 * delta * M);
    double daly = young * (1 + sqrt(delta / (2 * M)) / 3 + delta / (18 * M)) - delta;
    ck_assert_msg(fabs(best_tau - young) <= 0.1 * young && fabs(best_tau - daly) <= 0.1 * daly,
                  "best %g, Young %.1f, Daly %.1f", best_tau, young, daly);
}
END_TEST

/* A Llama-3-like mix with spares, racks, hangs, slow GPUs and planned stops: every replication's
 * parts add up to its wall time and it ends; with no spares and policy wait a rack failure whose
 * repair never ends stops the job for good (it ends at the duration, not reached). */
START_TEST(test_mix_accounts)
{
    struct camp_config c;
    struct camp_costs k;
    base_config(&c, &k);
    c.ncauses = 4;
    c.causes[0] = (struct camp_cause){.name = "gpu",
                                      .per_gpu_hour = 1e-3,
                                      .kind = CAMP_CRASH,
                                      .scope = CAMP_SCOPE_GPU,
                                      .detect_s = 60,
                                      .repair_s = 7200};
    c.causes[1] = (struct camp_cause){.name = "switch",
                                      .per_gpu_hour = 2e-4,
                                      .kind = CAMP_HANG,
                                      .scope = CAMP_SCOPE_RACK,
                                      .detect_s = -1,
                                      .repair_s = 3600};
    c.causes[2] = (struct camp_cause){.name = "slow",
                                      .per_gpu_hour = 5e-4,
                                      .kind = CAMP_SLOW,
                                      .scope = CAMP_SCOPE_NODE,
                                      .detect_s = 600,
                                      .repair_s = 600,
                                      .slow_factor = 2,
                                      .slow_s = 3600};
    c.causes[3] = (struct camp_cause){.name = "planned",
                                      .per_gpu_hour = 1e-4,
                                      .kind = CAMP_PLANNED,
                                      .scope = CAMP_SCOPE_NODE,
                                      .repair_s = 1800};
    k.slow_step_s[2] = 15;
    k.watchdog_s = 600;
    k.ckpt_block_s = 5;
    k.ckpt_commit_s = 40;
    k.restart_s = 60;
    k.reload_s = 20;
    k.nshrunk = 2;
    k.shrunk_dp[0] = 4, k.shrunk_step_s[0] = 19;
    k.shrunk_dp[1] = 2, k.shrunk_step_s[1] = 37;
    c.target_steps = 20000;
    c.every_steps = 50;
    long met = 0;
    for (int pol = 0; pol < 2; pol++)
        for (int sp = 0; sp <= 2; sp += 2)
            for (int i = 0; i < 20; i++) {
                c.policy = pol ? CAMP_SHRINK : CAMP_WAIT;
                c.spares = sp;
                struct camp_rep r;
                campaign_run_one(&c, &k, i, &r);
                ck_assert_msg(campaign_rep_is_sane(&c, &r), "policy %d spares %d rep %d", pol, sp,
                              i);
                ck_assert(r.reached);
                met += r.failures[0] + r.failures[1] + r.failures[2] + r.failures[3];
                ck_assert(r.steps == 20000);
                if (pol == 0) ck_assert(r.shrunk_s == 0);
            }
    ck_assert(met > 100); /* (1e-3 + 2e-4 + 5e-4 + 1e-4) x 64 = 0.115 an hour, over 80 runs of
                             about 60 h: about 550 */
    c.duration_s = 30 * 86400.0;
    c.policy = CAMP_WAIT;
    c.spares = 0;
    c.causes[1].repair_s = 1e12;     /* never back */
    c.causes[1].per_gpu_hour = 1e-3; /* one about every 16 h */
    struct camp_rep r;
    campaign_run_one(&c, &k, 0, &r);
    ck_assert(!r.reached && r.wall_s <= 30 * 86400.0 && campaign_rep_is_sane(&c, &r));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("campaign");
    TCase *tc = tcase_create("campaign");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_no_failures_is_exact);
    tcase_add_test(tc, test_daly_expected_time);
    tcase_add_test(tc, test_young_daly_optimum);
    tcase_add_test(tc, test_mix_accounts);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
