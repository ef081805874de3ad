/* ps_msg.h - the parameter server's messages: who owns them, the mailboxes they go through, what
 * they cost a CPU, and the names its actors start under (internal to ps*.c).
 *
 * Every message lives in the run's list (c->msgs, owned.h), so that what a crash or the run's
 * end leaves behind is freed at teardown (ps_msg_new says who owns it when). SimGrid finds a
 * mailbox by its name, so a sender and its receiver meet only if they spell it alike: every
 * mailbox of the run is named here (but "coordinator", whose users spell it), from a format and
 * one or two numbers, and every actor through ps_msg_start. Transfers go through net.h:
 * ps_msg_send, or net_isend by a caller that adds the bytes to c->traffic itself.
 */
#ifndef DMLSIM_PS_MSG_H
#define DMLSIM_PS_MSG_H

#include "net.h"
#include "ps_state.h"

#include <simgrid/forward.h>
#include <xbt/function_types.h>

#include <stdbool.h>
#include <stddef.h>

#define REQUEST_B 64.0 /* a pull request or a verdict: a small control message */

/* The CPU time one end of a message spends on it (serialisation, RPC), and for a GPU-side tensor
 * its copy between GPU and host memory; slept by the actor that pays it. */
void ps_msg_cost(const struct ps_ctx *c, double bytes, bool gpu_side, int msgs);

/* The copy of `bytes` between GPU and host memory that a GPU-side tensor takes on transport
 * `tp` (0 for a host-side tensor, or a transport whose NIC reads GPU memory). */
double ps_msg_copy_s(const struct transport *tp, double bytes, bool gpu_side);

/* Port (k, r)'s mailbox, "ps<k><w<r>": worker r's pulls and pushes to shard k. */
sg_mailbox_t ps_msg_to_port(int k, int r);

/* Worker r's mailbox from shard k, "w<r><ps<k>": parameters and verdicts. */
sg_mailbox_t ps_msg_to_worker(int r, int k);

/* Follower f's mailbox, "w<f><lead0": the parameters its leader copies to it. */
sg_mailbox_t ps_msg_to_follower(int f);

/* Leader l's mailbox from its follower f, "lead<l><w<f>": f's gradient. */
sg_mailbox_t ps_msg_to_leader(int l, int f);

/* The coordinator's answers to worker `rank`'s actor `buf` (its shard_bufs),
 * "w<rank><coord<buf>". */
sg_mailbox_t ps_msg_reply_box(int rank, int buf);

/* A message is in the run's list from its creation until its owner (the sender while it is not
 * delivered, then the receiver) frees it; an actor killed by a crash, or a daemon by the end of
 * the run, leaves its messages to teardown. */
struct ps_msg *ps_msg_new(struct ps_ctx *c, enum msg_type type, int version);

/* A message carrying n floats (numerics). */
struct ps_msg *ps_msg_new_data(struct ps_ctx *c, enum msg_type type, int version, size_t n);

/* Frees m (its owner does); NULL is a no-op. */
void ps_msg_free(struct ps_ctx *c, struct ps_msg *m);

/* A push record and the push it holds. */
void ps_msg_rec_free(struct ps_ctx *c, struct push_rec *r);

/* Sends and accounts; a message that did not go through stays ours and is freed. */
enum net_status ps_msg_send(struct ps_ctx *c, sg_host_t from, sg_host_t to, sg_mailbox_t mb,
                            struct ps_msg *m, double size_B);

/* Starts an actor named by fmt with a and b (snprintf) on `host`, running `code` with `data`; a
 * daemon if `daemon` (the simulation ends without waiting for it). */
void ps_msg_start(const char *fmt, int a, int b, sg_host_t host, xbt_main_func_t code, void *data,
                  bool daemon);

#endif
