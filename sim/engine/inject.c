/* inject.c - the fault injector (see inject.h). */
#include "inject.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct restart_req {
    sg_host_t host;
    double t_s;
    struct restart_req *next;
};

void inject_init(struct injector *inj, const struct fault_plan *plan, struct run_record *rec,
                 sg_host_t keep, struct inject_hooks hooks)
{
    memset(inj, 0, sizeof *inj);
    inj->plan = plan;
    inj->rec = rec;
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
static void fault_begins(struct injector *inj)
{
    if (inj->pending_s < 0) inj->pending_s = simgrid_get_clock();
    inj->detected = false;
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
    if (inj->pending_s < 0 || !inj->detected || since_s <= inj->pending_s) return;
    double d = simgrid_get_clock() - inj->pending_s;
    if (d > inj->rec->max_recover_s) inj->rec->max_recover_s = d;
    inj->pending_s = -1;
}

static void crash(struct injector *inj, sg_host_t h)
{
    fault_begins(inj);
    if (inj->hooks.crashed) inj->hooks.crashed(inj->hooks.ctx, h);
    sg_host_turn_off(h); /* kills the actors on it, the caller too if it runs there */
}

static void restart(struct injector *inj, sg_host_t h)
{
    if (sg_host_is_on(h)) return;
    sg_host_turn_on(h);
    run_event_add(inj->rec, simgrid_get_clock(), RUN_FAULT, -1, members(inj), "restart of %s",
                  sg_host_get_name(h));
    if (inj->hooks.restarted) inj->hooks.restarted(inj->hooks.ctx, h);
}

static void schedule_restart(struct injector *inj, sg_host_t host, double t_s)
{
    struct restart_req *r = xbt_new0(struct restart_req, 1);
    r->host = host;
    r->t_s = t_s;
    r->next = inj->restarts;
    inj->restarts = r;
    sg_sem_release(inj->wake);
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
        if (e->restart_s >= 0) schedule_restart(inj, me, simgrid_get_clock() + e->restart_s);
        crash(inj, me);
    }
}

/* One timed event of the plan, now. */
static void play(struct injector *inj, size_t i)
{
    const struct fault_event *e = &inj->plan->ev[i];
    sg_host_t h = sg_host_by_name(e->target);
    double now = simgrid_get_clock();
    switch (e->kind) {
    case FAULT_CRASH:
        if (h == NULL || !sg_host_is_on(h) || h == inj->keep) return;
        run_event_add(inj->rec, now, RUN_FAULT, -1, members(inj), "crash of %s (%s)", e->target,
                      e->cause);
        crash(inj, h);
        return;
    case FAULT_RESTART:
        if (h) restart(inj, h);
        return;
    case FAULT_SLOW:
    case FAULT_SLOW_END:
        if (e->kind == FAULT_SLOW && inj->slow_is_fault) fault_begins(inj);
        if (h && sg_host_is_on(h))
            sg_host_set_pstate(h, e->kind == FAULT_SLOW ? (unsigned long)fault_plan_pstate(
                                                                  inj->plan, i)
                                                        : 0);
        run_event_add(inj->rec, now, RUN_FAULT, -1, members(inj), "%s %s", e->target,
                      e->kind == FAULT_SLOW ? "slowed" : "back to speed");
        return;
    case FAULT_CORRUPT: /* step-triggered: the worker checks it */
        return;
    default: /* link faults act through their profiles; the log marks them */
        if (e->kind == FAULT_LINK_DOWN) fault_begins(inj);
        run_event_add(inj->rec, now, RUN_FAULT, -1, members(inj), "%s %s (%s)",
                      fault_kind_name(e->kind), e->target, e->cause);
        return;
    }
}

/* Restarts whose time has come. */
static void due_restarts(struct injector *inj)
{
    for (struct restart_req **pp = &inj->restarts; *pp;) {
        if ((*pp)->t_s <= simgrid_get_clock()) {
            struct restart_req *r = *pp;
            *pp = r->next;
            restart(inj, r->host);
            free(r);
        } else {
            pp = &(*pp)->next;
        }
    }
}

static void injector_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct injector *inj = sg_actor_self_get_data();
    const struct fault_plan *plan = inj->plan;
    size_t i = 0;
    for (;;) { /* a daemon: ends with the simulation */
        double next = i < plan->n && plan->ev[i].t_s >= 0 ? plan->ev[i].t_s : INFINITY;
        for (struct restart_req *r = inj->restarts; r; r = r->next)
            next = fmin(next, r->t_s);
        if (next == INFINITY) {
            sg_sem_acquire(inj->wake);
            continue;
        }
        double wait = next - simgrid_get_clock();
        if (wait > 0 && sg_sem_acquire_timeout(inj->wake, wait) == 0)
            continue; /* a new restart request: look again */
        due_restarts(inj);
        for (; i < plan->n && plan->ev[i].t_s >= 0 && plan->ev[i].t_s <= simgrid_get_clock(); i++)
            play(inj, i);
    }
}

void inject_start(struct injector *inj)
{
    if (inj->plan->n == 0) return;
    sg_actor_t a = sg_actor_init("injector", inj->keep);
    sg_actor_set_data(a, inj);
    sg_actor_daemonize(a);
    sg_actor_start(a, injector_actor, 0, NULL);
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
    while (inj->restarts) {
        struct restart_req *r = inj->restarts;
        inj->restarts = r->next;
        free(r);
    }
    free(inj->fired);
    inj->fired = NULL;
}
