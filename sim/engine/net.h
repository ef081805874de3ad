/* net.h - point-to-point transfers with deadlines: the only module that calls SimGrid's comm API.
 *
 * SimGrid's blocking put/get abort the whole process when the peer dies, and a put to a dead
 * actor's mailbox never fails by itself (see ../shared/reference/simgrid-notes.md). So every
 * transfer here is asynchronous plus sg_comm_wait_for with a deadline, and failures come back as
 * values: a crashed peer or a cut link is NET_FAILURE, a silent peer NET_TIMEOUT. These are model
 * events for the caller to record, never program errors.
 *
 * Ownership: a payload belongs to the receiver after a successful receive and stays with the
 * sender otherwise (net_send returns it untouched on failure; the caller frees it).
 *
 * Bytes in flight (a trace's counter track): while a trace is set (net_trace_flight), every send
 * adds its bytes when it is posted and takes them off when its wait returns, done, failed or
 * timed out; a sender's host that goes down takes its sends off with it (net_host_down), since
 * its actors never wait again. Sends in flight are found by their handle in a hash table, so a
 * message costs O(1); without a trace nothing is recorded or looked up.
 */
#ifndef DMLSIM_NET_H
#define DMLSIM_NET_H

#include <simgrid/forward.h>

enum net_status {
    NET_OK,      /* transfer complete */
    NET_TIMEOUT, /* the deadline passed first */
    NET_FAILURE, /* the peer's host or a link on the route failed */
};

/* Sends `payload` (not NULL) to mailbox `mb` as a simulated message of size_B bytes, waiting at
 * most timeout_s simulated seconds for it to be received. */
enum net_status net_send(sg_mailbox_t mb, void *payload, double size_B, double timeout_s);

/* Receives one message from `mb` into *payload, waiting at most timeout_s. */
enum net_status net_recv(sg_mailbox_t mb, void **payload, double timeout_s);

/* Non-blocking halves, for protocols that send and receive at once (a ring step, a tree node
 * waiting on two children): post with net_isend / net_irecv, then net_wait each handle, which
 * waits until the absolute simulated time deadline_s at most and releases the handle. */
sg_comm_t net_isend(sg_mailbox_t mb, void *payload, double size_B);
sg_comm_t net_irecv(sg_mailbox_t mb, void **payload);
/* net_isend with a rate bound: the transfer shares its links as any other and never moves faster
 * than rate_Bps (a transport's per-connection limit: NCCL's sockets); rate_Bps <= 0: none. */
sg_comm_t net_isend_bounded(sg_mailbox_t mb, void *payload, double size_B, double rate_Bps);
/* A flow of size_B from host `from` to host `to` that no actor sends or receives (a switch's
 * side of a flow-level protocol, posted by the GPU's actor); wait for it with net_wait. It fails
 * if either host or a link of the route fails. */
sg_comm_t net_sendto(sg_host_t from, sg_host_t to, double size_B);
enum net_status net_wait(sg_comm_t comm, double deadline_s);

const char *net_status_str(enum net_status st);

/* The worse of two outcomes (failure over timeout over success): a step's status from its
 * transfers'. */
enum net_status net_worst(enum net_status a, enum net_status b);

struct trace;

/* Counts the bytes of the messages in flight from now on into the counter track "bytes in
 * flight (B)" of `tr` (not owned); NULL stops counting and forgets the sends in flight. One
 * setting per process, as there is one simulation (SimGrid's engine) per process. */
void net_trace_flight(struct trace *tr);

/* Host `h` is going down: its sends in flight stop counting (call before turning it off). */
void net_host_down(sg_host_t h);

#endif
