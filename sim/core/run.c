/* run.c - the run record (see run.h). */
#include "run.h"

#include "mem.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void run_init(struct run_record *r, enum strategy_id strategy, int workers, int batch, int steps)
{
    memset(r, 0, sizeof *r);
    r->sides = 1;
    r->strategy_id = strategy;
    r->strategy = strategy_name(strategy);
    r->workers = workers;
    r->batch = batch;
    r->steps_planned = steps;
    r->global_batch = (double)workers * batch;
    r->busy_s = mem_new0(double, workers);
    r->time_to_accuracy_s = INFINITY;
    r->steps_to_accuracy = -1;
}

static struct run_config *config_slot(struct run_record *r, const char *key)
{
    assert(r->nconfig < RUN_CONFIG);
    struct run_config *c = &r->config[r->nconfig++];
    snprintf(c->key, sizeof c->key, "%s", key);
    return c;
}

void run_config_str(struct run_record *r, const char *key, const char *value)
{
    struct run_config *c = config_slot(r, key);
    snprintf(c->value, sizeof c->value, "\"%s\"", value); /* names: nothing to escape */
}

void run_config_num(struct run_record *r, const char *key, const char *fmt, ...)
{
    struct run_config *c = config_slot(r, key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->value, sizeof c->value, fmt, ap);
    va_end(ap);
}

static struct run_event *push(struct run_record *r, double t_s, enum run_event_kind kind, int step,
                              int workers)
{
    if (r->nev == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->ev = mem_realloc(r->ev, r->cap * sizeof *r->ev);
    }
    struct run_event *e = &r->ev[r->nev];
    memset(e, 0, sizeof *e);
    e->t_s = t_s;
    e->start_s = t_s;
    e->kind = kind;
    e->step = step;
    e->workers = workers;
    e->seq = r->nev++;
    return e;
}

struct run_event *run_event_add(struct run_record *r, double t_s, enum run_event_kind kind,
                                int step, int workers, const char *fmt, ...)
{
    struct run_event *e = push(r, t_s, kind, step, workers);
    if (kind == RUN_RECOVERY && r->outage && r->outage_s < t_s) e->start_s = r->outage_s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->what, sizeof e->what, fmt, ap);
    va_end(ap);
    if (getenv("DMLSIM_DEBUG_TIMELINE")) /* development aid: events as they happen */
        fprintf(stderr, "%.9f %s %d %s\n", t_s, run_event_kind_name(kind), step, e->what);
    return e;
}

static void (*step_hook)(double t_s, int step, int steps_planned);

void run_set_step_hook(void (*hook)(double t_s, int step, int steps_planned))
{
    step_hook = hook;
}

struct run_event *run_step_add(struct run_record *r, double t_s, int step, double time_s,
                               double compute_s, double samples, int workers, int side)
{
    if (step_hook) step_hook(t_s, step, r->steps_planned);
    r->progress_s = fmax(r->progress_s, t_s);
    if (step > r->progress_step) r->progress_step = step;
    struct run_event *e = push(r, t_s, RUN_STEP, step, workers);
    e->side = side;
    e->time_s = time_s;
    e->compute_s = compute_s;
    e->samples = samples;
    e->gpu_busy_s = -1; /* compute_s (run_power.h) */
    e->nccl_s = -1;     /* derived from the step's time */
    return e;
}

void run_gpu_span_add(struct run_record *r, int rank, double t0_s, double t1_s, double busy_s,
                      double nccl_s)
{
    if (!r->trace) return;
    if (r->ngpu_spans == r->gpu_spans_cap) {
        r->gpu_spans_cap = r->gpu_spans_cap ? 2 * r->gpu_spans_cap : 64;
        r->gpu_spans = mem_realloc(r->gpu_spans, r->gpu_spans_cap * sizeof *r->gpu_spans);
    }
    r->gpu_spans[r->ngpu_spans++] = (struct run_gpu_span){rank, t0_s, t1_s, busy_s, nccl_s};
}

const char *const run_group_names[4] = {"tensor", "pipeline", "data", "expert"};

void run_lose_step(struct run_record *r, int samples, bool computed)
{
    if (computed) r->lost_gradients += 1;
    r->replayed_samples += samples;
}

double run_step_exposed(const struct run_event *e)
{
    return fmax(0, e->time_s - e->compute_s);
}

static int by_time(const void *x, const void *y)
{
    const struct run_event *a = x, *b = y;
    if (a->t_s != b->t_s) return a->t_s < b->t_s ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void run_finish(struct run_record *r)
{
    qsort(r->ev, r->nev, sizeof *r->ev, by_time);
    double samples = 0, compute = 0, exposed = 0, busy = 0;
    r->steps = 0;
    for (size_t i = 0; i < r->nev; i++) {
        const struct run_event *e = &r->ev[i];
        if (e->kind != RUN_STEP) continue;
        r->steps += 1;
        samples += e->samples;
        compute += e->compute_s;
        exposed += run_step_exposed(e);
    }
    for (int w = 0; w < r->workers; w++)
        busy += r->busy_s[w];
    double T = r->total_s;
    r->throughput = T > 0 ? samples / T : 0;
    r->goodput = T > 0 ? r->consumed_samples / T : 0;
    r->mean_step_s = r->steps > 0 ? T / r->steps : 0;
    r->compute1_s = r->steps > 0 ? compute / r->steps : 0;
    r->exposed_s = r->steps > 0 ? exposed / r->steps : 0;
    /* No fallback to the rows' compute (compute1_s): with a straggler that is the slow GPU's,
     * so an efficiency against it rose as the straggler slowed (issue 35). */
    r->one_gpu_s = r->nominal_step_s > 0 ? r->nominal_step_s : 0;
    double one_gpu = r->one_gpu_s > 0 ? r->batch / r->one_gpu_s : 0;
    r->efficiency = one_gpu > 0 ? r->throughput / (r->workers * one_gpu) : 0;
    r->idle_frac = T > 0 && r->workers > 0 ? fmin(1, fmax(0, 1 - busy / (r->workers * T))) : 0;
    r->compute_flops_s = r->compute1_s > 0 ? r->step_flops / r->compute1_s : 0;
    r->compute_peak_frac = r->peak_flops > 0 ? r->compute_flops_s / r->peak_flops : 0;
    double gpu = 0;
    for (size_t i = 0; i < r->nkclasses; i++)
        gpu += r->kclass_s[i];
    r->host_wait_frac = gpu > 0 ? r->host_wait_s / gpu : 0;
    r->input_wait_s = r->input_batches > 0 ? r->input_wait_total_s / r->input_batches : 0;
    r->input_frac = T > 0 && r->workers > 0 ? r->input_wait_run_s / (r->workers * T) : 0;
    r->input_bound = r->input_frac >= 0.01 && r->input_frac > r->idle_frac - r->input_frac;
    run_verdict(r);
}

/* The job's verdict, the same for every strategy: it completed only if every requested step was
 * committed (all-reduce and hybrid: global steps; PS: versions every shard reached) and at least
 * one gradient reached the model. A strategy that knows a more precise reason has set it
 * already; this is the rule that no failed job escapes (issue 28: runs that ended short of their
 * steps, or applied nothing, said "job completed" and exited 0). */
void run_verdict(struct run_record *r)
{
    if (r->job_failed) return;
    if (r->steps_completed < r->steps_planned) {
        r->job_failed = true;
        snprintf(r->failure, sizeof r->failure,
                 "%.0f of %d steps committed when the run ended (%.0f of %d workers finished)",
                 r->steps_completed, r->steps_planned, r->final_workers, r->workers);
    } else if (r->applied <= 0) {
        r->job_failed = true;
        snprintf(r->failure, sizeof r->failure,
                 "no gradient reached the model: %.0f computed, %.0f dropped stale, %.0f dropped "
                 "late, %.0f lost",
                 r->computed, r->dropped_stale, r->dropped_late, r->lost_gradients);
    }
}

bool run_identities_hold(const struct run_record *r)
{
    double grads = r->applied + r->dropped_stale + r->dropped_late + r->lost_gradients;
    double samples =
            r->consumed_samples + r->skipped_samples + r->dropped_samples + r->replayed_samples;
    return fabs(r->computed - grads) < 0.5 && fabs(r->read_samples - samples) < 0.5;
}

const char *const run_stage_names[RUN_STAGES] = {"read", "decode", "copy"};
const char *const run_resource_names[RUN_RESOURCES] = {"nvme", "store-disk", "network", "cpu",
                                                       "pcie"};

double run_resource_util(const struct run_record *r, int i)
{
    const struct resource_report *x = &r->resources[i];
    double cap = x->per_s * r->total_s;
    return cap > 0 ? x->used / cap : 0;
}

double run_stage_busy(const struct run_record *r, int s)
{
    const struct stage_report *st = &r->stages[s];
    double cap = st->lanes * r->total_s;
    return cap > 0 ? st->busy_s / cap : 0;
}

const char *run_event_kind_name(enum run_event_kind k)
{
    static const char *names[] = {"step", "fault", "recovery", "checkpoint"};
    return names[k];
}

void run_eval_add(struct run_record *r, int side, double t_s, int step, double accuracy,
                  double loss)
{
    if (r->nevals == r->evals_cap) {
        r->evals_cap = r->evals_cap ? 2 * r->evals_cap : 32;
        r->evals = mem_realloc(r->evals, r->evals_cap * sizeof *r->evals);
    }
    r->evals[r->nevals++] = (struct run_eval){t_s, step, accuracy, loss, side};
    if (side == 0 && r->target_accuracy > 0 && accuracy >= r->target_accuracy && r->steps_to_accuracy < 0) {
        r->time_to_accuracy_s = t_s;
        r->steps_to_accuracy = step;
    }
}

void run_release(struct run_record *r)
{
    free(r->evals);
    free(r->ev);
    free(r->busy_s);
    free(r->gpu_spans);
    if (r->own_free != NULL) r->own_free(r->own);
    memset(r, 0, sizeof *r);
}
