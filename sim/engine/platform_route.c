/* platform_route.c - probing the routes of a user's platform once loaded (see
 * platform_route.h). */
#include "platform_route.h"

#include "platform_xml.h"
#include "xmldoc.h"

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>
#include <xbt/sysdep.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* The pairs of GPUs whose routes are checked: every ordered pair up to this many workers; beyond
 * it (the check is quadratic) each worker with the first, the next, the previous and the one
 * half-way round (a hub and the rings the collectives use). */
#define ROUTE_ALL_PAIRS_MAX 512

/* The routes to check, as pairs of hosts (src, dst). */
struct route_pairs {
    sg_host_t (*v)[2];
    size_t n, cap;
};

static void add_pair(struct route_pairs *rp, sg_host_t a, sg_host_t b)
{
    if (a == NULL || b == NULL || a == b) return;
    if (rp->n == rp->cap) {
        rp->cap = rp->cap ? 2 * rp->cap : 256;
        rp->v = xbt_realloc(rp->v, rp->cap * sizeof *rp->v);
    }
    rp->v[rp->n][0] = a;
    rp->v[rp->n++][1] = b;
}

/* Both ways between a and b. */
static void add_both(struct route_pairs *rp, sg_host_t a, sg_host_t b)
{
    add_pair(rp, a, b);
    add_pair(rp, b, a);
}

/* What the scenario will send over a user's platform: between the workers (all-reduce, hybrid
 * and the collective benchmark: any two, as memberships change and algorithms differ), between
 * each worker and the parameter servers (their role=ps hosts, else the CPU hosts they run on),
 * between each worker and the store (faults and checkpoints: the storage host, else the first
 * CPU host) and its node's CPU host (the input pipeline, local checkpoints), and each p2p pair. */
static void route_pairs_of(const struct scenario *sc, const struct platform *pf,
                           struct route_pairs *rp)
{
    const struct train_spec *ts = &sc->train;
    long P = ts->strategy != STRAT_NONE ? (ts->gpus > 0 ? ts->gpus : (long)pf->ngpus)
             : sc->bench.kind == BENCH_COLLECTIVE
                     ? (sc->bench.gpus > 0 ? sc->bench.gpus : (long)pf->ngpus)
                     : 0;
    if (P > (long)pf->ngpus) P = (long)pf->ngpus; /* the strategy's check says more */
    bool peers = ts->strategy == STRAT_ALLREDUCE || ts->strategy == STRAT_HYBRID ||
                 (ts->strategy == STRAT_NONE && sc->bench.kind == BENCH_COLLECTIVE);
    for (long a = 0; peers && a < P; a++) {
        long hub[4] = {0, (a + 1) % P, (a + P - 1) % P, (a + P / 2) % P};
        bool all = P <= ROUTE_ALL_PAIRS_MAX;
        for (long k = 0; k < (all ? P : 4); k++)
            add_pair(rp, pf->gpus[a], pf->gpus[all ? k : hub[k]]);
    }
    bool store = sc->nfaults > 0 || sc->ckpt.present;
    sg_host_t store_host = pf->storage ? pf->storage : pf->ncpus ? pf->cpu_hosts[0] : NULL;
    bool local = ts->data.present || sc->ckpt.present;
    for (long a = 0; ts->strategy != STRAT_NONE && a < P; a++) {
        sg_host_t g = pf->gpus[a];
        if (ts->strategy == STRAT_PS && pf->nps > 0)
            for (size_t i = 0; i < pf->nps; i++)
                add_both(rp, g, pf->ps_hosts[i]);
        else if (ts->strategy == STRAT_PS)
            for (size_t i = 0; i < pf->ncpus; i++)
                add_both(rp, g, pf->cpu_hosts[i]);
        if (store) add_both(rp, g, store_host);
        if (local) add_both(rp, g, platform_node_cpu(pf, g));
    }
    for (size_t i = 0; sc->bench.kind == BENCH_P2P && i < sc->bench.npairs; i++)
        add_pair(rp, sg_host_by_name(sc->bench.pairs[i].src),
                 sg_host_by_name(sc->bench.pairs[i].dst));
}

/* Where the probe is, in memory shared with the child: the pair being asked, and whether its
 * route was found empty. */
struct route_probe {
    volatile size_t at; /* the pair being asked */
    volatile int empty; /* 1: its route is empty with no latency */
};

/* The child: asks SimGrid for each pair's route, as a transfer would (network_cm02.cpp: an empty
 * route with no latency aborts "there is no connecting path"; a Dijkstra or Floyd zone without a
 * path crashes or throws while looking, which the parent sees as the child's death). Exits 0
 * when every route exists. */
static void probe_crashed(int sig)
{
    _exit(128 + sig);
}

static void probe_routes(const struct route_pairs *rp, struct route_probe *pr)
{
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) dup2(fd, STDERR_FILENO); /* SimGrid's own report of a crash is not ours */
    /* A crash while looking is the expected answer "no route", not a defect: the child leaves
     * at once, before a sanitizer's handler would report it as one. */
    signal(SIGSEGV, probe_crashed);
    signal(SIGBUS, probe_crashed);
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    for (size_t i = 0; i < rp->n; i++) {
        pr->at = i;
        xbt_dynar_reset(links);
        sg_host_get_route(rp->v[i][0], rp->v[i][1], links);
        if (xbt_dynar_length(links) == 0 &&
            sg_host_get_route_latency(rp->v[i][0], rp->v[i][1]) <= 0) {
            pr->empty = 1;
            _exit(1);
        }
    }
    _exit(0);
}

/* The line of <host id="name"> in the user's platform file, or 0. */
static long host_line(const char *path, const char *name)
{
    xmlDocPtr doc;
    struct dmlsim_error ignored;
    if (xmldoc_read(path, &doc, &ignored) != DMLSIM_OK) return 0;
    xmlNodePtr n = platform_xml_find_by_id(xmlDocGetRootElement(doc), "host", name);
    long line = n ? xmlGetLineNo(n) : 0;
    xmlFreeDoc(doc);
    return line;
}

/* A user's platform must route what the scenario sends (route_pairs_of): without a route, the
 * first transfer aborts inside SimGrid. The routes are asked of the loaded platform in a child
 * process, so the answer is SimGrid's own whatever the zones' routing, and a crash while looking
 * (some routings crash on a missing path) costs only the child. */
enum dmlsim_err platform_route_check(const struct scenario *sc, const struct platform *pf,
                                     struct dmlsim_error *err)
{
    struct route_pairs rp = {0};
    route_pairs_of(sc, pf, &rp);
    struct route_probe *pr = rp.n == 0 ? MAP_FAILED
                                       : mmap(NULL, sizeof *pr, PROT_READ | PROT_WRITE,
                                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    enum dmlsim_err rc = DMLSIM_OK;
    fflush(NULL);
    pid_t pid = pr == MAP_FAILED ? -1 : fork();
    if (pid == 0) probe_routes(&rp, pr);
    int status = 0;
    if (pid > 0 && waitpid(pid, &status, 0) == pid &&
        !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        const char *from = sg_host_get_name(rp.v[pr->at][0]),
                   *to = sg_host_get_name(rp.v[pr->at][1]);
        rc = dmlsim_fail(err, DMLSIM_EPLATFORM,
                         "%s:%ld: <host id=\"%s\">: no route from %s to it%s; expected a route "
                         "(or zone route) wherever the scenario sends: between its GPUs, and "
                         "from each to the parameter-server, storage and node CPU hosts it uses",
                         sc->platform_file, host_line(sc->platform_file, to), to, from,
                         pr->empty ? "" : " (SimGrid failed looking for one)");
    }
    if (pr != MAP_FAILED) munmap(pr, sizeof *pr);
    free(rp.v);
    return rc;
}
