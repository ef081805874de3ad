/* validate_sim.c - a job simulated on the machine it was measured on (see validate_sim.h). */
#include "validate_sim.h"

#include "bench.h"
#include "platform.h"
#include "scenario.h"

#include <simgrid/engine.h>
#include <xbt/log.h>
#include <xbt/sysdep.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *validate_sim_default_nic(const struct calib *c, const struct gpu_model *g,
                                     const char *opt)
{
    if (opt) return opt;
    if (strcmp(c->net, "Socket") == 0) return "tcp-100g";
    return g->sm >= 90 ? "ib-ndr" : g->sm >= 80 ? "ib-hdr" : g->sm >= 70 ? "ib-edr" : "ib-fdr";
}

static void machine_scenario(const struct validate_job *j, const struct validate_machine *mc,
                             struct scenario *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->path = xbt_strdup("validate");
    sc->name = xbt_strdup("validate");
    sc->net_model = NET_CM02;
    sc->has_cluster = true;
    struct cluster_spec *c = &sc->cluster;
    int nodes = j->coll && j->nodes > 1 ? j->nodes : 1;
    c->nodes = nodes;
    c->gpus_per_node = j->coll ? j->nranks / nodes : 2;
    c->gpu = mc->gpu;
    c->intra = catalog_link(mc->intra);
    c->pcie = c->intra->kind == LINK_PCIE ? c->intra : catalog_link(mc->gpu->pcie);
    c->nic = nodes > 1 ? catalog_link(mc->nic) : NULL;
    c->nics_per_node = nodes > 1 ? (mc->nics > 0 ? mc->nics : c->gpus_per_node) : 1;
    c->topology = TOPO_STAR;
    c->sharp = mc->sharp && nodes > 1 && c->nic->kind == LINK_IB;
    c->nodes_per_leaf = nodes;
    c->spines = 1;
    c->oversubscription = 1;
}

/* Runs the sizes idx[0 .. m) of job j in this (child) process at `level`, with the network
 * calibration nc (or NULL), and writes their validate_sim_out to fd. */
static void run_job(const struct validate_job *j, const struct validate_machine *mc,
                    const struct netcal *nc, enum coll_level level, const size_t *idx, size_t m,
                    int fd)
{
    struct scenario sc;
    machine_scenario(j, mc, &sc);
    struct benchmark *b = &sc.bench;
    double *sizes = xbt_new0(double, m);
    for (size_t i = 0; i < m; i++)
        sizes[i] = j->sizes[idx[i]];
    b->sizes = sizes;
    b->nsizes = m;
    b->timeout_s = 3600;
    b->factor = 2;
    b->begin_B = b->end_B = sizes[0];
    int argc = 1;
    char *argv[] = {"dmlsim", NULL};
    simgrid_init(&argc, argv);
    xbt_log_control_set("root.thres:critical");
    platform_configure(&sc);
    struct platform *pf = NULL;
    struct fault_plan plan = {0};
    struct dmlsim_error err = {0};
    struct validate_sim_out *out = xbt_new0(struct validate_sim_out, m);
    if (platform_setup(&sc, &plan, &pf, &err) == DMLSIM_OK) {
        if (j->coll) {
            b->kind = BENCH_COLLECTIVE;
            b->op = j->op;
            b->algo = mc->algo;
            b->nccl = mc->nccl;
            b->level = level;
            b->chunks = 8;
            b->gpus = j->nranks;
            struct coll_result res;
            if (bench_coll_check(&sc, pf, &err) == DMLSIM_OK) {
                bench_coll_run(&sc, pf, nc, &res);
                for (size_t i = 0; i < m && i < res.nrows; i++) {
                    out[i].time_s = res.rows[i].time_s;
                    snprintf(out[i].choice, VALIDATE_SIM_CHOICE_LEN, "%s", res.rows[i].choice);
                }
            }
        } else {
            bool h2d = strncmp(j->kind, "h2d", 3) == 0, peer = strcmp(j->kind, "peer") == 0;
            struct bench_pair pair = {
                    xbt_strdup(h2d ? "node0.cpu" : "node0.gpu0"),
                    xbt_strdup(h2d || peer ? (peer ? "node0.gpu1" : "node0.gpu0") : "node0.cpu"),
                    0};
            b->kind = BENCH_P2P;
            b->pairs = &pair;
            b->npairs = 1;
            struct p2p_result res;
            if (bench_check_hosts(&sc, &err) == DMLSIM_OK) {
                bench_p2p_run(&sc, &res);
                for (size_t i = 0; i < m && i < res.nrows; i++)
                    out[i].time_s = res.rows[i].time_s;
            }
            free(pair.src);
            free(pair.dst);
        }
    }
    if (write(fd, out, m * sizeof *out) < 0) _exit(1);
    _exit(0);
}

/* Starts a child simulating the sizes idx[0 .. m) of j at `level`; its pid, and the read end of
 * its pipe in *fd; -1 if it could not start. */
static pid_t start_sim(const struct validate_job *j, const struct validate_machine *mc,
                       const struct netcal *nc, enum coll_level level, const size_t *idx, size_t m,
                       int *fd)
{
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        run_job(j, mc, nc, level, idx, m, fds[1]);
    }
    close(fds[1]);
    *fd = fds[0];
    if (pid < 0) close(fds[0]);
    return pid;
}

/* Reads the child's m results into out[idx[i]] and reaps it; false if it failed. */
static bool finish_sim(pid_t pid, int fd, const size_t *idx, size_t m, struct validate_sim_out *out)
{
    struct validate_sim_out *buf = xbt_new0(struct validate_sim_out, m);
    size_t want = m * sizeof *buf, got = 0;
    ssize_t k;
    while (got < want && (k = read(fd, (char *)buf + got, want - got)) > 0)
        got += (size_t)k;
    close(fd);
    int st;
    waitpid(pid, &st, 0);
    bool ok = got == want && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    for (size_t i = 0; ok && i < m; i++) {
        ok = buf[i].time_s > 0;
        out[idx[i]] = buf[i];
    }
    free(buf);
    return ok;
}

/* ---- the level of each size ---------------------------------------------------------------- */

/* At message level every step of every channel is a SimGrid message: at 16 nodes x 8 H100 an
 * all-reduce of 4 GiB (NCCL's ring, 16 channels) is about a million of them, 54 CPU s, and a log
 * is simulated up to FIT_ROUNDS + 1 times. Flow level (one flow per ring edge and phase) takes
 * 0.1 s for the same call. The two agree where the call is bandwidth-bound: on H100 and A100
 * clusters of 1 x 8 to 16 x 8 GPUs (all-reduce, all-gather, reduce-scatter, 8 B to 16 GiB),
 * flow level is within 0.2% of message level for NVLS and 1% for trees below 1 MiB, but up to
 * 25% faster for rings and trees between 128 KiB and 128 MiB (where per-step pipelining is the
 * message level's own), and within 5.8% from 256 MiB up (typically under 2%; the 5.8% is an
 * all-gather of 2 GiB on 16 x 8; tests/validate_logs.sh checks 4 x 2: at most 1.5%). So: flow level
 * from VALIDATE_FLOW_BYTES up, on VALIDATE_FLOW_NODES nodes or more (where message level costs
 * minutes; on fewer nodes every size stays at message level, as before), for the collectives
 * that have a flow level (NCCL's and the textbook ring's all-reduce, all-gather and
 * reduce-scatter; broadcast and all-to-all run the same at either level). */
#define VALIDATE_FLOW_BYTES (256.0 * 1024 * 1024)
#define VALIDATE_FLOW_NODES 4

static enum coll_level validate_level(enum coll_op op, enum coll_algo_id algo, int nranks,
                                      int nodes, double size)
{
    (void)nranks;
    bool flow = coll_algo_has_flow(algo) && op != COLL_BROADCAST && op != COLL_ALLTOALL &&
                nodes >= VALIDATE_FLOW_NODES && size >= VALIDATE_FLOW_BYTES;
    return flow ? COLL_FLOW : COLL_MESSAGE;
}

enum coll_level validate_sim_level(const struct validate_job *j, const struct validate_machine *mc,
                                   double size)
{
    if (!j->coll) return COLL_MESSAGE;
    if (mc->level >= 0) return (enum coll_level)mc->level;
    return validate_level(j->op, mc->algo, j->nranks, j->nodes, size);
}

bool validate_sim_run_some(const struct validate_job *j, const struct validate_machine *mc,
                           const struct netcal *nc, const bool *use, struct validate_sim_out *out)
{
    size_t *idx[2] = {xbt_new0(size_t, j->n), xbt_new0(size_t, j->n)}, m[2] = {0, 0};
    for (size_t i = 0; i < j->n; i++) {
        if (use && !use[i]) continue;
        int lv = validate_sim_level(j, mc, j->sizes[i]) == COLL_FLOW;
        idx[lv][m[lv]++] = i;
    }
    pid_t pid[2] = {-1, -1};
    int fd[2] = {-1, -1};
    bool ok = true;
    for (int lv = 0; lv < 2; lv++)
        if (m[lv] > 0) {
            pid[lv] = start_sim(j, mc, nc, lv ? COLL_FLOW : COLL_MESSAGE, idx[lv], m[lv], &fd[lv]);
            ok = ok && pid[lv] > 0;
        }
    for (int lv = 0; lv < 2; lv++)
        if (pid[lv] > 0) ok = finish_sim(pid[lv], fd[lv], idx[lv], m[lv], out) && ok;
    free(idx[0]);
    free(idx[1]);
    return ok;
}

bool validate_sim_run(const struct validate_job *j, const struct validate_machine *mc,
                      const struct netcal *nc, double *sim, struct validate_sim_out *plan)
{
    struct validate_sim_out *out = plan ? plan : xbt_new0(struct validate_sim_out, j->n);
    bool ok = validate_sim_run_some(j, mc, nc, NULL, out);
    for (size_t i = 0; i < j->n; i++)
        sim[i] = out[i].time_s;
    if (!plan) free(out);
    return ok;
}
