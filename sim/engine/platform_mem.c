/* platform_mem.c - resource bounds of a simulation before it is set up: the host memory it will
 * take against this machine's, and SimGrid's stack guard pages against vm.max_map_count (see
 * platform_mem.h). */
#include "platform_mem.h"

#include "platform_gen.h"
#include "sgcfg.h"

#include <xbt/config.h>

#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Host memory per element of a loaded platform, fitted on generated platforms (peak RSS of `run
 * --fault-plan`, SimGrid 3.32 with jemalloc; star 8 GPUs x 512 and 2,048 nodes, star 1 GPU x
 * 4,096 and 16,384 nodes, fat-tree 512 nodes, one node of 256 GPUs, flat 65,536 GPUs: each
 * within 25% of the measured RSS, the fat-tree's routes overestimated most), and what a process
 * holds before it loads anything. */
#define MEM_BASE_B  40e6   /* SimGrid, libxml2 and dmlsim started, nothing loaded: 38 MB */
#define MEM_HOST_B  1536.0 /* a host or router (flat: 3.05 KB a GPU with its private link) */
#define MEM_LINK_B  1536.0 /* a link */
#define MEM_ZONE_B  1024.0 /* a zone */
#define MEM_ROUTE_B 48.0   /* a route of a Full or Dijkstra zone */
#define MEM_HOP_B   16.0   /* a link of a route */
/* An actor: its context and the stack pages it touches (SimGrid maps a whole stack, 8 MiB by
 * default, but only touched pages are resident): 161,000 mostly idle actors of a PS with 800
 * workers and 200 shards took 3.1 GB, 19 KB each; 16 KiB is a floor. */
#define MEM_ACTOR_B 16384.0
/* libxml2's tree of a platform document, per byte of the file (the generated platform is read
 * back when the scenario has faults: 545 MB for a 48 MB file, 2,048 nodes of 8 GPUs). */
#define MEM_DOM_PER_B 10.0

/* The generated platform's size: the counts platform_write's loops make (hops of a node's
 * routes taken as 3 on average, of a zone route as 3), without writing anything. */
void platform_mem_generated_size(const struct scenario *sc, struct pf_size *z)
{
    const struct cluster_spec *c = &sc->cluster;
    double N = c->nodes, G = c->gpus_per_node, K = c->nic ? c->nics_per_node : 0;
    memset(z, 0, sizeof *z);
    z->gpus = N * G;
    if (c->topology == TOPO_FLAT) { /* SimGrid's <cluster>: a host and a private link each */
        z->hosts = z->links = N;
        z->zones = 1;
        z->file_B = 1024;
        return;
    }
    bool sharp_nvs = c->intra->fabric == FABRIC_SHARP, mesh = c->intra->fabric == FABRIC_MESH;
    bool nvlink = c->intra->kind == LINK_NVLINK && !mesh;
    double machines = c->ps_nodes + (c->nic ? 1 : 0), zones = platform_gen_zone_count(c);
    double points = G + 1 + (c->nic ? 1 : 0), node_routes = points * (points - 1);
    double leaves = c->topology == TOPO_FATTREE ? ceil(zones / c->nodes_per_leaf) : 1;
    bool star = platform_gen_star_routed(c, 0);
    double top_routes = zones <= 1 || !c->nic ? 0 : star ? 2 * zones : zones * (zones - 1);
    z->hosts = N * (G + 1 + (sharp_nvs ? 1 : 0) + (c->nic ? 1 : 0)) + 2 * machines +
               (c->sharp ? 2 : 0) + 1;
    z->links = N * (G * (nvlink ? 2 : 1) + (mesh ? 16 : 0) + 1 + K) + 2 * machines +
               (c->sharp ? 1 : 0) + (c->nic && zones > 1 ? 2 * zones : 0) +
               (leaves > 1 ? leaves * c->spines : 0);
    z->zones = zones + 2;
    z->routes = N * (node_routes + (sharp_nvs ? 2 * G : 0)) + 2 * machines + top_routes;
    z->hops = 3 * N * node_routes + 2 * N * G * sharp_nvs + 4 * machines + 3 * top_routes;
    z->file_B = 200 * z->hosts + 130 * z->links + 70 * z->routes + 55 * z->hops;
}

/* A generous count of the actors the run will start (engine daemons, then the strategy's or the
 * benchmark's, then the input pipeline's), from the scenario alone: the guard pages' mappings and
 * the memory estimate need it before any actor exists. P: the workers, from the platform's
 * GPUs unless <training gpus>. */
static double actor_estimate(const struct scenario *sc, double ngpus)
{
    const struct train_spec *ts = &sc->train;
    const struct benchmark *b = &sc->bench;
    double P = ts->gpus > 0 ? ts->gpus : ngpus, n = 16; /* injector, rendezvous, watchdog, ... */
    /* NCCL's helper actors: one per channel after the first, MAXCHANNELS 32, at message level
     * or when the collective carries data (nccl_chan.c, nccl_chan_run) */
    bool helpers =
            ts->algo == COLL_ALGO_NCCL && (ts->level == COLL_MESSAGE || ts->numerics.present);
    double chans = helpers ? 31 : 0;
    switch (ts->strategy) {
    case STRAT_ALLREDUCE: /* compute and comm actors */
        n += P * (2 + chans);
        break;
    case STRAT_PS: { /* worker, puller, pusher; shards; ports */
        double K = ts->ps.shards > 0 ? ts->ps.shards : 1;
        n += 4 * P + K + K * P;
        break;
    }
    case STRAT_HYBRID: /* a rank and its prefetch */
        n += 2 * P;
        break;
    default:
        if (b->kind == BENCH_P2P) n += 2 * (double)b->npairs;
        if (b->kind == BENCH_COLLECTIVE)
            n += (b->gpus > 0 ? b->gpus : ngpus) *
                 (1 + (b->algo == COLL_ALGO_NCCL && b->level == COLL_MESSAGE ? 31 : 0));
        break;
    }
    if (ts->data.present) n += P * (ts->data.workers + 3); /* loaders, copier, h2d, fetch */
    return n;
}

/* This machine's physical memory (sysconf), or 0 when it cannot be told. */
static double physical_memory_B(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

/* The host memory the simulation will take, estimated before anything is generated or loaded
 * (platform, the fault plan's copy of the platform document, actors), against this machine's
 * physical memory: beyond it the run would be killed for memory, or take hours in swap, after
 * minutes of set-up, so it is refused at the <cluster> or <platform> element. */
enum dmlsim_err platform_mem_check(const struct scenario *sc, const struct pf_size *z,
                                    struct dmlsim_error *err)
{
    double limit = physical_memory_B();
    double platform = MEM_BASE_B + MEM_HOST_B * z->hosts + MEM_LINK_B * z->links +
                      MEM_ZONE_B * z->zones + MEM_ROUTE_B * z->routes + MEM_HOP_B * z->hops;
    double dom = sc->nfaults > 0 ? MEM_DOM_PER_B * z->file_B : 0;
    double actors = actor_estimate(sc, z->gpus), total = platform + dom + MEM_ACTOR_B * actors;
    if (limit <= 0 || total <= limit) return DMLSIM_OK;
    char doc[96] = "";
    if (dom > 0) snprintf(doc, sizeof doc, ", its document for the fault plan %.1f GB", dom / 1e9);
    return dmlsim_fail(err, DMLSIM_EVALUE,
                       "%s:%d: <%s>: the simulation needs about %.1f GB of host memory (a platform "
                       "of %.0f GPU(s), %.0f host(s) and %.0f link(s) %.1f GB%s, about %.0f "
                       "actor(s) %.1f GB), more than this machine's %.1f GB; expected a smaller "
                       "platform or fewer workers",
                       sc->path, sc->cluster_line, sc->has_cluster ? "cluster" : "platform",
                       total / 1e9, z->gpus, z->hosts, z->links, platform / 1e9, doc, actors,
                       MEM_ACTOR_B * actors / 1e9, limit / 1e9);
}

/* Memory mappings in use by this process (lines of /proc/self/maps), or 0. */
static long mappings_in_use(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int ch;
    while (f && (ch = getc(f)) != EOF)
        n += ch == '\n';
    if (f) fclose(f);
    return n;
}

/* vm.max_map_count, or Linux's default 65,530 when it cannot be read. */
static long max_map_count(void)
{
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    long v = 0;
    if (f == NULL || fscanf(f, "%ld", &v) != 1 || v <= 0) v = 65530;
    if (f) fclose(f);
    return v;
}

/* Mappings beyond the actors' stacks and what is mapped now: allocations of a run that glibc or
 * jemalloc serve with mmaps of their own. */
#define MAP_SLACK 4096

/* Stack guard pages, decided before any actor starts. SimGrid maps each actor's stack with a
 * PROT_NONE guard page below it: two memory mappings an actor (the two protections never merge
 * with a neighbour's), and past vm.max_map_count (65,530 by default) mprotect fails and SimGrid
 * aborts ("Failed to protect stack"), e.g. a parameter server of 800 workers and 200 shards
 * (160,000 port actors). When the estimated actors need more mappings than the limit leaves,
 * the run goes without guard pages (contexts/guard-size:0, one line on stderr), unless the user
 * set contexts/guard-size: then a guard size above 0 is refused here, at <training>. */
enum dmlsim_err platform_mem_choose_guard_pages(const struct scenario *sc, double ngpus,
                                          struct dmlsim_error *err)
{
    double actors = actor_estimate(sc, ngpus);
    long limit = max_map_count(), used = mappings_in_use();
    bool over = 2 * actors + (double)used + MAP_SLACK > (double)limit;
    bool user = sgcfg_user_set("contexts/guard-size");
    if (over && user && sg_cfg_get_int("contexts/guard-size") > 0)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: about %.0f actors with stack guard pages need %.0f memory "
                           "mappings, more than vm.max_map_count allows (%ld, %ld in use); "
                           "expected --cfg=contexts/guard-size:0 or a larger vm.max_map_count",
                           sc->path, sc->train.line, actors, 2 * actors, limit, used);
    bool no_guard = over && !user;
#ifdef DMLSIM_SANITIZE
    /* Under ASan no guard pages either: LeakSanitizer crashes (SEGV in its tracer) when it scans
     * a SimGrid stack kept at exit by a dead actor, at its PROT_NONE guard page. */
    no_guard = !user;
#endif
    if (over && !user)
        fprintf(stderr,
                "dmlsim: about %.0f actors would need %.0f memory mappings with stack guard "
                "pages, more than vm.max_map_count allows (%ld): running without guard pages "
                "(contexts/guard-size:0)\n",
                actors, 2 * actors, limit);
    if (no_guard) sg_cfg_set_int("contexts/guard-size", 0);
    /* Without guard pages (set here or by --cfg) SimGrid callocs each actor's stack. glibc
     * serves a calloc that large with a fresh mmap (zero pages, touched only as used) up to
     * M_MMAP_MAX = 65,536 mappings, and from the heap after that, where calloc clears the whole
     * stack: at P = 65,536 (two actors a rank) RSS jumped from 1.4 GB at 32,768 to 10.8 GB.
     * Lifting the count and pinning the threshold (a freed stack would raise it past the stack
     * size) keeps every stack an mmap; the kernel merges the adjacent ones, so vm.max_map_count
     * is not reached. Measured: 2.7 GB and 23 s instead of 10.8 GB and 55 s (README,
     * Performance). */
    if (sg_cfg_get_int("contexts/guard-size") == 0) {
        mallopt(M_MMAP_THRESHOLD, 128 * 1024); /* glibc's default threshold */
        mallopt(M_MMAP_MAX, INT_MAX);
    }
    return DMLSIM_OK;
}
