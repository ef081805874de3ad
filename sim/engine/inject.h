/* inject.h - the fault injector every strategy shares.
 *
 * It plays the run's fault plan (fault.h: plain data, built before the engine starts) on the
 * platform: timed events from one daemon actor, step-triggered crashes when the worker on the
 * target host reaches the step (inject_step, called by every strategy's worker before a step),
 * and the restarts crashes ask for. Crashes and restarts turn hosts off and on; stragglers switch
 * the host's pstate; link faults act through the profiles the platform was loaded with; the
 * input pipeline's cache crashes and restarts go to its hooks (struct inject_input); a corrupt
 * shard or batch is asked, not played (inject_corrupt, fault_sample_corrupt). Every
 * event goes to the run's events log. Strategies take part through hooks (what dies with a host,
 * what starts again on it) and tell the injector when a survivor noticed a failure
 * (inject_detected) and when training progressed (inject_progress); from these it measures the
 * longest time to detect and to recover of the run.
 * The keep host (the store / rendezvous) is never crashed: it holds what every recovery needs.
 */
#ifndef DMLSIM_INJECT_H
#define DMLSIM_INJECT_H

#include "fault.h"
#include "platform.h"
#include "run.h"

#include <simgrid/forward.h>

#include <stdbool.h>

struct inject_hooks {
    void (*crashed)(void *ctx, sg_host_t h);   /* before h goes down (NULL: nothing to do) */
    void (*restarted)(void *ctx, sg_host_t h); /* after h is back: start its actors again */
    int (*members)(void *ctx);                 /* workers training now, for the events log */
    bool (*relevant)(void *ctx, sg_host_t h);  /* does a crash of h hurt the job? (NULL: yes) */
    void *ctx;
};

/* The input pipeline's side of its plan events (loader.h's loader_fault_hooks gives them; the
 * run skeleton registers them with inject_set_input): a node's cache tier lost at a cache-crash
 * (down for down_s, or serving again at once when 0) and serving again at its cache-restart. A
 * plan event whose effect is another module's reaches it through such a hook, so the injector
 * includes none of them. */
struct inject_input {
    void (*cache_crash)(void *ctx, sg_host_t cpu, double down_s); /* NULL: no pipeline */
    void (*cache_restart)(void *ctx, sg_host_t cpu);
    void *ctx;
};

struct injector {
    const struct fault_plan *plan;
    struct run_record *rec;
    struct inject_hooks hooks;
    struct inject_input input; /* the input pipeline's hooks (inject_set_input), or none */
    const struct platform *pf; /* whose nodes a restart asks */
    sg_host_t keep;          /* never crashed */
    bool *fired;             /* per plan event: a step-triggered crash already fired */
    sg_sem_t wake;           /* released when the job finishes */
    double pending_s;        /* earliest fault not recovered from, or -1 */
    char pending_target[64]; /* what it hit */
    bool detected;           /* it was noticed */
    double detected_s;       /* when */
    bool slow_is_fault;      /* stragglers are faults to recover from (a removal policy) */
    bool finished;           /* the job is over: play nothing more */
    size_t played;           /* timed events of the plan played so far */
    int restarting;          /* step-triggered restarts still to come */
};

/* pf: the platform, whose nodes a restart asks (a GPU does not come back while its node's CPU
 * host is down: the node crashed for good, or has not restarted yet). */
void inject_init(struct injector *inj, const struct fault_plan *plan, struct run_record *rec,
                 const struct platform *pf, sg_host_t keep, struct inject_hooks hooks);

/* The input pipeline's hooks, before inject_start. */
void inject_set_input(struct injector *inj, struct inject_input input);

/* Starts the injector actor on the keep host (if the plan has events). It is not a daemon: the
 * simulation lasts until the job is finished (inject_finish) or the plan has nothing left to
 * play, so a pending restart comes even when every worker is down (a step-triggered crash's
 * restart gets an actor of its own). */
void inject_start(struct injector *inj);

/* Can a host still come back: a restart of the plan not yet played, or one a step-triggered
 * crash asked for? */
bool inject_may_restart(const struct injector *inj);

/* The job is over (its last step is done): the injector stops. */
void inject_finish(struct injector *inj);

/* Called by a worker on its own host before step `step`: fires a step-triggered crash of this
 * host (the caller dies with it) and schedules its restart. */
void inject_step(struct injector *inj, int step);

/* A survivor noticed a failure. */
void inject_detected(struct injector *inj);

/* Training progressed (a step or version completed) in a configuration that exists since
 * `since_s` (a membership, a restarted shard): if that began after the pending fault and the fault
 * was noticed, the run has recovered from it. */
void inject_progress(struct injector *inj, double since_s);

/* Is the batch of the worker on `host` at `step` corrupt? Its compute jitter factor (>= 1)? */
bool inject_corrupt(const struct injector *inj, sg_host_t host, int step);
double inject_jitter(const struct injector *inj, int rank, int step);

void inject_release(struct injector *inj);

#endif
