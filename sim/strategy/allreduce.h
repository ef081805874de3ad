/* allreduce.h - synchronous data parallelism with all-reduce, simulated step by step.
 *
 * Each worker (one per GPU) is two SimGrid actors on its GPU host:
 *   compute: forward, backward in reverse layer order, then the optimizer update, as execs of
 *            the amounts worker.h gives, so a slower host slows exactly the compute;
 *   comm:    all-reduces the gradient buckets in order with the scenario's algorithm, one at a
 *            time, as real messages (collective.h).
 * Buckets are filled in backward order as PyTorch DDP's (ddp_bucket.h): the first closes once it
 * holds at least 1 MiB of gradients, the others `bucket` bytes; DDP's hooks (a kernel per
 * gradient, the collective's launch by the host, the copies back after the last all-reduce) cost
 * what ddp_bucket.h says. With overlap on, a bucket is handed to the comm actor as soon as
 * the layer that closes it finishes its backward, so its all-reduce runs during the rest of the
 * backward; with overlap off, all buckets are handed over after the backward. The update starts
 * when every bucket is reduced; a step is committed when the last member's update ends.
 * Failures go through the elastic recovery (elastic.h: memberships, states, split brain; its
 * rendezvous in rendezvous.h) and the shared injector (inject.h, set up by runkit.h); the leader
 * (the first member) watches for persistent stragglers and writes checkpoints.
 * Everything reported is read off the simulation's events; nothing is computed from a formula.
 */
#ifndef DMLSIM_ALLREDUCE_H
#define DMLSIM_ALLREDUCE_H

#include "job.h"
#include "runkit.h"

#include <stdio.h>

/* The job's checks (job_check) and the algorithm's on the job's workers. */
enum dmlsim_err allreduce_check(const struct job *j, struct dmlsim_error *err);

/* The "# training" and "# buckets" configuration lines. */
void allreduce_describe(const struct job *j, FILE *out);

/* The head of the run record: run_init and the strategy's configuration lines. */
void allreduce_begin(const struct job *j, struct run_record *rec);

/* Runs the training (calls simgrid_run, through runkit_simulate) with the services of kit
 * (runkit_open'ed for the strategy's row) into kit->rec (run_release), begun by allreduce_begin;
 * the job passed the check. */
void allreduce_run(struct runkit *kit);

#endif
