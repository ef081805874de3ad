/* bench.c - the p2p benchmark (see bench.h). */
#include "bench.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

double *bench_sizes(const struct benchmark *b, size_t *n)
{
    size_t cap = 16, count = 0;
    double *sizes = xbt_new(double, cap);
    /* Multiply in doubles, round each size to whole bytes; the tolerance keeps end inclusive when
     * end is an exact power of factor times begin. */
    for (double s = b->begin_B; s <= b->end_B * (1 + 1e-12); s *= b->factor) {
        if (count == cap)
            sizes = xbt_realloc(sizes, (cap *= 2) * sizeof *sizes);
        sizes[count++] = round(s);
        if (b->factor <= 1)
            break;
    }
    *n = count;
    return sizes;
}

/* What one pair's two actors share. */
struct pair_ctx {
    const struct scenario *sc;
    size_t pair;            /* index of this pair */
    const double *sizes;    /* message sizes */
    size_t nsizes;          /* number of sizes */
    struct p2p_row *rows;   /* this pair's nsizes rows */
    sg_mailbox_t mb;        /* where the messages go */
    sg_sem_t go;            /* released twice (sender, receiver) when this pair may start */
    sg_sem_t next_go;       /* the next pair's go, or NULL */
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

enum dmlsim_err bench_p2p_run(const struct scenario *sc, struct p2p_result *res,
                              struct dmlsim_error *err)
{
    const struct benchmark *b = &sc->bench;
    size_t nsizes;
    enum dmlsim_err rc = DMLSIM_OK;

    memset(res, 0, sizeof *res);
    DMLSIM_CHECK_GOTO(rc, bench_check_hosts(sc, err), out);
    double *sizes = bench_sizes(b, &nsizes);
    struct pair_ctx *ctx = xbt_new0(struct pair_ctx, b->npairs);
    res->npairs = b->npairs;
    res->nrows = b->npairs * nsizes;
    res->rows = xbt_new0(struct p2p_row, res->nrows);
    res->routes = xbt_new0(char *, b->npairs);
    for (size_t p = 0; p < b->npairs; p++) {
        sg_host_t src = sg_host_by_name(b->pairs[p].src), dst = sg_host_by_name(b->pairs[p].dst);
        char route[256];
        res->routes[p] = xbt_strdup(platform_route_classes(src, dst, route, sizeof route));
        ctx[p] = (struct pair_ctx){.sc = sc, .pair = p, .sizes = sizes, .nsizes = nsizes,
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
out:
    return rc;
}

void bench_p2p_print(const struct scenario *sc, const struct p2p_result *res, FILE *out)
{
    fprintf(out, "#%15s %15s %12s %14s %10s  %s\n", "src", "dst", "size", "time", "algbw",
            "route");
    fprintf(out, "#%15s %15s %12s %14s %10s\n", "", "", "(B)", "(us)", "(GB/s)");
    for (size_t i = 0; i < res->nrows; i++) {
        const struct p2p_row *r = &res->rows[i];
        const struct bench_pair *bp = &sc->bench.pairs[r->pair];
        if (r->status == NET_OK)
            fprintf(out, " %15s %15s %12.0f %14.3f %10.2f  %s\n", bp->src, bp->dst, r->size_B,
                    r->time_s * 1e6, r->size_B / r->time_s / 1e9, res->routes[r->pair]);
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
