/* bench.c - the p2p benchmark (see bench.h). */
#include "bench.h"

#include "collective.h"
#include "route.h"

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double *bench_sizes(const struct benchmark *b, size_t *n)
{
    if (b->sizes != NULL) { /* an explicit list */
        double *copy = xbt_new(double, b->nsizes ? b->nsizes : 1);
        memcpy(copy, b->sizes, b->nsizes * sizeof *copy);
        *n = b->nsizes;
        return copy;
    }
    size_t cap = 16, count = 0;
    double *sizes = xbt_new(double, cap);
    /* Multiply in doubles, round each size to whole bytes; the tolerance keeps end inclusive when
     * end is an exact power of factor times begin. */
    for (double s = b->begin_B; s <= b->end_B * (1 + 1e-12); s *= b->factor) {
        if (count == cap) sizes = xbt_realloc(sizes, (cap *= 2) * sizeof *sizes);
        sizes[count++] = round(s);
        if (b->factor <= 1) break;
    }
    *n = count;
    return sizes;
}

/* What one pair's two actors share. */
struct pair_ctx {
    const struct scenario *sc;
    size_t pair;          /* index of this pair */
    const double *sizes;  /* message sizes */
    size_t nsizes;        /* number of sizes */
    struct p2p_row *rows; /* this pair's nsizes rows */
    sg_mailbox_t mb;      /* where the messages go */
    sg_sem_t go;          /* released twice (sender, receiver) when this pair may start */
    sg_sem_t next_go;     /* the next pair's go, or NULL */
};

struct p2p_msg {
    double t_send_s; /* simulated time the send was posted */
};

static void p2p_sender(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct pair_ctx *ctx = sg_actor_self_get_data();
    sg_sem_acquire(ctx->go);
    for (size_t i = 0; i < ctx->nsizes; i++) {
        struct p2p_msg *m = xbt_new(struct p2p_msg, 1);
        m->t_send_s = simgrid_get_clock();
        enum net_status st = net_send(ctx->mb, m, ctx->sizes[i], ctx->sc->bench.timeout_s);
        if (st != NET_OK) {
            free(m);
            ctx->rows[i].status = st;
        }
    }
}

static void p2p_receiver(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct pair_ctx *ctx = sg_actor_self_get_data();
    sg_sem_acquire(ctx->go);
    for (size_t i = 0; i < ctx->nsizes; i++) {
        struct p2p_msg *m;
        enum net_status st = net_recv(ctx->mb, (void **)&m, ctx->sc->bench.timeout_s);
        if (st == NET_OK) {
            ctx->rows[i].time_s = simgrid_get_clock() - m->t_send_s;
            free(m);
        } else {
            ctx->rows[i].status = st;
        }
    }
    if (ctx->next_go != NULL) {
        sg_sem_release(ctx->next_go);
        sg_sem_release(ctx->next_go);
    }
}

static void start_actor(const char *name, sg_host_t host, xbt_main_func_t code, void *data)
{
    sg_actor_t a = sg_actor_init(name, host);
    sg_actor_set_data(a, data);
    sg_actor_start(a, code, 0, NULL);
}

enum dmlsim_err bench_check_hosts(const struct scenario *sc, struct dmlsim_error *err)
{
    const struct benchmark *b = &sc->bench;
    for (size_t p = 0; p < b->npairs; p++) {
        const char *ends[2] = {b->pairs[p].src, b->pairs[p].dst};
        for (int e = 0; e < 2; e++)
            if (sg_host_by_name(ends[e]) == NULL)
                return dmlsim_fail(err, DMLSIM_EVALUE,
                                   "%s:%d: <pair %s=\"%s\">: no such host in the platform; "
                                   "expected a host name of %s",
                                   sc->path, b->pairs[p].line, e ? "dst" : "src", ends[e],
                                   sc->has_cluster ? "the cluster" : sc->platform_file);
    }
    return DMLSIM_OK;
}

void bench_p2p_run(const struct scenario *sc, struct p2p_result *res)
{
    const struct benchmark *b = &sc->bench;
    size_t nsizes;

    memset(res, 0, sizeof *res);
    assert(b->npairs >= 1); /* the caller checked the endpoints (bench_check_hosts) */
    double *sizes = bench_sizes(b, &nsizes);
    struct pair_ctx *ctx = xbt_new0(struct pair_ctx, b->npairs);
    res->npairs = b->npairs;
    res->nrows = b->npairs * nsizes;
    res->rows = xbt_new0(struct p2p_row, res->nrows);
    res->routes = xbt_new0(char *, b->npairs);
    for (size_t p = 0; p < b->npairs; p++) {
        sg_host_t src = sg_host_by_name(b->pairs[p].src), dst = sg_host_by_name(b->pairs[p].dst);
        char route[256];
        res->routes[p] = xbt_strdup(route_classes(src, dst, route, sizeof route));
        ctx[p] = (struct pair_ctx){.sc = sc,
                                   .pair = p,
                                   .sizes = sizes,
                                   .nsizes = nsizes,
                                   .rows = res->rows + p * nsizes,
                                   .go = sg_sem_init(p == 0 ? 2 : 0)};
        for (size_t i = 0; i < nsizes; i++)
            ctx[p].rows[i] = (struct p2p_row){.pair = p, .size_B = sizes[i], .status = NET_OK};
        char *mbname = bprintf("p2p-%zu", p);
        ctx[p].mb = sg_mailbox_by_name(mbname);
        free(mbname);
    }
    for (size_t p = 0; p < b->npairs; p++) {
        ctx[p].next_go = p + 1 < b->npairs ? ctx[p + 1].go : NULL;
        char *sname = bprintf("p2p-send-%zu", p), *rname = bprintf("p2p-recv-%zu", p);
        start_actor(sname, sg_host_by_name(b->pairs[p].src), p2p_sender, &ctx[p]);
        start_actor(rname, sg_host_by_name(b->pairs[p].dst), p2p_receiver, &ctx[p]);
        free(sname);
        free(rname);
    }
    simgrid_run();
    for (size_t p = 0; p < b->npairs; p++)
        sg_sem_destroy(ctx[p].go);
    free(ctx);
    free(sizes);
}

double bench_p2p_algbw_GBps(const struct p2p_row *r)
{
    return r->time_s > 0 ? r->size_B / r->time_s / 1e9 : 0;
}

void bench_p2p_print(const struct scenario *sc, const struct p2p_result *res, FILE *out)
{
    fprintf(out, "#%15s %15s %12s %14s %10s  %s\n", "src", "dst", "size", "time", "algbw", "route");
    fprintf(out, "#%15s %15s %12s %14s %10s\n", "", "", "(B)", "(us)", "(GB/s)");
    for (size_t i = 0; i < res->nrows; i++) {
        const struct p2p_row *r = &res->rows[i];
        const struct bench_pair *bp = &sc->bench.pairs[r->pair];
        if (r->status == NET_OK)
            fprintf(out, " %15s %15s %12.0f %14.3f %10.2f  %s\n", bp->src, bp->dst, r->size_B,
                    r->time_s * 1e6, bench_p2p_algbw_GBps(r), res->routes[r->pair]);
        else
            fprintf(out, " %15s %15s %12.0f %14s %10s  %s\n", bp->src, bp->dst, r->size_B,
                    net_status_str(r->status), "-", res->routes[r->pair]);
    }
}

void bench_p2p_release(struct p2p_result *res)
{
    for (size_t p = 0; p < res->npairs; p++)
        free(res->routes[p]);
    free(res->routes);
    free(res->rows);
    memset(res, 0, sizeof *res);
}

/* ---- collectives ------------------------------------------------------------------------- */

struct coll_ctx {
    const struct scenario *sc;
    struct coll_world *world;
    const double *sizes;
    size_t nsizes;
    sg_bar_t barrier;    /* all ranks start each size together */
    double *start_s;     /* per size: the common start */
    double *end_s;       /* per size: the last rank's end */
    enum net_status *st; /* per size: the worst status */
};

struct coll_rank {
    struct coll_ctx *c;
    int rank;
};

static void coll_rank_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct coll_rank *me = sg_actor_self_get_data();
    struct coll_ctx *c = me->c;
    const struct benchmark *b = &c->sc->bench;
    for (size_t i = 0; i < c->nsizes; i++) {
        sg_barrier_wait(c->barrier);
        c->start_s[i] = simgrid_get_clock();
        enum net_status st = collective_run(c->world, collective_get(b->algo), b->op, me->rank, c->sizes[i], NULL);
        double now = simgrid_get_clock();
        if (now > c->end_s[i]) c->end_s[i] = now;
        if (st > c->st[i]) c->st[i] = st;
    }
}

/* The benchmark's world: its first P GPUs with the benchmark's level, chunks, NCCL options and
 * calibration; release with collective_world_release and free(w->sent_msgs). */
static void bench_world(const struct benchmark *b, const struct platform *pf, int P,
                        const struct netcal *netcal, struct coll_world *w)
{
    collective_world_init(w, P, pf->gpus, b->timeout_s);
    w->level = b->level;
    w->chunks = b->chunks;
    w->nccl = b->nccl;
    w->netcal = netcal;
    w->sent_msgs = xbt_new0(double, P);
}

enum dmlsim_err bench_coll_check(const struct scenario *sc, const struct platform *pf,
                                 struct dmlsim_error *err)
{
    const struct benchmark *b = &sc->bench;
    int P = b->gpus > 0 ? b->gpus : (int)pf->ngpus;
    if (P < 1 || P > (int)pf->ngpus)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <benchmark gpus=\"%d\">: the platform has %zu GPU(s); expected "
                           "1 to %zu",
                           sc->path, b->line, P, pf->ngpus, pf->ngpus);
    struct coll_world w;
    bench_world(b, pf, P, NULL, &w);
    const char *why = collective_check(&w, collective_get(b->algo), b->op, false);
    enum dmlsim_err rc = DMLSIM_OK;
    if (why != NULL)
        rc = dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: <benchmark algo=\"%s\">: %s", sc->path,
                         b->line, coll_algo_name(b->algo), why);
    free(w.sent_msgs);
    collective_world_release(&w);
    return rc;
}

void bench_coll_run(const struct scenario *sc, const struct platform *pf,
                    const struct netcal *netcal, struct coll_result *res)
{
    const struct benchmark *b = &sc->bench;
    memset(res, 0, sizeof *res);
    assert(b->gpus <= (int)pf->ngpus); /* the caller checked (bench_coll_check) */
    int P = b->gpus > 0 ? b->gpus : (int)pf->ngpus;
    struct coll_world w;
    bench_world(b, pf, P, netcal, &w);
    struct coll_ctx c = {.sc = sc, .world = &w, .barrier = sg_barrier_init((unsigned)P)};
    double *sizes = bench_sizes(b, &c.nsizes);
    c.sizes = sizes;
    c.start_s = xbt_new0(double, c.nsizes);
    c.end_s = xbt_new0(double, c.nsizes);
    c.st = xbt_new0(enum net_status, c.nsizes);
    struct coll_rank *ranks = xbt_new0(struct coll_rank, P);
    for (int r = 0; r < P; r++) {
        ranks[r] = (struct coll_rank){.c = &c, .rank = r};
        char *name = bprintf("rank-%d", r);
        start_actor(name, pf->gpus[r], coll_rank_actor, &ranks[r]);
        free(name);
    }
    simgrid_run();
    res->nranks = P;
    res->nrows = c.nsizes;
    res->rows = xbt_new0(struct coll_row, c.nsizes);
    for (size_t i = 0; i < c.nsizes; i++) {
        res->rows[i] = (struct coll_row){
                .size_B = sizes[i], .time_s = c.end_s[i] - c.start_s[i], .status = c.st[i]};
        collective_describe(&w, collective_get(b->algo), b->op, sizes[i], res->rows[i].choice,
                            sizeof res->rows[i].choice);
    }
    for (int r = 0; r < P; r++)
        res->messages += w.sent_msgs[r];
    sg_barrier_destroy(c.barrier);
    free(ranks);
    free(c.start_s);
    free(c.end_s);
    free(c.st);
    free(sizes);
    free(w.sent_msgs);
    collective_world_release(&w);
}

void bench_coll_values(const struct scenario *sc, const struct coll_result *res, size_t i,
                       struct coll_values *v)
{
    const struct coll_row *r = &res->rows[i];
    enum coll_op op = sc->bench.op;
    bool reduces = op == COLL_ALLREDUCE || op == COLL_REDUCESCATTER;
    double algbw = r->time_s > 0 ? r->size_B / r->time_s / 1e9 : 0;
    *v = (struct coll_values){r->size_B, r->size_B / 4, "float", reduces ? "sum" : "none",
                              r->status == NET_OK, r->time_s * 1e6, algbw,
                              algbw * collective_busbw_factor(op, res->nranks),
                              r->status == NET_OK ? "ok" : net_status_str(r->status)};
}

void bench_coll_print(const struct scenario *sc, const struct coll_result *res, FILE *out)
{
    bool choice = collective_get(sc->bench.algo)->describe != NULL;
    fprintf(out, "#%12s %12s %6s %6s %12s %9s %9s", "size", "count", "type", "redop", "time",
            "algbw", "busbw");
    fprintf(out, choice ? "  %-s\n" : "\n", "algo/proto/channels");
    fprintf(out, "#%12s %12s %6s %6s %12s %9s %9s\n", "(B)", "(elements)", "", "", "(us)", "(GB/s)",
            "(GB/s)");
    for (size_t i = 0; i < res->nrows; i++) {
        struct coll_values v;
        bench_coll_values(sc, res, i, &v);
        if (!v.ok)
            fprintf(out, " %12.0f %12.0f %6s %6s %12s %9s %9s", v.size_B, v.count, v.type,
                    v.redop, v.status, "-", "-");
        else
            fprintf(out, " %12.0f %12.0f %6s %6s %12.2f %9.2f %9.2f", v.size_B, v.count, v.type,
                    v.redop, v.time_us, v.algbw_GBps, v.busbw_GBps);
        fprintf(out, choice ? "  %s\n" : "\n", res->rows[i].choice);
    }
    fprintf(out, "# messages sent: %.0f\n", res->messages);
}

void bench_coll_release(struct coll_result *res)
{
    free(res->rows);
    memset(res, 0, sizeof *res);
}
