/* hybrid.h - tensor, pipeline and data parallelism composed (strategy="hybrid", <parallel>), as
 * SimGrid actors exchanging simulated messages.
 *
 * One actor per GPU, rank (t, s, d) of parallel.h, running its stage's schedule each step:
 *   forward of a microbatch: the activations received from stage s - 1 (b s h bytes in the
 *     training dtype, a message from the same tensor rank of the same replica; divided by tp
 *     with sequence parallelism), then per layer of the stage its kernels (one tensor rank's
 *     share: worker.h's roofline amounts of the model split by model_preset's tp), and after
 *     each block the two tensor-parallel all-reduces of Megatron's forward (b s h bytes each, a
 *     real collective among the tp ranks: reduce-scatter + all-gather with sequence
 *     parallelism), then the activations sent on to stage s + 1 (posted, waited at the step's
 *     end, as Megatron's batched isend);
 *   backward: the same in reverse, the activations' gradients in and out, two all-reduces a
 *     block; recomputation adds the block's forward (full) before its backward;
 *   ZeRO-3: each block's parameters all-gathered over the replicas before its forward and its
 *     backward, its gradients reduce-scattered after its backward;
 *   ZeRO-2: its gradients reduce-scattered after each microbatch's backward (it keeps only its
 *     shard; DeepSpeed reduces every micro-step);
 *   after the schedule: the gradients of its stage's share reduced over the dp replicas
 *     (all-reduce; ZeRO-1: reduce-scatter, each replica keeping the part it updates), the
 *     optimizer on its share (1 / dp of it from ZeRO-1 on), the updated parameters all-gathered
 *     (ZeRO-1 and -2). A step moves (d - 1) Psi times: 2 (plain, ZeRO-1: as data parallelism,
 *     Rajbhandari et al., SC'20, section 7), m + 1 (ZeRO-2), 3 m (ZeRO-3; ZeRO's 1.5x at m = 1);
 *     the experts' share (ep > 1) over the dp / ep replicas holding the same experts. The step
 *     ends for every rank at once (Megatron's gradient-norm all-reduce spans every rank: a
 *     barrier here).
 * Each replica's microbatches are read by its first stage's tensor rank 0, from the input
 * pipeline when there is one, and a corrupt batch's kernels are skipped (hybrid_input.h).
 * With <numerics> the step's real update follows the step's end (the MLP split by tensor and
 * pipeline, hybrid_num.h); with <recovery> a failed wait restarts the job from its last
 * checkpoint on spares or fewer replicas (hybrid_recover.h); the row's check is hybrid_check.h.
 * Collectives run the scenario's algorithm (<training algo>) on worlds of their group's hosts
 * (hygroup.h).
 */
#ifndef DMLSIM_HYBRID_H
#define DMLSIM_HYBRID_H

#include "job.h"
#include "runkit.h"

#include <stdio.h>

/* hybrid_check (the row's check) is in hybrid_check.h, hybrid_describe in hybrid_desc.h. */

/* The head of the run record: run_init and the strategy's configuration lines. */
void hybrid_begin(const struct job *j, struct run_record *rec);

/* Runs the training (calls simgrid_run, through runkit_simulate) with the services of kit
 * (runkit_open'ed for the strategy's row) into kit->rec (run_release), begun by hybrid_begin;
 * the job passed the check. */
void hybrid_run(struct runkit *kit);

#endif
