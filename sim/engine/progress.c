/* progress.c - the simulation's own watchdog (progress.h). */
#include "progress.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    struct run_record *rec;
    double limit_s, quiet_until_s;
    bool stalled;
} watch;

bool progress_stalled(void)
{
    return watch.stalled;
}

/* "N actor(s) still waiting: name@host, ..." (the first few), into buf. */
static void describe_waiters(char *buf, size_t size)
{
    size_t n = sg_actor_count(), len = 0;
    sg_actor_t *all = sg_actor_list();
    sg_actor_t self = sg_actor_self();
    len += (size_t)snprintf(buf, size, "%zu actor(s) still waiting:", n > 0 ? n - 1 : 0);
    int shown = 0;
    for (size_t i = 0; i < n && len < size; i++) {
        if (all[i] == self) continue;
        if (shown == 4) {
            snprintf(buf + len, size - len, " ...");
            break;
        }
        len += (size_t)snprintf(buf + len, size - len, "%s %s@%s", shown ? "," : "",
                                sg_actor_get_name(all[i]), sg_host_get_name(sg_actor_get_host(all[i])));
        shown++;
    }
    free(all);
}

/* Nothing progressed for the limit: the job fails, with who still waits, and every actor stops.
 * Once the last requested step was committed the job's work is done: what still waits then (a
 * port for a pull that will not come, a worker of a side that lost the store) is stopped without
 * failing the job, as SimGrid itself ends a run whose remaining actors all wait with nothing
 * timed left (the watchdog's own sleep is what kept the clock going). */
static void stall(double since_s)
{
    struct run_record *r = watch.rec;
    char who[96];
    describe_waiters(who, sizeof who);
    bool done = r->steps_planned > 0 && r->progress_step >= r->steps_planned;
    if (done) { /* no event: nothing happened to the job */
        sg_actor_kill_all();
        return;
    }
    watch.stalled = true;
    if (!r->job_failed) {
        r->job_failed = true;
        int n = snprintf(r->failure, sizeof r->failure,
                         "no progress for %.0f s of simulated time since %.3f s (10 x the "
                         "longest deadline); ",
                         watch.limit_s, since_s);
        if (n > 0 && (size_t)n < sizeof r->failure) { /* then who waits, as much as fits */
            size_t len = strnlen(who, sizeof r->failure - (size_t)n - 1);
            memcpy(r->failure + n, who, len);
            r->failure[(size_t)n + len] = '\0';
        }
    }
    run_event_add(r, simgrid_get_clock(), RUN_FAULT, -1, 0,
                  "the simulation's watchdog: no progress since %.3f s; %s", since_s, who);
    sg_actor_kill_all();
}

static void watch_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    for (;;) {
        double since = fmax(watch.rec->progress_s, watch.quiet_until_s);
        double left = since + watch.limit_s - simgrid_get_clock();
        if (left <= 0) {
            stall(since);
            return;
        }
        sg_actor_sleep_for(left);
    }
}

void progress_watch(struct run_record *rec, sg_host_t host, double limit_s, double quiet_until_s)
{
    watch.rec = rec;
    watch.limit_s = limit_s;
    watch.quiet_until_s = quiet_until_s;
    watch.stalled = false;
    sg_actor_t a = sg_actor_init("watchdog", host);
    sg_actor_start(a, watch_actor, 0, NULL);
    sg_actor_daemonize(a); /* after the start, as loader.c's device actor (SimGrid 3.32) */
}
