/* runkit.h - the run skeleton: a strategy's shared services, set up and torn down in one place.
 *
 * A strategy's row (strategy.h) declares the services its runs use (enum runkit_use) and
 * strategy_run drives every run alike: the row's begin (run_init and the strategy's
 * configuration lines), runkit_open, the row's run, runkit_release. runkit_open sets the
 * services up in the one order the strategies shared: the trace (and the bytes in flight counted
 * into it), the traffic, the <numerics> settings into the record (after the strategy's
 * configuration lines), the injector (its hooks given by the run: runkit_hooks), the input
 * pipeline. None of these starts an actor or names a trace track. The run builds its own state
 * and actors (its trace tracks named with runkit_track, its checkpoints taken with runkit_ckpts,
 * its mailboxes named with runkit_mailbox), then calls runkit_simulate, which starts the input
 * pipeline's actors, the injector's and the watchdog, in that order after the strategy's own
 * (SimGrid numbers actors in creation order: the order is the strategies' of before), and runs
 * the simulation; its results in the record, it calls runkit_finish (job_finish) and frees its
 * own state.
 *
 * Mailbox names, one namespace per run: the strategies' go through runkit_mailbox and are
 * "state-M-R" (elastic.c: a state sent to rank R of membership M), "pp:D:T:F>G" (hybrid.c: the
 * pipeline from stage F to G), ps_msg.h's ("psK<wR", "wR<psK", "wF<lead0", "leadL<wF", "wR<coordB")
 * and "coordinator" (ps_coord.c); the engine's own are "rdzv", "rdzvN" and "ctlR" (rendezvous.c),
 * "cE:F>T#G" (coll.c, E a collective world's epoch), "ckpt-N" (ckpt.c), "fetch-R.W" and "h2d-R"
 * (loader.c).
 */
#ifndef DMLSIM_RUNKIT_H
#define DMLSIM_RUNKIT_H

#include "ckpt.h"
#include "inject.h"
#include "job.h"
#include "loader.h"

#include <simgrid/forward.h>

/* The services a strategy's row declares; runkit_open sets up those, and only those. */
enum runkit_use {
    RUNKIT_TRACE = 1 << 0,    /* <training trace="...">: the trace, bytes in flight counted in it */
    RUNKIT_TRAFFIC = 1 << 1,  /* the traffic the run's messages are counted in (job_finish's) */
    RUNKIT_NUMERICS = 1 << 2, /* <numerics>: its settings into the record */
    RUNKIT_INJECT = 1 << 3,   /* the injector that plays the fault plan */
    RUNKIT_INPUT = 1 << 4,    /* <data>: the input pipeline feeds every worker */
    RUNKIT_CKPT = 1 << 5,     /* checkpoints (runkit_ckpts) */
};

struct runkit {
    const struct job *j;     /* the job */
    struct run_record *rec;  /* its record (rec->trace: the trace, or NULL) */
    unsigned uses;           /* the services declared (enum runkit_use) */
    struct traffic *traffic; /* RUNKIT_TRAFFIC: what the run's messages carried, else NULL */
    struct injector inj;     /* RUNKIT_INJECT: the fault plan's player */
    struct input_hook input; /* before each forward: the loader's, or the job's */
    struct loader *loader;   /* <data>: the input pipeline (RUNKIT_INPUT's, or runkit_input's) */
    struct ckpt *ckpt;       /* RUNKIT_CKPT: the run's checkpoint writers (runkit_ckpts) */
    int nckpt;               /* ... how many */
};

/* Sets up the services `uses` declares, for job j recorded in rec (run_init done): see the design
 * note for the order. The injector has no hooks until runkit_hooks. */
void runkit_open(struct runkit *kit, const struct job *j, struct run_record *rec, unsigned uses);

/* A strategy whose batches only some of its workers read (hybrid_input.h: a replica's first
 * stage) builds its input pipeline itself, on lanes of its choosing, instead of declaring
 * RUNKIT_INPUT: l becomes kit->loader and its hook kit->input, started by runkit_simulate and freed
 * by runkit_release as RUNKIT_INPUT's. Called once, before runkit_simulate. */
void runkit_input(struct runkit *kit, struct loader *l);

/* The injector's hooks (inject.h), given once the run's state exists. */
void runkit_hooks(struct runkit *kit, struct inject_hooks hooks);

/* RUNKIT_CKPT: n checkpoint writers, writer k of size_B[k] bytes, logging into `log` (NULL: not
 * logged); returns them (kit->ckpt, released by runkit_release). Called once. */
struct ckpt *runkit_ckpts(struct runkit *kit, int n, const double *size_B, struct run_record *log);

/* Names trace track `track` (printf-style), when the run is traced; nothing otherwise. */
void runkit_track(const struct runkit *kit, int track, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* The mailbox of a name printf-style (see the design note for the names in use). */
sg_mailbox_t runkit_mailbox(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The strategy's actors started: the input pipeline's actors, the injector's and the watchdog
 * (job_watch) start, and the simulation runs to its end. */
void runkit_simulate(struct runkit *kit);

/* After the run's results went into the record: job_finish with the run's traffic. */
void runkit_finish(struct runkit *kit);

/* Tears the services down (after the run freed its own state). */
void runkit_release(struct runkit *kit);

#endif
