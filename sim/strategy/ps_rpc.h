/* ps_rpc.h - gRPC's threads: the CPU work of each end of a parameter-server message, done on the
 * bounded threads of the process at that end (internal to ps*.c).
 *
 * Model (a transport with threads > 0, catalog.h; grpc-tcp): every tensor moves by RecvTensor,
 * which the receiver asks of the tensor's owner, so each process has two sides: the server side
 * serialises what it is asked for (a PS task its parameters, a worker its gradients), the client
 * side deserialises what it asked for. TensorFlow 1.x drives each side with one thread:
 * GrpcServer::Start starts one "TF_worker_service" thread running HandleRPCsLoop over the
 * service's completion queue (tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc), and
 * GrpcWorkerCache one "grpc_worker_cache" thread polling the client's completion queue ("TODO:
 * replacing this thread with a threadpool", grpc_worker_cache.cc). A side is a pool of
 * `threads` threads; a message's work, msgs x msg_s, plus bytes x byte_s on the receiving side
 * only (the sender's tensor goes out as a slice pointing at its buffer, not copied: a tensor over
 * kLargeTensorBytes = 1024, grpc_tensor_coding.cc; the receiver parses it into a new tensor:
 * TensorFlow's RecvTensor at 0.9 GB/s, issue #6116, is that end), takes the pool's thread
 * that frees first, in the order the messages come, and runs there as an execution of one core
 * on the process's CPU host (its node's CPU for a worker, the shard's host for a PS task): so N
 * workers' pushes to one PS task take ceil(N / threads) turns of its client side, and the PS
 * task holding a huge tensor (VGG-16's fc6) is the hot one. A PS task is a process per shard; a
 * worker process is one per node (tf_cnn_benchmarks runs one worker task per machine driving its
 * GPUs), or per GPU where no node is known. A thread is reserved, not locked: a crash that kills
 * the actor using it leaves the thread busy until the work would have ended, never forever.
 * One process: when every worker and shard share one node's CPU (nodes="1", placement
 * colocated: tf_cnn_benchmarks' single-machine parameter_server, one process with a tower per
 * GPU) tensors move through the in-process rendezvous, not gRPC: no work here and no staging
 * copy (TensorFlow copies between GPU and its pinned host allocator); the PCIe transfer is the
 * platform's. Transports with threads = 0 (ideal, rdma) keep a per-message sleep on each end
 * (ps_msg_cost).
 */
#ifndef DMLSIM_PS_RPC_H
#define DMLSIM_PS_RPC_H

#include "ps_state.h"

#include <stdbool.h>

/* The side of a process a message's work runs on. */
enum rpc_side {
    RPC_SERVE, /* answers RecvTensor: serialises the tensor it owns */
    RPC_CLIENT /* asked for the tensor: sends the request, deserialises the answer */
};

/* The pools of the run's processes (c->rpc); none when the transport has no threads. */
void ps_rpc_init(struct ps_ctx *c);
void ps_rpc_release(struct ps_ctx *c);

/* Does the run move tensors in one process (no gRPC)? */
bool ps_rpc_in_process(const struct ps_ctx *c);

/* The work of shard s's end of a message of `bytes` in `msgs` RPCs, on its `side`. */
void ps_rpc_shard(struct ps_ctx *c, const struct shard *s, enum rpc_side side, double bytes,
                  int msgs);

/* The work of worker r's end, on its process's `side`; `gpu_side`: the tensor is copied between
 * the GPU and host memory (catalog.h copy_Bps) before it is serialised or after it is read. */
void ps_rpc_worker(struct ps_ctx *c, int r, enum rpc_side side, double bytes, bool gpu_side,
                   int msgs);

#endif
