/* hy_tpov.c - tensor-parallel collectives pipelined with their GEMMs (see hy_tpov.h). */
#include "hy_tpov.h"

#include "kcost.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>

#include <assert.h>
#include <stddef.h>

#define TPOV_TAG (1 << 20) /* the ring exchange's channel in the group's mailboxes */

/* One kernel's exec amount on a host of `speed`. */
static double kernel_amount(const struct kcost_gpu *g, const struct kernel *k, int batch,
                            double speed)
{
    struct kcost c;
    kcost_kernel(g, k, batch, &c);
    return c.s * speed;
}

/* The j-th kernel of list ks (n of them) that is a GEMM whose batch multiplies dimension bdim
 * (1: a linear layer's forward or input gradient, 2: its weight gradient), or NULL. */
static const struct kernel *nth_gemm(const struct kernel *ks, int n, int bdim, int j)
{
    for (int i = 0; i < n; i++)
        if (ks[i].cls == KC_GEMM && ks[i].bdim == bdim && j-- == 0) return &ks[i];
    return NULL;
}

/* Is the j-th linear of block y (n of them) the MLP's first GEMM or SwiGLU's gate (the
 * layer's GEMM shape, model.c's transformer_block), not the router? */
static bool is_fc1(const struct layer *y, const struct kernel *k, int j, int n)
{
    return j >= 2 && j < n - 1 && k->m == y->gemm_m && k->n == y->gemm_n && k->k == y->gemm_k;
}

static void set_pair(struct tpov_pair *p, enum tpov_method how, enum coll_op op, double gemm)
{
    *p = (struct tpov_pair){.how = how, .op = op, .gemm = gemm};
}

void tpov_split(const struct calib *cal, const struct gpu_model *gpu, enum gpu_dtype dtype,
                double speed, const struct layer *y, int batch, double fwd_amount,
                double bwd_amount, struct tpov_block *out)
{
    const struct kcost_gpu g = {cal, gpu, dtype, gpu->mem_bw_Bps * cal->mem_eff};
    /* a linear's forward GEMM, input gradient, weight gradient: QKV, the projection, the
       MLP's first (and gate), its last */
    double f[4] = {0}, dg[4] = {0}, wg[4] = {0};
    int n = 0;
    while (nth_gemm(y->fwd, y->nfwd, 1, n))
        n++;
    for (int j = 0; n >= 4 && j < n; j++) {
        const struct kernel *k = nth_gemm(y->fwd, y->nfwd, 1, j);
        int slot = j == 0 ? 0 : j == 1 ? 1 : j == n - 1 ? 3 : is_fc1(y, k, j, n) ? 2 : -1;
        const struct kernel *d = nth_gemm(y->bwd, y->nbwd, 1, j);
        const struct kernel *w = nth_gemm(y->bwd, y->nbwd, 2, j);
        if (slot < 0 || !d || !w) continue;
        f[slot] += kernel_amount(&g, k, batch, speed);
        dg[slot] += kernel_amount(&g, d, batch, speed);
        wg[slot] += kernel_amount(&g, w, batch, speed);
    }
    /* the pipeline and bulk methods' GEMMs on the SMs their communication leaves */
    double margin = gpu->sms > TPOV_COMM_SMS ? gpu->sms / (gpu->sms - (double)TPOV_COMM_SMS) : 1;
    struct tpov_pass *F = &out->fwd, *B = &out->bwd;
    set_pair(&F->pair[0], TPOV_RING, COLL_ALLGATHER, f[0]);
    set_pair(&F->pair[1], TPOV_PIPE, COLL_REDUCESCATTER, f[1] * margin);
    set_pair(&F->pair[2], TPOV_RING, COLL_ALLGATHER, f[2]);
    set_pair(&F->pair[3], TPOV_PIPE, COLL_REDUCESCATTER, f[3] * margin);
    set_pair(&B->pair[0], TPOV_RING, COLL_ALLGATHER, dg[3]);
    set_pair(&B->pair[1], TPOV_BULK, COLL_REDUCESCATTER, wg[2] * margin);
    set_pair(&B->pair[2], TPOV_RING, COLL_ALLGATHER, dg[1]);
    set_pair(&B->pair[3], TPOV_BULK, COLL_REDUCESCATTER, wg[0] * margin);
    double fsum = f[0] + f[1] + f[2] + f[3], bsum = dg[3] + wg[2] + dg[1] + wg[0];
    F->rest = fwd_amount > fsum ? fwd_amount - fsum : 0;
    B->rest = bwd_amount > bsum ? bwd_amount - bsum : 0;
}

/* ---- running a pair ------------------------------------------------------------------------ */

struct tpov_state {
    const struct tpov_rank *tr;
    enum net_status st; /* the first failed wait's, else NET_OK */
    double gemm_s;
};

/* Starts a GEMM chunk of `amount` on the rank's host (NULL: nothing to run). */
static sg_exec_t gemm_start(struct tpov_state *s, double amount)
{
    if (amount <= 0) return NULL;
    s->gemm_s += amount * s->tr->scale / sg_host_get_speed(sg_host_self());
    return sg_actor_exec_async(amount * s->tr->scale);
}

static void gemm_wait(sg_exec_t e)
{
    if (e) sg_exec_wait(e);
}

static void keep(struct tpov_state *s, enum net_status st)
{
    if (s->st == NET_OK) s->st = st;
}

/* A collective chunk of the group (none after a failed wait). */
static void coll_chunk(struct tpov_state *s, enum coll_op op, double size_B)
{
    const struct tpov_rank *tr = s->tr;
    if (s->st != NET_OK) return;
    keep(s, collective_run(tr->w, tr->algo, op, tr->pos, size_B, NULL));
}

/* One step of the ring exchange: size_B to the next rank of the group, as much from the
 * previous. */
static void ring_step(struct tpov_state *s, double size_B)
{
    const struct tpov_rank *tr = s->tr;
    const struct coll_world *w = tr->w;
    if (s->st != NET_OK) return;
    int P = w->nranks, next = (tr->pos + 1) % P, prev = (tr->pos + P - 1) % P;
    void *payload;
    sg_comm_t rc = net_irecv(coll_mailbox(w, prev, tr->pos, TPOV_TAG), &payload);
    sg_comm_t sc = coll_post_send(w, tr->pos, w->hosts[tr->pos], w->hosts[next],
                                  coll_mailbox(w, tr->pos, next, TPOV_TAG), NULL, size_B);
    keep(s, net_wait(sc, coll_deadline(w)));
    keep(s, net_wait(rc, coll_deadline(w)));
}

/* One pair: its chunks of GEMM and of collective, as TE's method pipelines them. */
static void run_pair(struct tpov_state *s, const struct tpov_pair *pr, double size_B)
{
    int P = s->tr->w->nranks;
    if (pr->how == TPOV_RING) { /* chunk i's GEMM while chunk i + 1 travels */
        for (int i = 0; i < P; i++) {
            sg_exec_t e = gemm_start(s, pr->gemm / P);
            if (i + 1 < P) ring_step(s, size_B / P);
            gemm_wait(e);
        }
    } else if (pr->how == TPOV_PIPE) { /* chunk i's reduce-scatter while chunk i + 1 runs */
        double n = TPOV_PIPE_SPLIT;
        for (int i = 0; i < TPOV_PIPE_SPLIT; i++) {
            sg_exec_t e = gemm_start(s, pr->gemm / n);
            if (i > 0) coll_chunk(s, pr->op, size_B / n);
            gemm_wait(e);
        }
        coll_chunk(s, pr->op, size_B / n);
    } else { /* bulk: the whole collective beside the whole GEMM */
        sg_exec_t e = gemm_start(s, pr->gemm);
        coll_chunk(s, pr->op, size_B);
        gemm_wait(e);
    }
}

enum net_status tpov_pass(const struct tpov_rank *tr, const struct tpov_pass *ps, double size_B,
                          double *gemm_s, double *exposed_s)
{
    struct tpov_state s = {.tr = tr, .st = NET_OK};
    double t0 = simgrid_get_clock();
    for (int k = 0; k < TPOV_PAIRS; k++)
        run_pair(&s, &ps->pair[k], size_B);
    double wall_s = simgrid_get_clock() - t0;
    *gemm_s = s.gemm_s;
    *exposed_s = wall_s > s.gemm_s ? wall_s - s.gemm_s : 0;
    if (tr->rank >= 0 && tr->rank < tr->rec->workers) tr->rec->busy_s[tr->rank] += s.gemm_s;
    return s.st;
}
