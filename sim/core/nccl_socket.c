/* nccl_socket.c - NCCL's socket transport (see nccl_socket.h). */
#include "nccl_socket.h"

#include <math.h>

int nccl_socket_threads(const struct nccl_opts *o)
{
    return o->socket_nthreads > 0 ? o->socket_nthreads : 1; /* auto-detect, non-AWS: 1 */
}

int nccl_socket_per_thread(const struct nccl_opts *o)
{
    return o->nsocks_perthread > 0 ? o->nsocks_perthread : 1; /* auto-detect, non-AWS: 1 */
}

int nccl_socket_count(const struct nccl_opts *o)
{
    return nccl_socket_threads(o) * nccl_socket_per_thread(o);
}

int nccl_socket_busy(int nsocks, double msg_B)
{
    double tasks = ceil(msg_B / NCCL_SOCKET_MIN_TASK_B);
    int k = tasks < nsocks ? (int)tasks : nsocks;
    return k < 1 ? 1 : k;
}

double nccl_socket_conn_Bps(int nsocks, double stream_Bps, double msg_B)
{
    return nccl_socket_busy(nsocks, msg_B) * stream_Bps;
}

double nccl_socket_stage_s(double msg_B, double pcie_Bps)
{
    return 2 * fmin(msg_B, NCCL_SOCKET_SLOT_B) / pcie_Bps;
}
