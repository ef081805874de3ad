/* ar_horovod.h - Horovod's coordinator and tensor fusion for the all-reduce strategy (internal
 * to allreduce.c; fusion="horovod").
 *
 * What Horovod does (horovod/common/operations.cc, RunLoopOnce; horovod/common/global_state.h; docs
 * tensor-fusion.rst and timeline.rst): each process runs one background thread that wakes every
 * cycle (a cycle starts the cycle time after the last one started, or at once if that one's work
 * took longer). In a cycle every rank sends rank 0 the names of the tensors that became ready
 * on it since the last cycle (MPI_Gather of the list's length, then MPI_Gatherv of the list);
 * rank 0 keeps the MessageTable (tensor -> ranks that asked for it), and a tensor is ready when
 * every rank asked for it. Rank 0 then builds the response: the tensors that became ready, in
 * that order, cut into fused groups, each the longest run of consecutive ready tensors of one
 * dtype whose bytes fit in the fusion threshold (one tensor at least), and broadcasts it
 * (MPI_Bcast of its length, then of the list). Every rank performs the same responses in the same
 * order, so every rank all-reduces exactly the same fused buffers. With NCCL each response is
 * queued on Horovod's CUDA stream: copy the group's tensors into the fusion buffer, all-reduce
 * it, copy them back out (a group of one tensor is all-reduced in place, no copies), while the
 * background thread goes on to its next cycle.
 *
 * Here: a worker's background loop is an actor on its GPU host (horovod_actor) and Horovod's
 * stream a second one. The gathers and broadcasts are real messages between the members'
 * hosts on the membership's world (mailboxes per membership), so negotiation costs what the
 * network charges and grows with the members: Open MPI's gather is linear (every rank sends to
 * the root at once) and its broadcast of small messages a binomial tree, ceil(log2 n) rounds
 * (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c: gather basic_linear; bcast binomial below
 * 2 KiB). The tables' contents travel in shared memory while the messages carry their bytes:
 * rank 0 reads a rank's list only after that rank's gather message reached it, and a rank reads
 * the response only after the broadcast reached it, so no rank sees anything early. The fusion
 * copies read and write the group's bytes at the GPU's memory-bound rate (memory bandwidth, the
 * GPU table of catalog.c, x the calibration's memory efficiency), on the stream, before and after
 * the all-reduce. Cycles run while a step has tensors left to answer; between steps the loop
 * idles on the grid of cycle starts, an idle cycle (empty lists) being taken to cost nothing.
 * Failures: a failed negotiation or collective fails the step on that rank, which stops
 * negotiating the step (the others time out or fail on its messages) and hands back the step's
 * buckets; the elastic recovery of allreduce.c then forms the next membership, whose world and
 * message table are new.
 */
#ifndef DMLSIM_AR_HOROVOD_H
#define DMLSIM_AR_HOROVOD_H

/* Bytes on the wire of the negotiation, from the FlatBuffers schema of Horovod's messages
 * (horovod/common/wire/mpi_message.fbs): an MPIRequest is 4 ints or bytes, a name and a shape of
 * int64s; with FlatBuffers' vtable and offsets about 60 B, plus a 4-dimensional shape (32 B) and
 * a tensor name of 64 characters (TensorFlow's gradient op names behind "HorovodAllreduce_":
 * "HorovodAllreduce_gradients_AddN_2_0" in Horovod's troubleshooting doc, longer in deep models).
 * An MPIResponse holds its type, its names (length-prefixed strings) and one device int per rank.
 * These bytes matter little next to the messages' latency. */
#define HOROVOD_LEN_B      4.0   /* MPI_Gather / MPI_Bcast of one int: a list's length */
#define HOROVOD_LIST_B     16.0  /* a request or response list's table and vector header */
#define HOROVOD_REQUEST_B  156.0 /* one MPIRequest: 60 B of fields, 32 B of shape, 64 B name */
#define HOROVOD_RESPONSE_B 24.0  /* one MPIResponse's table, type and vector headers */
#define HOROVOD_NAME_B     72.0  /* one name in a response: offset, length, 64 characters */
#define HOROVOD_DEVICE_B   4.0   /* one rank's device id in a response */

struct hv_table;
struct hv_rank;

/* The background loop of the worker set as the actor's data (struct worker, ar_state.h): started
 * by allreduce.c in place of the comm actor, as a daemon on the worker's GPU host; it starts
 * its stream actor there. */
void horovod_actor(int argc, char **argv);

/* Frees a membership's message table / a worker's Horovod state (NULL: nothing). */
void horovod_table_free(struct hv_table *tb);
void horovod_rank_free(struct hv_rank *r);

#endif
