/* inject.c - the fault injector (see inject.h). */
#include "inject.h"

#include "net.h"
#include "trace.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A step-triggered crash's restart: its own actor, which waits and brings the host back. */
struct restart_req {
    struct injector *inj;
    sg_host_t host;
    double delay_s;
};

void inject_init(struct injector *inj, const struct fault_plan *plan, struct run_record *rec,
                 const struct platform *pf, sg_host_t keep, struct inject_hooks hooks)
{
    memset(inj, 0, sizeof *inj);
    inj->plan = plan;
    inj->rec = rec;
    inj->pf = pf;
    inj->keep = keep;
    inj->hooks = hooks;
    inj->fired = xbt_new0(bool, plan->n ? plan->n : 1);
    inj->wake = sg_sem_init(0);
    inj->pending_s = -1;
}

static int members(const struct injector *inj)
{
    return inj->hooks.members ? inj->hooks.members(inj->hooks.ctx) : 0;
}

/* A fault that needs recovering from starts now (unless an earlier one is still pending). */
static void fault_begins(struct injector *inj, const char *target)
{
    if (inj->pending_s < 0) {
        inj->pending_s = simgrid_get_clock();
        snprintf(inj->pending_target, sizeof inj->pending_target, "%s", target);
        inj->rec->outage = true;
        inj->rec->outage_s = inj->pending_s;
    }
    inj->detected = false;
}

/* The fault on `target` is over: if nobody noticed it, it is not pending any more (a later fault
 * is timed from its own start). */
static void fault_ends(struct injector *inj, const char *target)
{
    if (inj->pending_s >= 0 && !inj->detected && strcmp(inj->pending_target, target) == 0) {
        inj->pending_s = -1;
        inj->rec->outage = false;
    }
}

static bool relevant(const struct injector *inj, sg_host_t h)
{
    return inj->hooks.relevant == NULL || inj->hooks.relevant(inj->hooks.ctx, h);
}

void inject_detected(struct injector *inj)
{
    if (inj->detected || inj->pending_s < 0) return;
    double d = simgrid_get_clock() - inj->pending_s;
    if (d > inj->rec->max_detect_s) inj->rec->max_detect_s = d;
    inj->detected = true;
    inj->detected_s = simgrid_get_clock();
}

void inject_progress(struct injector *inj, double since_s)
{
    inj->rec->progress_s = simgrid_get_clock(); /* the run's watchdog (progress.h) */
    if (inj->pending_s < 0 || !inj->detected || since_s <= inj->pending_s) return;
    double d = simgrid_get_clock() - inj->pending_s;
    if (d > inj->rec->max_recover_s) inj->rec->max_recover_s = d;
    if (inj->rec->trace) { /* the outage, and its detection nested in it */
        char what[96];
        snprintf(what, sizeof what, "recovery from the fault on %s", inj->pending_target);
        trace_span(inj->rec->trace, "recoveries", what, inj->pending_s, simgrid_get_clock());
        snprintf(what, sizeof what, "detection of the fault on %s", inj->pending_target);
        trace_span(inj->rec->trace, "recoveries", what, inj->pending_s, inj->detected_s);
    }
    inj->pending_s = -1;
    inj->rec->outage = false;
}

static void crash(struct injector *inj, sg_host_t h)
{
    if (relevant(inj, h)) fault_begins(inj, sg_host_get_name(h));
    if (inj->hooks.crashed) inj->hooks.crashed(inj->hooks.ctx, h);
    net_host_down(h); /* its sends in flight die with it */
    sg_host_turn_off(h); /* kills the actors on it, the caller too if it runs there */
}

static void restart(struct injector *inj, sg_host_t h)
{
    if (sg_host_is_on(h)) return;
    sg_host_t cpu = inj->pf ? platform_node_cpu(inj->pf, h) : NULL;
    if (cpu && cpu != h && !sg_host_is_on(cpu)) { /* a node's restart brings its CPU host first */
        run_event_add(inj->rec, simgrid_get_clock(), RUN_FAULT, -1, members(inj),
                      "no restart of %s: its node's %s is down", sg_host_get_name(h),
                      sg_host_get_name(cpu));
        return;
    }
    sg_host_turn_on(h);
    run_event_add(inj->rec, simgrid_get_clock(), RUN_FAULT, -1, members(inj), "restart of %s",
                  sg_host_get_name(h));
    if (inj->hooks.restarted) inj->hooks.restarted(inj->hooks.ctx, h);
}

static void restarter_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct restart_req *r = sg_actor_self_get_data();
    sg_actor_sleep_for(r->delay_s);
    if (!r->inj->finished) restart(r->inj, r->host);
    r->inj->restarting--;
    free(r);
}

/* Not a daemon, so the restart comes even if every worker is down meanwhile. */
static void schedule_restart(struct injector *inj, sg_host_t host, double delay_s)
{
    struct restart_req *r = xbt_new0(struct restart_req, 1);
    r->inj = inj;
    r->host = host;
    r->delay_s = delay_s;
    inj->restarting++;
    sg_actor_t a = sg_actor_init("restarter", inj->keep);
    sg_actor_set_data(a, r);
    sg_actor_start(a, restarter_actor, 0, NULL);
}

void inject_step(struct injector *inj, int step)
{
    sg_host_t me = sg_host_self();
    const char *host = sg_host_get_name(me);
    for (size_t i = 0; i < inj->plan->n; i++) {
        const struct fault_event *e = &inj->plan->ev[i];
        if (e->kind != FAULT_CRASH || e->step != step || inj->fired[i] || me == inj->keep ||
            strcmp(e->target, host) != 0)
            continue;
        inj->fired[i] = true;
        run_event_add(inj->rec, simgrid_get_clock(), RUN_FAULT, step, members(inj),
                      "crash of %s at step %d", host, step);
        if (e->restart_s >= 0) schedule_restart(inj, me, e->restart_s);
        crash(inj, me);
    }
}

/* The pstate a straggler event switches its host to: the platform appended one pstate per slow
 * event of the host, in plan order, after the host's own. */
static unsigned long slow_pstate(const struct injector *inj, sg_host_t h, size_t i)
{
    const struct fault_event *e = &inj->plan->ev[i];
    int own = (int)sg_host_get_nb_pstates(h) - fault_plan_slow_events(inj->plan, e->target);
    return (unsigned long)(own + fault_plan_pstate(inj->plan, i));
}

/* What the injector does when a timed event of the plan comes (faultkind.h: play_NAME of each
 * event row); h is the host the event targets, or NULL (a link). */
static void play_crash(struct injector *inj, size_t i, const struct fault_event *e, sg_host_t h,
                       double now)
{
    (void)i;
    if (h == NULL || !sg_host_is_on(h) || h == inj->keep) return; /* keep: job_check */
    run_event_add(inj->rec, now, RUN_FAULT, -1, members(inj), "crash of %s (%s)", e->target,
                  e->cause);
    crash(inj, h);
}

static void play_restart(struct injector *inj, size_t i, const struct fault_event *e, sg_host_t h,
                         double now)
{
    (void)i;
    (void)e;
    (void)now;
    if (h) restart(inj, h);
}

static void play_slow(struct injector *inj, size_t i, const struct fault_event *e, sg_host_t h,
                      double now)
{
    if (e->kind == FAULT_SLOW && inj->slow_is_fault) fault_begins(inj, e->target);
    if (e->kind == FAULT_SLOW_END) fault_ends(inj, e->target);
    if (h && sg_host_is_on(h))
        sg_host_set_pstate(h, e->kind == FAULT_SLOW ? slow_pstate(inj, h, i) : 0);
    run_event_add(inj->rec, now, RUN_FAULT, -1, members(inj), "%s %s", e->target,
                  e->kind == FAULT_SLOW ? "slowed" : "back to speed");
}

/* Step-triggered: the worker checks it. */
static void play_nothing(struct injector *inj, size_t i, const struct fault_event *e, sg_host_t h,
                         double now)
{
    (void)inj;
    (void)i;
    (void)e;
    (void)h;
    (void)now;
}

/* Link faults act through their profiles; the log marks them. */
static void play_link(struct injector *inj, size_t i, const struct fault_event *e, sg_host_t h,
                      double now)
{
    (void)i;
    (void)h;
    if (e->kind == FAULT_LINK_DOWN) fault_begins(inj, e->target);
    if (e->kind == FAULT_LINK_UP) fault_ends(inj, e->target);
    run_event_add(inj->rec, now, RUN_FAULT, -1, members(inj), "%s %s (%s)",
                  fault_kind_name(e->kind), e->target, e->cause);
}

/* The input pipeline's cache tier on the node's CPU host h: lost (and down for the event's
 * restart delay), or serving again. */
static void play_cache(struct injector *inj, size_t i, const struct fault_event *e, sg_host_t h,
                       double now)
{
    (void)i;
    (void)now;
    if (h == NULL) return;
    if (e->kind == FAULT_CACHE_CRASH && inj->input.cache_crash)
        inj->input.cache_crash(inj->input.ctx, h, e->restart_s);
    if (e->kind == FAULT_CACHE_RESTART && inj->input.cache_restart)
        inj->input.cache_restart(inj->input.ctx, h);
}

#define PLAY_ROW(kind, name, prints_factor, play) [kind] = play_##play,
static void (*const play_of[FAULT_KIND_COUNT])(struct injector *, size_t,
                                               const struct fault_event *, sg_host_t, double) = {
        FAULT_EVENT_KINDS(PLAY_ROW)};
#undef PLAY_ROW

/* One timed event of the plan, now. */
static void play(struct injector *inj, size_t i)
{
    const struct fault_event *e = &inj->plan->ev[i];
    play_of[e->kind](inj, i, e, sg_host_by_name(e->target), simgrid_get_clock());
}

/* Not a daemon: while the plan has events to come the simulation goes on even if every worker
 * is down (a crashed host's restart must still come); it returns once the job is finished or the
 * plan's timed events are all played. */
static void injector_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct injector *inj = sg_actor_self_get_data();
    const struct fault_plan *plan = inj->plan;
    size_t *i = &inj->played;
    while (*i < plan->n && plan->ev[*i].t_s >= 0 && !inj->finished) {
        double wait = plan->ev[*i].t_s - simgrid_get_clock();
        if (wait > 0 && sg_sem_acquire_timeout(inj->wake, wait) == 0)
            continue; /* woken: the job finished */
        for (; *i < plan->n && plan->ev[*i].t_s >= 0 && plan->ev[*i].t_s <= simgrid_get_clock();
             (*i)++)
            play(inj, *i);
    }
}

void inject_set_input(struct injector *inj, struct inject_input input)
{
    inj->input = input;
}

void inject_start(struct injector *inj)
{
    if (inj->plan->n == 0) return;
    sg_actor_t a = sg_actor_init("injector", inj->keep);
    sg_actor_set_data(a, inj);
    sg_actor_start(a, injector_actor, 0, NULL);
}

bool inject_may_restart(const struct injector *inj)
{
    if (inj->restarting > 0) return true;
    for (size_t i = inj->played; i < inj->plan->n && !inj->finished; i++)
        if (inj->plan->ev[i].kind == FAULT_RESTART && inj->plan->ev[i].t_s >= 0) return true;
    return false;
}

void inject_finish(struct injector *inj)
{
    if (inj->finished) return;
    inj->finished = true;
    sg_sem_release(inj->wake);
}

bool inject_corrupt(const struct injector *inj, sg_host_t host, int step)
{
    return fault_is_corrupt(inj->plan, sg_host_get_name(host), step);
}

double inject_jitter(const struct injector *inj, int rank, int step)
{
    return fault_jitter(inj->plan, rank, step);
}

void inject_release(struct injector *inj)
{
    sg_sem_destroy(inj->wake);
    free(inj->fired);
    inj->fired = NULL;
}
