/* net_rate.h - a send with a rate bound, for net.c alone.
 *
 * SimGrid 3.32 bounds a transfer's rate in its C++ API only (s4u::Comm::set_rate, before the
 * transfer starts); the C API has no setter, so this one function is C++ behind a C header, as
 * net_sendto.h is. A bounded transfer shares its route's links as any other (max-min) and never
 * goes faster than its bound: what a transport with a per-connection limit does (NCCL's socket
 * transport, nccl_socket.h). The handle holds one reference, released by sg_comm_wait_for. */
#ifndef DMLSIM_NET_RATE_H
#define DMLSIM_NET_RATE_H

#include <simgrid/forward.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts a send of size_B whole bytes of `payload` on `mb` at most rate_Bps (> 0); its handle. */
sg_comm_t net_rate_put_start(sg_mailbox_t mb, void *payload, long size_B, double rate_Bps);

#ifdef __cplusplus
}
#endif

#endif
