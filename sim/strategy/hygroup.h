/* hygroup.h - the hybrid strategy's collective groups: which ranks each group holds, its worlds.
 *
 * A rank of the hybrid strategy (hybrid.h) has coordinates (t, s, d): its tensor rank, its
 * pipeline stage and its data-parallel replica (parallel.h's par_coords). Its collectives run in
 * groups of a kind: tensor (the tp ranks of a stage of a replica), data (the dp replicas of a
 * tensor rank of a stage), expert (ep consecutive replicas) and expert-data (the dp / ep replicas
 * holding the same experts), numbered here; each group is a collective world (collective.h) of
 * its members' hosts in their positions. Moved from hybrid.c, which keeps the schedule.
 * With context parallelism (cp > 1, context rank c): the context groups are the cp ranks of a
 * (t, s, d) (the all-gather of the keys and values, cp-comm="all-gather"; the ring's sends go
 * through mailboxes: hy_cp.h); the data groups hold the dp x cp ranks of a (t, s), which hold
 * the same parameters (Megatron-Core reduces the gradients over its DP-CP group:
 * parallel_state.get_data_parallel_group(with_context_parallel=True)), position c + cp d; the
 * expert groups are those of a (t, c, s), the expert-data groups the cp dp / ep ranks holding
 * the same experts.
 */
#ifndef DMLSIM_HYGROUP_H
#define DMLSIM_HYGROUP_H

#include "collective.h"
#include "job.h"
#include "parallel.h"

/* The kinds of groups. HYGROUP_DPG and HYGROUP_EDPG: the data and expert-data groups again, for
 * ZeRO-3's prefetched gathers (an actor of their own runs them beside the rank's reduce-scatters:
 * mailboxes of their own). */
enum {
    HYGROUP_TP,
    HYGROUP_DP,
    HYGROUP_EP,
    HYGROUP_EDP,
    HYGROUP_DPG,
    HYGROUP_EDPG,
    HYGROUP_CP,
    HYGROUP_KINDS
};

/* The group of `kind` rank (t, c, s, d) belongs to, and its position in it. */
int hygroup_of(const struct parallel_spec *p, int kind, int t, int c, int s, int d, int *pos);

/* The ranks of a group of `kind`. */
int hygroup_size(const struct parallel_spec *p, int kind);

/* The ng groups of `kind` as worlds w[0..ng) of their members' hosts in their positions (worlds
 * of their own: collective_world_release), from one pass over the P ranks (a pass per group was
 * O(P^2 / group size): 2% of a 16,352-GPU step). */
void hygroup_worlds(const struct parallel_spec *p, const struct platform *pf, int P, int kind,
                    int ng, double timeout_s, struct coll_world *w);

/* Groups of `kind` that collectives run in: none when a group is one rank, and no expert-data
 * groups without expert parallelism (the data groups serve). */
int hygroup_used(const struct parallel_spec *p, int kind);

/* NULL if the scenario's algorithm can run every collective of every group of job j on its hosts
 * (the all-to-all is the same pairwise sends for any), else why not. */
const char *hygroup_check(const struct job *j);

#endif
