/* check_report.c - the metric table drives the outputs: every line of the text summary is made
 * of table rows (so every metric the text shows is one <expect> and the JSON know), every row
 * the text should show for a strategy is there with its value, and every row is in the JSON. */
#include "testlib.h"

#include "allreduce_metrics.h"
#include "metrics.h"
#include "ps_metrics.h"
#include "strategy.h"
#include "report.h"

#include <stdio.h>

/* open_memstream keeps the address of render's buffer pointer until fclose; GCC 12 cannot see
 * that fclose comes first */
#pragma GCC diagnostic ignored "-Wdangling-pointer"

/* A record whose figures are all different, so a line can only match its own values. */
static void fill(struct run_record *r, bool ps)
{
    static struct ps_record no_ps;               /* the other strategy's part: scratch */
    static struct allreduce_record no_allreduce;
    run_init(r, ps ? STRAT_PS : STRAT_ALLREDUCE, 4, 16, 10);
    struct ps_record *p = ps ? ps_metrics_attach(r) : &no_ps;
    struct allreduce_record *a = ps ? &no_allreduce : allreduce_metrics_attach(r);
    p->coordinator = ps;
    double *fields[] = {&r->global_batch, &r->total_s, &a->nbuckets, &r->grad_B, &r->messages,
                        &r->bytes, &r->failures, &p->imbalance, &p->spread_max, &p->spread_frac,
                        &p->coordinator_msgs, &p->coordinator_global, &p->coordinator_spread,
                        &p->lost_updates, &r->computed, &r->applied, &r->dropped_stale,
                        &r->dropped_late, &r->lost_gradients, &r->read_samples,
                        &r->consumed_samples, &r->skipped_samples, &r->dropped_samples,
                        &r->replayed_samples, &r->steps_completed, &r->membership_changes,
                        &r->failures_detected, &r->final_workers, &r->removed_stragglers,
                        &r->lost_steps, &r->checkpoints, &r->ckpt_B, &r->ckpt_overhead_s,
                        &r->max_detect_s, &r->max_recover_s, &r->steps, &r->throughput,
                        &r->goodput, &r->mean_step_s, &r->compute1_s, &r->efficiency,
                        &r->idle_frac, &r->exposed_s, &r->compute_flops_s,
                        &r->compute_peak_frac};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        *fields[i] = 101 + 7 * (double)i + 0.25;
    if (ps) {
        p->nshards = 1;
        p->shards = calloc(1, sizeof *p->shards);
        snprintf(p->shards[0].host, sizeof p->shards[0].host, "ps0.cpu");
    }
}

static char *render(void (*fn)(const struct run_record *, FILE *), const struct run_record *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(r, f);
    fclose(f);
    return buf;
}

/* Does the summary line (after "#   ") start with a label of the table, or of a list? */
static bool is_label(const char *line, unsigned bit)
{
    static const char *const lists[] = {"bytes on", "staleness", "elastic", "input stages",
                                        "input resources"};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (strncmp(line, lists[i], strlen(lists[i])) == 0) return true;
    for (size_t i = 0; i < metrics_count(); i++) {
        const struct metric *m = metrics_at(i);
        size_t n = m->label ? strlen(m->label) : 0;
        if (m->label && (m->text_for & bit) && strncmp(m->label, line, n) == 0 && line[n] == ' ')
            return true;
    }
    return false;
}

static void check_text(bool ps)
{
    struct run_record r;
    fill(&r, ps);
    unsigned bit = ps ? METRIC_PS : METRIC_ALLREDUCE;
    char *text = render(report_text, &r);
    /* every row the strategy shows is in its line, with its value */
    char line[1024] = "";
    const char *label = NULL;
    for (size_t i = 0; i <= metrics_count(); i++) {
        const struct metric *m = metrics_at(i);
        if (m != NULL && (!(m->text_for & bit) || (m->shown && !m->shown(&r)))) continue;
        if (label != NULL && (m == NULL || m->label != NULL)) { /* a label starts a line */
            ck_assert_msg(strstr(text, line) != NULL, "missing line '%s' in:\n%s", line, text);
            label = NULL;
        }
        if (m == NULL) break;
        if (label == NULL) snprintf(line, sizeof line, "#   %-16s ", label = m->label);
        size_t n = strlen(line);
        double v = m->get(&r);
        if (m->yes)
            snprintf(line + n, sizeof line - n, "%s", v != 0 ? m->yes : m->no);
        else
            snprintf(line + n, sizeof line - n, m->text, v * m->scale);
    }
    /* every line of the summary is one of the table's labels (or a list) */
    const char *s = strstr(text, "# summary\n");
    ck_assert(s != NULL);
    for (s = strchr(s, '\n') + 1; strncmp(s, "#   ", 4) == 0; s = strchr(s, '\n') + 1) {
        ck_assert_msg(is_label(s + 4, bit), "summary line with no metric: %.60s", s);
    }
    free(text);
    run_release(&r);
}

START_TEST(test_text_is_the_table)
{
    check_text(false);
    check_text(true);
}
END_TEST

static void json_of(const struct run_record *r, FILE *f)
{
    struct scenario sc = test_cluster(1, 4, "h100", "nvlink4", NULL, 1);
    struct model m;
    model_init(&m, "toy");
    struct provenance pv = {.version = "test", .scenario = "toy.xml", .scenario_sha256 = "",
                            .gpu = "h100", .gpu_long = "H100", .platform = "toy"};
    report_json(&sc, &m, r, &pv, f);
    model_release(&m);
    scenario_release(&sc);
}

START_TEST(test_json_and_expect_have_every_metric)
{
    struct run_record r;
    fill(&r, true);
    char *json = render(json_of, &r);
    for (size_t i = 0; i < metrics_count(); i++) {
        const struct metric *m = metrics_at(i);
        char key[96];
        if (isinf(m->get(&r))) /* JSON has no infinity: null */
            snprintf(key, sizeof key, "\n    \"%s\": null", m->name);
        else
            snprintf(key, sizeof key, "\n    \"%s\": %.9g", m->name, m->get(&r));
        ck_assert_msg(strstr(json, key) != NULL, "JSON lacks %s", key + 1);
        ck_assert_ptr_eq(metrics_find(m->name), m); /* <expect> knows it, and only once */
    }
    free(json);
    run_release(&r);
}
END_TEST

START_TEST(test_summary_columns)
{
    /* the sweep summary's columns, in the order the plots read them (plots/ps-vs-ring.gp) */
    struct run_record r;
    fill(&r, false);
    char *sum = render(report_summary, &r);
    ck_assert_msg(strncmp(sum, "    gpus    batch      step_ms    samples/s        eff   exposed_ms",
                          66) == 0,
                  "%s", sum);
    free(sum);
    run_release(&r);
}
END_TEST

/* The job's verdict (issue 28): completed only if every requested step (steps_planned = 10 here)
 * was committed and at least one gradient applied; a strategy's own reason is kept. */
START_TEST(test_verdict)
{
    struct run_record r;
    run_init(&r, STRAT_PS, 4, 16, 10);
    r.steps_completed = 10, r.applied = 1, r.final_workers = 4;
    run_verdict(&r);
    ck_assert(!r.job_failed); /* 10 of 10 committed, one gradient applied */
    r.steps_completed = 9; /* one step short: 9 < 10 */
    run_verdict(&r);
    ck_assert(r.job_failed);
    ck_assert_msg(strstr(r.failure, "9 of 10 steps committed") != NULL, "%s", r.failure);
    r.job_failed = false, r.steps_completed = 10, r.applied = 0, r.computed = 20,
    r.dropped_late = 20; /* every step committed, but empty: 20 computed = 20 dropped late */
    run_verdict(&r);
    ck_assert(r.job_failed);
    ck_assert_msg(strstr(r.failure, "no gradient reached the model: 20 computed") != NULL, "%s",
                  r.failure);
    snprintf(r.failure, sizeof r.failure, "a strategy's own reason");
    r.steps_completed = 0; /* already failed: the strategy's reason stays */
    run_verdict(&r);
    ck_assert_str_eq(r.failure, "a strategy's own reason");
    run_release(&r);
}
END_TEST

/* The tables merge into one list: orders unique and each table in order; a strategy's rows are
 * shown for that strategy alone; a row that adds to a line is shown only where the line's first
 * row is (else it would add to another line). */
static void check_table(const struct metric_table *t, unsigned own)
{
    for (size_t i = 0; i < t->nrows; i++) {
        ck_assert_msg(i == 0 || t->rows[i - 1].order < t->rows[i].order, "%s: out of order",
                      t->rows[i].name);
        ck_assert_msg(own == METRIC_ALL || (t->rows[i].text_for & ~own) == 0,
                      "%s: shown for another strategy", t->rows[i].name);
        ck_assert(t->rows[i].schema != NULL && t->rows[i].meaning != NULL);
    }
    for (size_t i = 1; i < t->nfamilies; i++)
        ck_assert(t->families[i - 1].order < t->families[i].order);
}

START_TEST(test_tables_merge)
{
    check_table(metric_common(), METRIC_ALL);
    size_t rows = metric_common()->nrows;
    for (int id = STRAT_NONE + 1; id < STRAT_COUNT; id++) {
        const struct strategy *st = strategy_get((enum strategy_id)id);
        ck_assert(st != NULL && st->metrics != NULL);
        check_table(st->metrics, METRIC_FOR(id));
        rows += st->metrics->nrows;
    }
    ck_assert_uint_eq(metrics_count(), rows);
    for (int id = STRAT_NONE + 1; id < STRAT_COUNT; id++) {
        const struct metric *line = NULL; /* the line a row adds to, among the rows id shows */
        for (size_t i = 0; i < metrics_count(); i++) {
            const struct metric *m = metrics_at(i);
            ck_assert(i == 0 || metrics_at(i - 1)->order < m->order);
            if (!(m->text_for & METRIC_FOR(id))) continue;
            if (m->label != NULL) line = m;
            ck_assert_msg(line != NULL && (line->shown == NULL || m->shown != NULL),
                          "%s may add to a line that is not shown", m->name);
        }
    }
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_tables_merge);
    tcase_add_test(tc, test_text_is_the_table);
    tcase_add_test(tc, test_json_and_expect_have_every_metric);
    tcase_add_test(tc, test_summary_columns);
    tcase_add_test(tc, test_verdict);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(report_suite());
}
