/* job.c - shared services of the strategies (see job.h). */
#include "job.h"

#include "ckpt.h"
#include "loader.h"
#include "net.h"
#include "progress.h"
#include "run_power.h"
#include "scen_emb.h"
#include "trace.h"

#include <simgrid/host.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

int job_workers(const struct job *j)
{
    return j->sc->train.gpus > 0 ? j->sc->train.gpus : (int)j->pf->ngpus;
}

/* The plan's crash of `h`, or NULL. */
static const struct fault_event *crash_of(const struct fault_plan *plan, sg_host_t h)
{
    for (size_t i = 0; plan && i < plan->n; i++)
        if (plan->ev[i].kind == FAULT_CRASH && strcmp(plan->ev[i].target, sg_host_get_name(h)) == 0)
            return &plan->ev[i];
    return NULL;
}

sg_host_t job_store_host(const struct job *j)
{
    const struct platform *pf = j->pf;
    if (pf->storage) return pf->storage;
    for (size_t i = 0; i < pf->ncpus; i++)
        if (!crash_of(j->plan, pf->cpu_hosts[i])) return pf->cpu_hosts[i];
    for (size_t i = 0; i < pf->ngpus; i++)
        if (!crash_of(j->plan, pf->gpus[i])) return pf->gpus[i];
    return pf->ncpus ? pf->cpu_hosts[0] : pf->gpus[0];
}

/* Does crash e of a node's CPU host come without its GPUs' (crash host="node1" crashes them all
 * at once), or end after one of theirs (a GPU back before its loaders)? */
static bool cpu_crash_alone(const struct job *j, const struct fault_event *e)
{
    sg_host_t h = sg_host_by_name(e->target);
    const char *role = h ? sg_host_get_property_value(h, "role") : NULL;
    if (role == NULL || strcmp(role, "cpu") != 0) return false;
    for (size_t r = 0; r < j->pf->ngpus; r++) {
        if (platform_node_cpu(j->pf, j->pf->gpus[r]) != h) continue;
        bool with = false;
        for (size_t i = 0; i < j->plan->n && !with; i++) {
            const struct fault_event *g = &j->plan->ev[i];
            with = g->kind == FAULT_CRASH && g->t_s == e->t_s &&
                   strcmp(g->target, sg_host_get_name(j->pf->gpus[r])) == 0 &&
                   (g->restart_s < 0 || (e->restart_s >= 0 && e->restart_s <= g->restart_s));
        }
        if (!with) return true;
    }
    return false;
}

/* The plan's crashes against what the job can do: the store host never crashes, a crash at
 * a step needs a worker on its host to reach that step, and with an input pipeline a node's CPU
 * host (its loaders) crashes only with the node. */
static enum dmlsim_err check_crashes(const struct job *j, struct dmlsim_error *err)
{
    const struct fault_event *e = crash_of(j->plan, job_store_host(j));
    if (e != NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <crash host=\"%s\">: that is the host the rendezvous, the "
                           "fault injector and the checkpoint store run on, which never crashes; "
                           "expected another host",
                           j->sc->path, e->line, e->target);
    int P = job_workers(j);
    for (size_t i = 0; j->plan && i < j->plan->n; i++) {
        e = &j->plan->ev[i];
        if (e->kind == FAULT_CRASH && j->sc->train.data.present && cpu_crash_alone(j, e))
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: <crash host=\"%s\">: the node's CPU host runs its workers' "
                               "input pipelines, which crash with the node; expected the node "
                               "(host=\"nodeN\") or a GPU",
                               j->sc->path, e->line, e->target);
        if (e->kind != FAULT_CRASH || e->step < 0) continue;
        bool worker = false;
        for (int r = 0; r < P && !worker; r++)
            worker = strcmp(sg_host_get_name(j->pf->gpus[r]), e->target) == 0;
        if (!worker)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: <crash host=\"%s\" step=\"%d\">: no worker runs there, so "
                               "no step reaches it; expected a training GPU's host, or at=\"TIME\"",
                               j->sc->path, e->line, e->target, e->step);
    }
    return DMLSIM_OK;
}

enum dmlsim_err job_check(const struct job *j, struct dmlsim_error *err)
{
    const struct scenario *sc = j->sc;
    const struct train_spec *ts = &sc->train;
    const struct platform *pf = j->pf;
    int P = job_workers(j);
    if (P < 1 || P > (int)pf->ngpus)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <training gpus=\"%d\">: the platform has %zu GPU(s); expected "
                           "1 to %zu",
                           sc->path, ts->line, P, pf->ngpus, pf->ngpus);
    for (int r = 0; r < P; r++) {
        const struct gpu_model *g = pf->models[r];
        if (g->peak_flops[ts->dtype] <= 0)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: <training dtype=\"%s\">: %s has no %s support; expected "
                               "one of its dtypes (see dmlsim catalog)",
                               sc->path, ts->line, catalog_dtype_name(ts->dtype), g->name,
                               catalog_dtype_name(ts->dtype));
        char why[512];
        if (r > 0 && g == pf->models[r - 1]) continue; /* same model: same answer */
        enum dmlsim_err rc = j->cal ? calib_check_gpu(j->cal, g, err) : DMLSIM_OK;
        if (rc != DMLSIM_OK) return rc;
        /* a replicated model (the hybrid strategy checks its ranks' shares: parallel.h) */
        if (ts->strategy != STRAT_HYBRID && !ts->emb_sharded && /* sharded: ar_emb_check */
            model_check_fit_placed(j->m, ts->dtype, ts->opt, ts->batch, scen_emb_tables_on_gpu(ts),
                                   ts->ps.cache_rows, g, why, sizeof why) != 0)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: <training>: %s; expected a smaller batch-per-gpu or model",
                               sc->path, ts->line, why);
    }
    bool needs_store = sc->nfaults > 0 || (sc->ckpt.present && sc->ckpt.target != CKPT_LOCAL_NVME);
    if (needs_store && pf->storage == NULL && pf->ncpus == 0)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: faults and checkpoints need a storage host for the rendezvous "
                           "and the store; expected a cluster with a nic, or a host with property "
                           "role=storage",
                           sc->path, ts->line);
    if (ts->data.present && ts->data.source == DATA_REMOTE && pf->storage == NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <data source=\"remote\">: the platform has no storage host for "
                           "the object store; expected a cluster with a nic, or a host with "
                           "property role=storage",
                           sc->path, ts->data.line);
    return check_crashes(j, err);
}

void job_record_numerics(const struct job *j, struct run_record *rec)
{
    const struct numerics *nm = j->nm;
    if (nm == NULL) return;
    rec->numerics = true;
    rec->target_accuracy = nm->spec->target;
    run_config_num(rec, "numerics_lr", "%g", nm->lr);
    run_config_num(rec, "numerics_params", "%zu", nm->net.nparams);
    if (nm->spec->cost_model) {
        run_config_str(rec, "cost_model_proxy", nm->spec->cost_model);
        snprintf(rec->proxy, sizeof rec->proxy, "%s", nm->spec->cost_model);
    }
}

struct kernel_costs job_kernel_costs(const struct train_spec *ts)
{
    return (struct kernel_costs){.launch_s = ts->kernel_launch_s,
                                 .per_tensor_opt = ts->per_tensor_opt,
                                 .host = ts->host,
                                 .autocast = ts->autocast};
}

void job_record_compute(struct run_record *rec, const struct worker_amounts *a,
                        const struct gpu_model *gpu, enum gpu_dtype dtype)
{
    rec->nkclasses = 0;
    rec->step_flops = 0;
    for (int i = 0; i < WORKER_CLASSES && i < RUN_KCLASSES; i++) {
        snprintf(rec->kclass_name[i], sizeof rec->kclass_name[i], "%s", worker_class_name(i));
        rec->kclass_s[i] = a->class_s[i];
        rec->kclass_flops[i] = a->class_flops[i];
        rec->kclass_bytes[i] = a->class_bytes[i];
        rec->step_flops += a->class_flops[i];
        rec->nkclasses++;
    }
    rec->host_wait_s = a->class_s[WORKER_HOST];
    rec->peak_flops = gpu->peak_flops[dtype];
    rec->peak_mem_Bps = gpu->mem_bw_Bps;
    rec->gpu = gpu;
    rec->kern_sm_s = a->sm_s;
    rec->kern_act_s = a->act_s;
}

void job_record_nominal(struct run_record *rec, const struct worker_amounts *a)
{
    rec->nominal_step_s = 0;
    for (int i = 0; i < WORKER_CLASSES; i++)
        rec->nominal_step_s += a->class_s[i];
}

/* Each GPU's activity and power over each of its steps (run_gpu_span_add) as counter tracks of
 * its own, "gpu R util (%)" and "gpu R power W", each value from the step's start. */
static void trace_gpu_spans(const struct run_record *rec)
{
    for (size_t i = 0; i < rec->ngpu_spans; i++) {
        const struct run_gpu_span *g = &rec->gpu_spans[i];
        double util, sm, w;
        run_power_gpu_span(rec, g, &util, &sm, &w);
        char u[48], p[48];
        snprintf(u, sizeof u, "gpu %d util (%%)", g->rank);
        snprintf(p, sizeof p, "gpu %d power W", g->rank);
        trace_counter(rec->trace, u, 100 * util, g->t0_s);
        trace_counter(rec->trace, p, w, g->t0_s);
    }
}

/* The events log into the trace: faults as instants, recoveries and checkpoints as slices on
 * their tracks, and the step rows as counter tracks of throughput (from a step's start, its
 * samples over its time) and samples trained. */
static void trace_log(struct run_record *rec)
{
    double samples = 0;
    for (size_t i = 0; i < rec->nev; i++) {
        const struct run_event *e = &rec->ev[i];
        char name[48] = "throughput (samples/s)";
        switch (e->kind) {
        case RUN_FAULT:
            trace_instant(rec->trace, run_event_kind_name(e->kind), e->what, e->t_s);
            break;
        case RUN_RECOVERY:
            trace_span(rec->trace, "recoveries", e->what, e->start_s, e->t_s);
            break;
        case RUN_CHECKPOINT:
            trace_span(rec->trace, "checkpoints", e->what, e->start_s, e->t_s);
            break;
        case RUN_STEP:
            if (e->side > 0) /* a side cut off from the store: its own track */
                snprintf(name, sizeof name, "throughput (samples/s), side %d", e->side);
            if (e->time_s > 0)
                trace_counter(rec->trace, name, e->samples / e->time_s, e->t_s - e->time_s);
            samples += e->samples;
            trace_counter(rec->trace, "samples trained", samples, e->t_s);
            break;
        }
    }
}

void job_finish(struct run_record *rec, const struct traffic *traffic)
{
    rec->messages = traffic_messages(traffic);
    rec->bytes = traffic_bytes(traffic);
    rec->nclasses = 0;
    for (size_t i = 0; i < traffic_nclasses(traffic) && i < RUN_CLASSES; i++) {
        double b;
        const char *name = traffic_class(traffic, i, &b);
        snprintf(rec->class_name[i], sizeof rec->class_name[i], "%s", name);
        rec->class_B[i] = b;
        rec->nclasses++;
    }
    run_finish(rec);
    run_power_finish(rec);  /* the steps' GPU activity and power */
    net_trace_flight(NULL); /* the run is over: messages stop counting */
    if (rec->trace) trace_log(rec);
    if (rec->trace && rec->gpu_tdp_w > 0) trace_gpu_spans(rec);
    for (size_t i = 0; rec->trace && i < rec->nevals; i++) { /* numerics: counter tracks */
        const struct run_eval *e = &rec->evals[i];
        char acc[40] = "test accuracy", loss[40] = "test loss";
        if (e->side > 0) { /* a side cut off from the store: its own tracks */
            snprintf(acc, sizeof acc, "test accuracy, side %d", e->side);
            snprintf(loss, sizeof loss, "test loss, side %d", e->side);
        }
        trace_counter(rec->trace, acc, e->accuracy, e->t_s);
        trace_counter(rec->trace, loss, e->loss, e->t_s);
    }
}

void job_watch(const struct job *j, struct run_record *rec)
{
    const struct scenario *sc = j->sc;
    /* the engine's own longest deadlines: checkpoint I/O and a remote read of the input */
    double longest = fmax(fmax(CKPT_IO_DEADLINE_S, LOADER_FETCH_S), sc->train.timeout_s), quiet = 0;
    longest = fmax(longest, fmax(sc->rec.rendezvous_s, sc->rec.replacement_s));
    for (size_t i = 0; j->plan && i < j->plan->n; i++) {
        const struct fault_event *e = &j->plan->ev[i];
        quiet = fmax(quiet, e->t_s);                    /* timed events: a restart to come */
        longest = fmax(longest, fmax(e->restart_s, 0)); /* a step-triggered crash's restart */
    }
    progress_watch(rec, job_store_host(j), 10 * longest, quiet);
}
