/* hygroup.c - the hybrid strategy's collective groups (see hygroup.h). */
#include "hygroup.h"

#include <xbt/sysdep.h>

#include <stdlib.h>

/* The kind whose groups those of `kind` are (HYGROUP_DPG and HYGROUP_EDPG: the data and
 * expert-data groups). */
static int hygroup_base(int kind)
{
    return kind == HYGROUP_DPG ? HYGROUP_DP : kind == HYGROUP_EDPG ? HYGROUP_EDP : kind;
}

int hygroup_of(const struct parallel_spec *p, int kind, int t, int c, int s, int d, int *pos)
{
    int ts = t * p->pp + s, e = p->ep, reps = p->dp / e, cp = par_cp(p);
    switch (hygroup_base(kind)) {
    case HYGROUP_TP:
        *pos = t;
        return (s * p->dp + d) * cp + c;
    case HYGROUP_DP: /* the data- and context-parallel ranks: the same parameters */
        *pos = c + cp * d;
        return ts;
    case HYGROUP_EP:
        *pos = d % e;
        return (ts * cp + c) * reps + d / e;
    case HYGROUP_CP:
        *pos = c;
        return ts * p->dp + d;
    default: /* HYGROUP_EDP */
        *pos = c + cp * (d / e);
        return ts * e + d % e;
    }
}

static int hygroup_count(const struct parallel_spec *p, int kind)
{
    int cp = par_cp(p);
    int n[] = {p->pp * p->dp * cp,
               p->tp * p->pp,
               p->tp * p->pp * cp * (p->dp / p->ep),
               p->tp * p->pp * p->ep,
               0,
               0,
               p->tp * p->pp * p->dp};
    return n[hygroup_base(kind)];
}

int hygroup_size(const struct parallel_spec *p, int kind)
{
    int cp = par_cp(p);
    int n[] = {p->tp, p->dp * cp, p->ep, p->dp / p->ep * cp, 0, 0, cp};
    return n[hygroup_base(kind)];
}

void hygroup_worlds(const struct parallel_spec *p, const struct platform *pf, int P, int kind,
                    int ng, double timeout_s, struct coll_world *w)
{
    int n = hygroup_size(p, kind);
    sg_host_t *hosts = xbt_new(sg_host_t, (size_t)P);
    for (int k = 0; k < P; k++) {
        int t, c, s, d, pos, g;
        par_coords_cp(p, k, &t, &c, &s, &d);
        g = hygroup_of(p, kind, t, c, s, d, &pos);
        if (g < ng) hosts[(size_t)g * n + pos] = pf->gpus[k];
    }
    for (int g = 0; g < ng; g++)
        collective_world_init(&w[g], n, hosts + (size_t)g * n, timeout_s);
    free(hosts);
}

int hygroup_used(const struct parallel_spec *p, int kind)
{
    if (hygroup_size(p, kind) < 2 || (hygroup_base(kind) == HYGROUP_EDP && p->ep < 2)) return 0;
    if ((kind == HYGROUP_DPG || kind == HYGROUP_EDPG) && (p->zero < 3 || p->no_prefetch)) return 0;
    if (kind == HYGROUP_CP && !p->cp_allgather) return 0; /* the ring's sends: mailboxes */
    return hygroup_count(p, kind);
}

/* Does a group of `kind` run `op`? Tensor groups all-reduce (sequence parallelism: reduce-scatter
 * and all-gather); data groups all-reduce without ZeRO, else reduce-scatter and all-gather. */
static bool hygroup_runs(const struct parallel_spec *p, int kind, enum coll_op op)
{
    if (kind == HYGROUP_DPG || kind == HYGROUP_EDPG) return op == COLL_ALLGATHER;
    if (kind == HYGROUP_CP) return op == COLL_ALLGATHER || op == COLL_REDUCESCATTER;
    bool split = kind == HYGROUP_TP ? p->sp : p->zero >= 1;
    return split ? op == COLL_REDUCESCATTER || op == COLL_ALLGATHER : op == COLL_ALLREDUCE;
}

const char *hygroup_check(const struct job *j)
{
    const struct train_spec *ts = &j->sc->train;
    const struct coll_algo *a = collective_get(ts->algo);
    const char *no = NULL;
    for (int kind = 0; kind < HYGROUP_KINDS && no == NULL; kind++) {
        if (kind == HYGROUP_EP) continue;
        int ng = hygroup_used(&ts->par, kind);
        struct coll_world *w = xbt_new0(struct coll_world, ng ? ng : 1);
        hygroup_worlds(&ts->par, j->pf, job_workers(j), kind, ng, 1, w);
        for (int g = 0; g < ng; g++) {
            w[g].level = ts->level;
            w[g].nccl = ts->nccl;
            for (int op = COLL_ALLREDUCE; op <= COLL_REDUCESCATTER && no == NULL; op++)
                if (no == NULL && hygroup_runs(&ts->par, kind, (enum coll_op)op))
                    no = collective_check(&w[g], a, (enum coll_op)op, false);
            collective_world_release(&w[g]);
        }
        free(w);
    }
    return no;
}
