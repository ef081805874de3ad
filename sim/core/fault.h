/* fault.h - the fault plan: every failure of a run, materialised before the simulation starts.
 *
 * A scenario's <faults> lists crashes, stragglers, link failures and degradations, partitions,
 * corrupt batches, the input pipeline's corrupt shards and cache crashes, and random failure
 * processes (per-GPU MTBF, exponential or Weibull, with a repair time). fault_plan_build turns
 * them into one list of events sorted by time (ties by order of appearance), drawing every random
 * number from one GSL generator (MT19937) seeded by the scenario's seed, so the same scenario and
 * seed give the same plan. Events tied to a step (a crash "at step N", a corrupt batch) keep
 * their step and fire when the worker reaches it.
 * Which children and events exist, and the functions that read, plan and play each, are the
 * tables of faultkind.h.
 *
 * How each event takes effect (see platform.h and inject.h):
 *   crash / restart          host turned off / on (sg_host_turn_off/on); the actors on it die;
 *                            a node crashed at a step is its GPU hosts, each at its worker's step;
 *   straggler                the host's pstate switches to a slower speed for the interval;
 *   jitter                   each worker's compute of each step is multiplied by a lognormal draw;
 *   link-down / degrade      SimGrid link state / bandwidth profiles written into the platform;
 *   partition                a generated platform's partition links go down (the routes
 *                            between groups); a user's: the NIC links of every node outside
 *                            the first group; a group name that is no machine is an error;
 *   corrupt-batch            the worker skips that batch's compute (logged, counted);
 *   corrupt-shard            the input pipeline reads the shard's samples and skips them (not
 *                            decoded, copied or learnt: fault_sample_corrupt), logged once an
 *                            epoch where met; a standing fault: its event is at time 0;
 *   cache-crash / restart    the input pipeline's hook (inject.h, struct inject_input): the
 *                            node's cache tier is emptied, and down until its restart event.
 * Simulated failures are model events, never program errors.
 */
#ifndef DMLSIM_FAULT_H
#define DMLSIM_FAULT_H

#include "error.h"
#include "faultkind.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The events of a plan, one per row of the table in faultkind.h. */
#define FAULT_EVENT_ENUM_ROW(kind, name, prints_factor, play) kind,
enum fault_kind { FAULT_EVENT_KINDS(FAULT_EVENT_ENUM_ROW) FAULT_KIND_COUNT };
#undef FAULT_EVENT_ENUM_ROW
#define FAULT_NO_EVENT FAULT_KIND_COUNT /* a <faults> row's END when its kind has none */

struct fault_event {
    enum fault_kind kind;
    double t_s;        /* when; < 0 for step-triggered events */
    int step;          /* the step that triggers it, or -1 */
    char target[64];   /* host or link name; for corrupt batches the worker's GPU host */
    double factor;     /* straggler slowdown (> 1) or degrade bandwidth factor (0..1] */
    double restart_s;  /* crash, cache-crash: restart delay, < 0 for none */
    long long shard;   /* corrupt-shard: the shard of <data>'s files, else -1 */
    const char *cause; /* "crash", "straggler", "link-down", "degrade", "partition", "mtbf", ... */
    int line;          /* line of the scenario element it came from */
};

struct fault_spec; /* the parsed <faults> children, owned by struct scenario */

/* The most events a plan may hold (each about 100 B, and a state change SimGrid plays): 10^6 is
 * 1,000 GPUs with an MTBF of 1 h for 500 h (a crash and a restart each); a plan past it is a
 * FILE:LINE error naming the element. */
#define FAULT_MAX_EVENTS 1000000

struct fault_plan {
    struct fault_event *ev; /* sorted by time; step-triggered events (t < 0) last */
    size_t n;               /* number of events */
    double jitter_sigma;    /* > 0: lognormal per-step compute jitter on every worker */
    unsigned long seed;     /* the seed the plan was drawn with */
    long long *shards;      /* the corrupt-shard events' shards, ascending, no repeats */
    size_t nshards;         /* ... how many */
};

struct scenario;

/* The names a plan may target, read from the platform document before it is loaded. */
struct fault_names {
    char **gpus;  /* GPU hosts in rank order */
    size_t ngpus;
    char **hosts; /* every host (node-level targets name their hosts by prefix) */
    size_t nhosts;
    char **links; /* every link, for link faults */
    size_t nlinks;
};

/* Builds the plan from the scenario's <faults> against those names; checks every target exists
 * ("FILE:LINE: ..."). Plain data: built before the platform is loaded and never edited after. */
enum dmlsim_err fault_plan_build(const struct scenario *sc, const struct fault_names *names,
                                 struct fault_plan *plan, struct dmlsim_error *err);

/* A straggler event ev[i] (FAULT_SLOW) is the k-th (0, 1, ...) slow event of its host, and the
 * host has fault_plan_slow_events of them: the platform appends one pstate per slow event, in plan
 * order, after the host's own pstates, so the event switches to own + k. */
int fault_plan_pstate(const struct fault_plan *plan, size_t i);
int fault_plan_slow_events(const struct fault_plan *plan, const char *target);

void fault_plan_release(struct fault_plan *plan);

/* Prints the materialised plan, one event per line, time first. */
void fault_plan_print(const struct fault_plan *plan, FILE *out);

const char *fault_kind_name(enum fault_kind k);

/* Lognormal jitter factor (>= 1) for (rank, step), reproducible from the plan's seed. */
double fault_jitter(const struct fault_plan *plan, int rank, int step);

/* Is the batch of the worker on `host` at `step` corrupt? */
bool fault_is_corrupt(const struct fault_plan *plan, const char *host, int step);

/* Is sample i (of the files' order, shards of shard_samples samples) in a corrupt shard of the
 * plan? The input pipeline and <numerics> ask it (a corrupt shard fails from the start). */
bool fault_sample_corrupt(const struct fault_plan *plan, double shard_samples, long long i);

#endif
