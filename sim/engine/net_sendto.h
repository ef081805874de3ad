/* net_sendto.h - a flow between two hosts with no actor on either side, for net.c alone.
 *
 * SimGrid 3.32 offers it in its C++ API only (s4u::Comm::sendto_async; the C API's
 * sg_host_sendto blocks), so this one function is C++ behind a C header. The flow-level
 * NVLS and CollNet protocols need it: their far end is a switch (the NVSwitch that reduces, the
 * SHARP aggregation switch), where the message level runs an actor per call only to receive and
 * send. The handle is a plain sg_comm_t holding one reference, released by sg_comm_wait_for as
 * for the C API's own asynchronous sends (net_wait). */
#ifndef DMLSIM_NET_SENDTO_H
#define DMLSIM_NET_SENDTO_H

#include <simgrid/forward.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts a flow of size_B whole bytes from `from` to `to`; its handle. */
sg_comm_t net_sendto_start(sg_host_t from, sg_host_t to, long size_B);

#ifdef __cplusplus
}
#endif

#endif
