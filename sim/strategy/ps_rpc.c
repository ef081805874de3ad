/* ps_rpc.c - gRPC's threads on each process of a parameter-server run (see ps_rpc.h). */
#include "ps_rpc.h"

#include "catalog.h"
#include "ps_msg.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One side of a process: when each of its threads is free again, and the CPU host it runs on
 * (NULL: none known; the work is then slept). */
struct rpc_pool {
    double *free_s; /* per thread: when its last reserved work ends (s) */
    sg_host_t host; /* the process's CPU host */
};

/* The node's CPU host of GPU rank r (same "node" property), or NULL. */
static sg_host_t node_cpu(const struct platform *pf, int r)
{
    const char *node = sg_host_get_property_value(pf->gpus[r], "node");
    for (size_t i = 0; node && i < pf->ncpus; i++) {
        const char *other = sg_host_get_property_value(pf->cpu_hosts[i], "node");
        if (other && strcmp(node, other) == 0) return pf->cpu_hosts[i];
    }
    return NULL;
}

bool ps_rpc_in_process(const struct ps_ctx *c)
{
    if (c->sc->train.ps.dedicated || c->pf->ncpus != 1) return false;
    for (int r = 0; r < c->P; r++)
        if (node_cpu(c->pf, r) != c->pf->cpu_hosts[0]) return false;
    return true;
}

static void pool_init(struct rpc_pool *p, int threads, sg_host_t host)
{
    p->free_s = xbt_new0(double, threads);
    p->host = host;
}

void ps_rpc_init(struct ps_ctx *c)
{
    const struct transport *tp = c->sc->train.ps.transport;
    c->in_process = tp != NULL && tp->threads > 0 && ps_rpc_in_process(c);
    if (tp == NULL || tp->threads == 0 || c->in_process) return;
    /* pools 2 k, 2 k + 1: shard k's sides; 2 (K + q), 2 (K + q) + 1: worker process q's, q the
     * first rank on its node */
    c->rpc = xbt_new0(struct rpc_pool, 2 * ((size_t)c->K + c->P));
    c->rpc_proc = xbt_new0(int, c->P);
    for (int k = 0; k < c->K; k++)
        for (int side = 0; side < 2; side++)
            pool_init(&c->rpc[2 * k + side], tp->threads, c->shards[k].host);
    for (int r = 0; r < c->P; r++) {
        sg_host_t cpu = node_cpu(c->pf, r);
        int q = r;
        for (int o = 0; cpu && o < r && q == r; o++)
            if (node_cpu(c->pf, o) == cpu) q = c->rpc_proc[o];
        c->rpc_proc[r] = q;
        if (q != r) continue;
        for (int side = 0; side < 2; side++)
            pool_init(&c->rpc[2 * (c->K + r) + side], tp->threads, cpu);
    }
}

void ps_rpc_release(struct ps_ctx *c)
{
    for (size_t i = 0; c->rpc && i < 2 * ((size_t)c->K + c->P); i++)
        free(c->rpc[i].free_s);
    free(c->rpc);
    free(c->rpc_proc);
    c->rpc = NULL;
    c->rpc_proc = NULL;
}

/* Work of t seconds on one core of the pool's host, on the thread that frees first: the caller
 * waits for its turn, then for the work (an execution of one core: the host's speed over its
 * cores, bounded there, so it shares the CPU with whatever else runs on it). */
static void pool_run(struct rpc_pool *p, int threads, double t)
{
    int i = 0;
    for (int j = 1; j < threads; j++)
        if (p->free_s[j] < p->free_s[i]) i = j;
    double now = simgrid_get_clock(), start = fmax(now, p->free_s[i]);
    p->free_s[i] = start + t;
    if (start > now) sg_actor_sleep_for(start - now);
    if (p->host == NULL) {
        sg_actor_sleep_for(t);
        return;
    }
    double core_flops = sg_host_get_speed(p->host) / CATALOG_CPU_CORES;
    sg_exec_t e = sg_actor_exec_init(t * core_flops);
    sg_exec_set_host(e, p->host);
    sg_exec_set_bound(e, core_flops);
    sg_exec_start(e);
    sg_exec_wait(e); /* a crash of the host ends it: the message is lost with its process */
}

/* A message end's work: msg_s per RPC, and on the receiving side byte_s per byte; the sender's
 * tensor bytes are not copied (a tensor over kLargeTensorBytes = 1024 goes out as a grpc::Slice
 * pointing at its buffer, tensorflow/core/distributed_runtime/rpc/grpc_tensor_coding.cc), the
 * receiver parses them into a new tensor. */
static double work_s(const struct transport *tp, enum rpc_side side, double bytes, int msgs)
{
    return msgs * tp->msg_s + (side == RPC_CLIENT ? bytes * tp->byte_s : 0);
}

void ps_rpc_shard(struct ps_ctx *c, const struct shard *s, enum rpc_side side, double bytes,
                  int msgs)
{
    const struct transport *tp = c->sc->train.ps.transport;
    if (c->in_process) return;
    if (c->rpc == NULL) {
        ps_msg_cost(c, bytes, false, msgs);
        return;
    }
    pool_run(&c->rpc[2 * s->id + side], tp->threads, work_s(tp, side, bytes, msgs));
}

void ps_rpc_worker(struct ps_ctx *c, int r, enum rpc_side side, double bytes, bool gpu_side,
                   int msgs)
{
    const struct transport *tp = c->sc->train.ps.transport;
    if (c->in_process) return;
    if (c->rpc == NULL) {
        ps_msg_cost(c, bytes, gpu_side, msgs);
        return;
    }
    double copy_s = ps_msg_copy_s(tp, bytes, gpu_side);
    if (side == RPC_SERVE && copy_s > 0) sg_actor_sleep_for(copy_s); /* out of the GPU first */
    pool_run(&c->rpc[2 * (c->K + c->rpc_proc[r]) + side], tp->threads,
             work_s(tp, side, bytes, msgs));
    if (side == RPC_CLIENT && copy_s > 0) sg_actor_sleep_for(copy_s); /* then into the GPU */
}
