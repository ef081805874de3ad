/* nccl_socket.h - NCCL's socket transport: what a network connection costs when the NIC is
 * plain TCP (a LINK_TCP class) instead of RDMA. Plain data, no SimGrid.
 *
 * Source: NCCL 2.4 src/transport/net_socket.cc (NVIDIA/nccl commit 06abb3b7), and NCCL's env
 * documentation (NCCL_SOCKET_NTHREADS, NCCL_NSOCKS_PERTHREAD, since 2.4.8):
 *   - a connection (one per channel and peer) opens nThreads x nSocksPerThread data sockets,
 *     served by nThreads helper threads: NCCL_SOCKET_NTHREADS 1..16 (MAX_THREADS), their product
 *     at most MAX_SOCKETS 64. Auto-detection (the value -2) gives 2 x 8 for an AWS NIC (PCI
 *     vendor 0x1d0f) and 1 x 1 otherwise; no catalog class is an AWS NIC, so unset means 1 x 1.
 *   - each message is cut into tasks of max(MIN_CHUNKSIZE 64 KiB, size / nSocks) bytes, dealt
 *     round robin over the sockets, so a message of m bytes keeps min(nSocks, ceil(m / 64 KiB))
 *     sockets busy. A socket is one TCP stream and moves what one stream moves (catalog:
 *     stream_Bps, iperf with one stream); the connection moves at most its busy sockets' sum:
 *     "the NCCL bandwidth will be the minimum speed of the sockets multiplied by the number of
 *     sockets" (sjeaugey, NVIDIA/nccl-tests issue #83). The NIC's line rate (the platform's
 *     link) bounds the sum of all connections through it.
 *   - sockets take host memory only (ncclSocketPtrSupport: NCCL_PTR_HOST): no GPUDirect RDMA.
 *     The sender's kernel writes each FIFO slot over PCIe into host memory before the helper
 *     thread can send() it; the receiver's kernel reads it back over PCIe after recv(). The
 *     stages pipeline slot by slot (Simple: NCCL_STEPS 8 slots of a 4 MiB buffer, 512 KiB
 *     each), so a network hop of m bytes costs the wire's time plus one slot written before it
 *     and one read after it: 2 min(m, 512 KiB) / (PCIe rate), beyond the hop's latency.
 *   - NCCL copies nothing itself (socketProgress calls send()/recv() on the host buffer): the
 *     helper thread's copy is the kernel's, inside the single-stream iperf figure; the kernel
 *     TCP stack's latency per message is the TCP class's hop latency (netperf TCP_RR, catalog),
 *     already on the route. Neither is added a second time.
 * RDMA classes (InfiniBand, RoCE) have none of this.
 */
#ifndef DMLSIM_NCCL_SOCKET_H
#define DMLSIM_NCCL_SOCKET_H

#include "nccl_tune.h"

#define NCCL_SOCKET_MAX_THREADS 16       /* net_socket.cc MAX_THREADS */
#define NCCL_SOCKET_MAX_SOCKETS 64       /* net_socket.cc MAX_SOCKETS */
#define NCCL_SOCKET_MIN_TASK_B  65536.0  /* net_socket.cc MIN_CHUNKSIZE (64 KiB) */
#define NCCL_SOCKET_SLOT_B      524288.0 /* Simple FIFO slot: 4 MiB NCCL_BUFFSIZE / NCCL_STEPS 8 */

/* Helper threads and sockets per thread of options o: the scenario's, else NCCL's auto-detect
 * for a non-AWS NIC (1 and 1). */
int nccl_socket_threads(const struct nccl_opts *o);
int nccl_socket_per_thread(const struct nccl_opts *o);
/* Data sockets per connection: threads x sockets per thread (the options are checked to keep it
 * at most 64). */
int nccl_socket_count(const struct nccl_opts *o);

/* Sockets a message of msg_B keeps busy: min(nsocks, ceil(msg_B / 64 KiB)), at least 1. */
int nccl_socket_busy(int nsocks, double msg_B);

/* One connection's rate bound for messages of msg_B, B/s: busy sockets x one stream's rate. */
double nccl_socket_conn_Bps(int nsocks, double stream_Bps, double msg_B);

/* What host staging adds to one network hop of msg_B: one FIFO slot (or the message, if
 * smaller) written to host memory and one read back, each at pcie_Bps. */
double nccl_socket_stage_s(double msg_B, double pcie_Bps);

#endif
