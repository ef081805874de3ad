/* coll_replay.h - memoized steady states: a flow-level collective replayed from an identical
 * earlier one on links that carry nothing else.
 *
 * In a training step the same collectives come back again and again (a transformer block's
 * tensor-parallel all-reduces, every microbatch, every step), and where a world's links carry no
 * other traffic each of them is the same simulation with the same result: the time from the
 * ranks' common arrival to each rank's end, and the bytes each rank sends. Wormhole (Shi et al.,
 * NSDI 2025) memoizes such steady states of packet-level simulation; here a world may replay a
 * call when
 *   - its owner says its links carry nothing but its own collectives (coll_world.replay: the
 *     hybrid strategy sets it for a tensor-parallel group alone on its node's NVLink ports, in a
 *     run whose fault plan is empty);
 *   - the same operation of the same size ran before, fully simulated, with every rank arriving
 *     at the same instant and ending without failure;
 *   - every rank arrives at the same instant now (a gate: the last to arrive sees the spread).
 * Then each rank sleeps its recorded time and its recorded sends are added to the traffic; else
 * the call is simulated in full (and recorded, when it qualifies). Exact under those conditions:
 * the flows of a call on idle links depend on nothing but their arrival times, which are equal
 * (tests/check_nccl.c compares a run with and without replay byte for byte, and one whose links
 * carry other traffic, which must not replay).
 */
#ifndef DMLSIM_COLL_REPLAY_H
#define DMLSIM_COLL_REPLAY_H

#include "coll_op.h"
#include "net.h"

#include <simgrid/forward.h>

#include <stdbool.h>

struct traffic;
struct coll_replay; /* a world's recorded calls (owned by the world: coll_world.rp) */

/* A gate where the ranks of a call wait for the last of them (flow-level NVLS and CollNet, whose
 * switch reduces only what every rank sent, and replay). Zero-initialised; coll_gate_free. */
struct coll_gate {
    sg_sem_t sem;    /* made on first use */
    int arrived;     /* ranks at the gate of this call */
    double first_s;  /* the first one's arrival */
    double spread_s; /* the last call's arrival spread, set by its last rank */
};

/* This rank comes to the gate of n ranks: true when all have come, false if the others do not
 * come within timeout_s. */
bool coll_gate_pass(struct coll_gate *g, int n, double timeout_s);
void coll_gate_free(struct coll_gate *g);

/* What of a world a replay needs: its ranks, its deadline, where its sends are counted. */
struct replay_world {
    struct coll_replay **rp; /* the world's records, made on first use */
    int nranks;
    double timeout_s;
    struct traffic *traffic; /* may be NULL */
    double *sent_msgs;       /* per rank; may be NULL */
};

/* The outcome of a replay attempt: REPLAYED (the call is done), or SIMULATE with *rec set to
 * where the simulation must record itself (NULL: nothing to record), or the gate's failure. */
enum replay_result { REPLAY_DONE, REPLAY_SIMULATE, REPLAY_FAILED };

/* Rank `rank` comes to `op` of size_B on w (w->replay set): waits at the gate for every rank,
 * then replays the call or says to simulate it. */
enum replay_result coll_replay_enter(const struct replay_world *w, enum coll_op op, int rank,
                                     double size_B);

/* After a simulated call entered with REPLAY_SIMULATE: rank `rank` ended with status st. */
void coll_replay_leave(struct coll_replay *r, int rank, enum net_status st);

/* A send of the call being recorded: rank me's size_B from host `from` to `to` (traffic). */
void coll_replay_note(struct coll_replay *r, int me, sg_host_t from, sg_host_t to,
                      double size_B);

/* Rank parts replayed so far (NULL: 0). */
long coll_replay_hits(const struct coll_replay *r);

/* Frees a world's records (NULL: nothing). */
void coll_replay_free(struct coll_replay *r);

#endif
