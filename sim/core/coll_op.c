/* coll_op.c - names and capabilities of the collectives (see coll_op.h). */
#include "coll_op.h"

#include <stdio.h>
#include <string.h>

struct info {
    const char *name;
    unsigned ops;
    bool flow, data;
};

static const struct info infos[] = {
#define COLL_X_INFO(id, name, ops, flow, data, check, run, describe) {name, ops, flow, data},
        COLL_ALGO_TABLE(COLL_X_INFO)
#undef COLL_X_INFO
};

const char *coll_algo_name(enum coll_algo_id a)
{
    return a >= 0 && a < COLL_NALGOS ? infos[a].name : "?";
}

unsigned coll_algo_ops(enum coll_algo_id a)
{
    return infos[a].ops;
}

bool coll_algo_has_flow(enum coll_algo_id a)
{
    return infos[a].flow;
}

bool coll_algo_has_data(enum coll_algo_id a)
{
    return infos[a].data;
}

bool coll_algo_find(const char *name, enum coll_algo_id *out)
{
    for (int i = 0; name && i < COLL_NALGOS; i++)
        if (strcmp(infos[i].name, name) == 0) {
            *out = (enum coll_algo_id)i;
            return true;
        }
    return false;
}

static const char *names_into(char *buf, size_t len, enum coll_op op, bool flow)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < COLL_NALGOS; i++) {
        if (op != COLL_NOPS && !(infos[i].ops & COLL_OP_BIT(op))) continue;
        if (flow && !infos[i].flow) continue;
        int k = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", infos[i].name);
        if (k > 0 && (size_t)k < len - used) used += (size_t)k;
    }
    return buf;
}

const char *coll_algo_names(void)
{
    static char buf[256];
    return names_into(buf, sizeof buf, COLL_NOPS, false);
}

const char *coll_algo_names_for(enum coll_op op, bool flow)
{
    static char buf[256];
    return names_into(buf, sizeof buf, op, flow);
}

const char *collective_op_name(enum coll_op op)
{
    static const char *names[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                  "alltoall"};
    return op >= 0 && op < COLL_NOPS ? names[op] : "?";
}

bool coll_op_of_name(const char *s, enum coll_op *op)
{
    static const char *names[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                  "alltoall"};
    static const char *nccl[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                 "alltoall"};
    for (int i = 0; i < COLL_NOPS; i++)
        if (strcmp(s, names[i]) == 0 || strncmp(s, nccl[i], strlen(nccl[i])) == 0) {
            *op = (enum coll_op)i;
            return true;
        }
    return false;
}

double collective_busbw_factor(enum coll_op op, int n)
{
    switch (op) {
    case COLL_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case COLL_ALLGATHER:
    case COLL_REDUCESCATTER:
    case COLL_ALLTOALL:
        return (double)(n - 1) / n;
    case COLL_BROADCAST:
    case COLL_NOPS:
        return 1.0;
    }
    return 1.0;
}
