/* job.h - what every strategy is given, and the services they share around a run.
 *
 * A job is the validated input of one training run: the scenario, the loaded platform, the
 * model, the calibration, the fault plan and the input hook. It is checked once, by the
 * strategy's check (strategy.h), before anything is printed or simulated; run functions assert
 * what the check established instead of checking again.
 */
#ifndef DMLSIM_JOB_H
#define DMLSIM_JOB_H

#include "calib.h"
#include "error.h"
#include "fault.h"
#include "model.h"
#include "numerics.h"
#include "platform.h"
#include "run.h"
#include "scenario.h"
#include "traffic.h"
#include "worker.h"

#include <simgrid/forward.h>

struct job {
    const struct scenario *sc;
    const struct platform *pf;
    const struct model *m;
    const struct calib *cal;
    const struct fault_plan *plan;
    struct input_hook input; /* before each forward (no wait by default) */
    struct numerics *nm;     /* <numerics>: the real training, else NULL */
};

/* The workers of a run: <training gpus>, or every GPU of the platform. */
int job_workers(const struct job *j);

/* Checks shared by every strategy: the worker count against the platform, the dtype on every
 * worker's GPU, the memory per GPU, and a store host when faults or remote checkpoints need
 * one; errors name the <training> line. */
enum dmlsim_err job_check(const struct job *j, struct dmlsim_error *err);

/* <numerics>: the settings the record shows (lr after the scaling rule, parameters) and the
 * target; nothing without <numerics>. */
void job_record_numerics(const struct job *j, struct run_record *rec);

/* The host that is never crashed: the store (role=storage), else the first CPU host, else the
 * first GPU, that no crash of the plan targets. The rendezvous, the injector and remote
 * checkpoints run there; job_check refuses a plan that crashes it. */
sg_host_t job_store_host(const struct job *j);

/* The framework's per-kernel costs of a training spec (launch, optimizer kernels, host, amp). */
struct kernel_costs job_kernel_costs(const struct train_spec *ts);

/* The compute breakdown of rank 0 (its amounts for one batch, on `gpu` in `dtype`) into the
 * record. */
void job_record_compute(struct run_record *rec, const struct worker_amounts *a,
                        const struct gpu_model *gpu, enum gpu_dtype dtype);

/* Data parallel: the scaling baseline, one GPU's step alone at its nominal speed, from `a`
 * (the amounts of one batch: the sum of its kernel classes, the update and the waits for the
 * host included, on an unloaded GPU), into rec->nominal_step_s. */
void job_record_nominal(struct run_record *rec, const struct worker_amounts *a);

/* Starts the simulation's watchdog (progress.h) on the store host: a run in which nothing
 * progresses for ten times the longest deadline of the job (the watchdog, the recovery's waits,
 * the engine's I/O deadlines, a restart delay of the plan) after the plan's last timed fault ends,
 * the job failed. Call after inject_start. */
void job_watch(const struct job *j, struct run_record *rec);

/* After simgrid_run: the traffic's totals and classes into the record, run_finish, and into the
 * trace (if any) the events log: faults as instants, recoveries and checkpoints as slices, steps
 * as the throughput and samples counters; the bytes in flight stop being counted (net.h). */
void job_finish(struct run_record *rec, const struct traffic *traffic);

#endif
