/* runkit.c - the run skeleton (see runkit.h). */
#include "runkit.h"

#include "net.h"
#include "trace.h"

#include <simgrid/engine.h>
#include <simgrid/mailbox.h>
#include <xbt/sysdep.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void runkit_open(struct runkit *kit, const struct job *j, struct run_record *rec, unsigned uses)
{
    const struct train_spec *ts = &j->sc->train;
    memset(kit, 0, sizeof *kit);
    kit->j = j;
    kit->rec = rec;
    kit->uses = uses;
    if (uses & RUNKIT_TRACE) {
        if (ts->trace) rec->trace = trace_new();
        net_trace_flight(rec->trace); /* until job_finish */
    }
    if (uses & RUNKIT_TRAFFIC) kit->traffic = traffic_new();
    if (uses & RUNKIT_NUMERICS) job_record_numerics(j, rec);
    if (j->nm) j->nm->plan = j->plan; /* its corrupt shards */
    if (uses & RUNKIT_INJECT)
        inject_init(&kit->inj, j->plan, rec, j->pf, job_store_host(j), (struct inject_hooks){0});
    kit->input = j->input;
    if ((uses & RUNKIT_INPUT) && ts->data.present) { /* the input pipeline feeds every worker */
        long long N = j->nm ? j->nm->train.n : (long long)ts->data.samples;
        kit->loader = loader_new(&ts->data, j->plan, j->pf, job_workers(j), ts->batch, N, rec,
                                 kit->traffic);
        loader_set_store(kit->loader, scenario_store(j->sc, ts->data.store_id));
        kit->input = loader_hook(kit->loader);
        if (uses & RUNKIT_INJECT) inject_set_input(&kit->inj, loader_fault_hooks(kit->loader));
    }
}

void runkit_input(struct runkit *kit, struct loader *l)
{
    kit->loader = l;
    kit->input = loader_hook(l);
    if (kit->uses & RUNKIT_INJECT) inject_set_input(&kit->inj, loader_fault_hooks(l));
}

void runkit_hooks(struct runkit *kit, struct inject_hooks hooks)
{
    kit->inj.hooks = hooks;
}

struct ckpt *runkit_ckpts(struct runkit *kit, int n, const double *size_B, struct run_record *log)
{
    kit->ckpt = xbt_new0(struct ckpt, n > 0 ? n : 1);
    kit->nckpt = n;
    for (int k = 0; k < n; k++)
        ckpt_init(&kit->ckpt[k], kit->j->sc, kit->j->pf, size_B[k], log);
    return kit->ckpt;
}

void runkit_track(const struct runkit *kit, int track, const char *fmt, ...)
{
    if (kit->rec->trace == NULL) return;
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    trace_track(kit->rec->trace, track, name);
}

sg_mailbox_t runkit_mailbox(const char *fmt, ...)
{
    char name[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return sg_mailbox_by_name(name);
}

void runkit_simulate(struct runkit *kit)
{
    if (kit->loader) loader_start(kit->loader);
    if (kit->uses & RUNKIT_INJECT) inject_start(&kit->inj);
    job_watch(kit->j, kit->rec);
    simgrid_run();
}

void runkit_finish(struct runkit *kit)
{
    job_finish(kit->rec, kit->traffic);
}

void runkit_release(struct runkit *kit)
{
    loader_free(kit->loader);
    for (int k = 0; k < kit->nckpt; k++)
        ckpt_release(&kit->ckpt[k]);
    free(kit->ckpt);
    if (kit->uses & RUNKIT_INJECT) inject_release(&kit->inj);
    if (kit->traffic) traffic_free(kit->traffic);
}
