/* fault.c - building the fault plan (see fault.h). */
#include "fault.h"

#include "scenario.h"

#include "mem.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EVENT_NAME_ROW(kind, name, prints_factor, play) [kind] = name,
static const char *const kind_names[FAULT_KIND_COUNT] = {FAULT_EVENT_KINDS(EVENT_NAME_ROW)};
#undef EVENT_NAME_ROW

#define EVENT_FACTOR_ROW(kind, name, prints_factor, play) [kind] = prints_factor,
static const bool prints_factor[FAULT_KIND_COUNT] = {FAULT_EVENT_KINDS(EVENT_FACTOR_ROW)};
#undef EVENT_FACTOR_ROW

const char *fault_kind_name(enum fault_kind k)
{
    return k < FAULT_KIND_COUNT ? kind_names[k] : "?";
}

struct builder {
    struct fault_plan *plan;
    bool full;  /* FAULT_MAX_EVENTS reached: the generators stop */
    size_t cap;
    size_t *order; /* insertion order, for stable sorting */
};

static struct fault_event *add(struct builder *b, enum fault_kind kind, double t_s, int step,
                               const char *target, const struct fault_spec *f, const char *cause)
{
    if (b->plan->n + 1 >= FAULT_MAX_EVENTS) b->full = true;
    if (b->plan->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 16;
        b->plan->ev = mem_realloc(b->plan->ev, b->cap * sizeof *b->plan->ev);
    }
    struct fault_event *e = &b->plan->ev[b->plan->n++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->t_s = t_s;
    e->step = step;
    snprintf(e->target, sizeof e->target, "%s", target);
    e->restart_s = -1;
    e->shard = -1;
    e->factor = f ? f->factor : 0;
    e->cause = cause;
    e->line = f ? f->line : 0;
    return e;
}

/* Does target T name host/link H: equal, or H inside T ("node1" names "node1.gpu0")? */
static bool names(const char *t, const char *h)
{
    size_t n = strlen(t);
    return strcmp(t, h) == 0 || (strncmp(t, h, n) == 0 && h[n] == '.');
}

static bool is_nic_link(const char *node, const char *link)
{
    char prefix[80];
    snprintf(prefix, sizeof prefix, "%s.nic", node);
    return strncmp(link, prefix, strlen(prefix)) == 0;
}

/* Adds a window [at, at + for) of kind/end on every link the spec's link or node names. */
static int link_window(struct builder *b, const struct fault_spec *f, const char *node,
                       enum fault_kind start, enum fault_kind end, char **links, size_t nlinks,
                       const char *cause)
{
    int hits = 0;
    for (size_t i = 0; i < nlinks; i++) {
        bool hit = node ? is_nic_link(node, links[i]) : strcmp(f->link, links[i]) == 0;
        if (!hit) continue;
        hits++;
        add(b, start, f->at_s, -1, links[i], f, cause);
        if (f->for_s > 0 && end != FAULT_NO_EVENT)
            add(b, end, f->at_s + f->for_s, -1, links[i], f, cause);
    }
    return hits;
}

static int cmp_events(const void *x, const void *y)
{
    const struct fault_event *a = x, *b = y;
    bool sa = a->t_s < 0, sb = b->t_s < 0;
    if (sa != sb) return sa ? 1 : -1;
    if (!sa && a->t_s != b->t_s) return a->t_s < b->t_s ? -1 : 1;
    if (sa && a->step != b->step) return a->step < b->step ? -1 : 1;
    return 0; /* qsort is not stable: ties are broken by the caller's index below */
}

struct indexed {
    struct fault_event e;
    size_t i;
};

static int cmp_indexed(const void *x, const void *y)
{
    const struct indexed *a = x, *b = y;
    int c = cmp_events(&a->e, &b->e);
    return c ? c : (a->i < b->i ? -1 : a->i > b->i);
}

static enum dmlsim_err unknown(const struct scenario *sc, const struct fault_spec *f,
                               const char *what, const char *name, struct dmlsim_error *err)
{
    return dmlsim_fail(err, DMLSIM_EVALUE,
                       "%s:%d: no %s named \"%s\" in the platform; expected one of its %s names "
                       "(see dmlsim platform)",
                       sc->path, f->line, what, name, what);
}

/* Is h one of the names in list[0..n)? */
static bool listed(char *const *list, size_t n, const char *h)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], h) == 0) return true;
    return false;
}

/* Crashes of every host the spec names. A node crashed at a step (host="node1" step="N") is its
 * GPUs, each when its worker reaches step N: a step is reached only where a worker runs, so the
 * node's CPU host and other hosts without a GPU are not part of it (at a time, they are). */
static int add_crashes(struct builder *b, const struct fault_spec *f, const struct fault_names *nm)
{
    int hits = 0;
    bool node_at_step = f->step >= 0 && !listed(nm->hosts, nm->nhosts, f->host);
    for (size_t h = 0; h < nm->nhosts; h++) {
        if (!names(f->host, nm->hosts[h])) continue;
        if (node_at_step && !listed(nm->gpus, nm->ngpus, nm->hosts[h])) continue;
        hits++;
        struct fault_event *e = add(b, FAULT_CRASH, f->at_s, f->step, nm->hosts[h], f, "crash");
        e->restart_s = f->restart_s;
        if (f->at_s >= 0 && f->restart_s >= 0)
            add(b, FAULT_RESTART, f->at_s + f->restart_s, -1, nm->hosts[h], f, "crash");
    }
    return hits;
}

/* Stragglers: the GPU hosts the spec names; when it names none, the other hosts it names (a
 * parameter-server machine, "ps0": a straggling shard). */
static int add_stragglers(struct builder *b, const struct fault_spec *f,
                          const struct fault_names *nm)
{
    int hits = 0;
    for (int pass = 0; pass < 2 && hits == 0; pass++) {
        char **list = pass == 0 ? nm->gpus : nm->hosts;
        size_t n = pass == 0 ? nm->ngpus : nm->nhosts;
        for (size_t h = 0; h < n; h++) {
            if (!names(f->host, list[h])) continue;
            hits++;
            add(b, FAULT_SLOW, f->at_s, -1, list[h], f, "straggler");
            if (f->for_s > 0)
                add(b, FAULT_SLOW_END, f->at_s + f->for_s, -1, list[h], f, "straggler");
        }
    }
    return hits;
}

/* A generated platform's partition links (scenario_partition_link): every group's goes down
 * for the window, which cuts the routes between groups and no other; true if the platform has
 * them. */
static bool cut_between_groups(struct builder *b, const struct fault_spec *f,
                               const struct fault_names *nm)
{
    int hits = 0;
    for (int g = 0; g < scenario_partition_groups(f); g++) {
        char id[96];
        scenario_partition_link(f, g, id, sizeof id);
        size_t n = strlen(id);
        for (size_t i = 0; i < nm->nlinks; i++)
            if (strncmp(nm->links[i], id, n) == 0 && nm->links[i][n] == '.') {
                hits++;
                add(b, FAULT_LINK_DOWN, f->at_s, -1, nm->links[i], f, "partition");
                if (f->for_s > 0)
                    add(b, FAULT_LINK_UP, f->at_s + f->for_s, -1, nm->links[i], f, "partition");
            }
    }
    return hits > 0;
}

/* Does `name` name a machine of the platform: a host "name.X" (a generated platform's zone, such
 * as node1, ps0 or storage), or, on a user's platform, also a host called so or links "name.nic*"
 * (the NIC links a partition takes down there)? */
static bool names_machine(const struct fault_names *nm, const char *name, bool generated)
{
    size_t n = strlen(name);
    for (size_t h = 0; h < nm->nhosts; h++)
        if (strncmp(nm->hosts[h], name, n) == 0 &&
            (nm->hosts[h][n] == '.' || (!generated && nm->hosts[h][n] == '\0')))
            return true;
    for (size_t i = 0; !generated && i < nm->nlinks; i++)
        if (is_nic_link(name, nm->links[i])) return true;
    return false;
}

/* The first name of the partition's groups that names no machine of the platform (into bad),
 * or "": a group of unknown names would cut nothing, silently. */
static void unknown_group_name(const struct fault_spec *f, const struct fault_names *nm,
                               bool generated, char *bad, size_t len)
{
    bad[0] = '\0';
    for (const char *p = f->groups; p && *p && !bad[0];) {
        size_t n = strcspn(p, ",|");
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
        if (!names_machine(nm, name, generated)) snprintf(bad, len, "%s", name);
        p += n;
        if (*p) p++;
    }
}

/* A generated platform: the routes between groups are cut. A user's platform (no partition
 * links): every node outside the first group loses its NIC links for the window; the node that
 * has none is returned in *bad (NULL if all had some). Either way, a name that is no machine of
 * the platform is returned in *bad. */
static void add_partition(struct builder *b, const struct fault_spec *f, bool generated,
                          const struct fault_names *nm, char *bad, size_t len)
{
    unknown_group_name(f, nm, generated, bad, len);
    if (bad[0] || cut_between_groups(b, f, nm)) return;
    char *copy = mem_strdup(f->groups), *save = NULL;
    strtok_r(copy, "|", &save); /* the first group keeps the store */
    for (char *grp = strtok_r(NULL, "|", &save); grp && !bad[0]; grp = strtok_r(NULL, "|", &save)) {
        char *s2 = NULL;
        for (char *node = strtok_r(grp, ",", &s2); node; node = strtok_r(NULL, ",", &s2))
            if (link_window(b, f, node, FAULT_LINK_DOWN, FAULT_LINK_UP, nm->links, nm->nlinks,
                            "partition") == 0) {
                snprintf(bad, len, "%s", node);
                break;
            }
    }
    free(copy);
}

static int add_corrupt(struct builder *b, const struct fault_spec *f, const struct fault_names *nm,
                       gsl_rng *rng, int steps)
{
    int hits = 0;
    for (size_t h = 0; h < nm->ngpus; h++) {
        if (f->probability > 0) {
            for (int s = 0; s < steps && !b->full; s++)
                if (gsl_rng_uniform(rng) < f->probability)
                    add(b, FAULT_CORRUPT, -1, s, nm->gpus[h], f, "corrupt-batch");
            hits++;
        } else if (strcmp(f->host, nm->gpus[h]) == 0) {
            hits++;
            add(b, FAULT_CORRUPT, -1, f->step, nm->gpus[h], f, "corrupt-batch");
        }
    }
    return hits;
}

static void add_mtbf(struct builder *b, const struct fault_spec *f, const struct fault_names *nm,
                     gsl_rng *rng)
{
    /* Weibull scale for the requested mean: mean = scale x Gamma(1 + 1/k). */
    double scale = f->weibull ? f->mtbf_s / gsl_sf_gamma(1 + 1 / f->shape) : 0;
    for (size_t h = 0; h < nm->ngpus && !b->full; h++) {
        for (double t = 0; !b->full;) {
            t += f->weibull ? gsl_ran_weibull(rng, scale, f->shape)
                            : gsl_ran_exponential(rng, f->mtbf_s);
            if (t >= f->until_s) break;
            struct fault_event *e = add(b, FAULT_CRASH, t, -1, nm->gpus[h], f, "mtbf");
            e->restart_s = f->restart_s;
            add(b, FAULT_RESTART, t + f->restart_s, -1, nm->gpus[h], f, "mtbf");
            t += f->restart_s;
        }
    }
}

/* The plan builders of the <faults> children (faultkind.h: plan_NAME of each row): each adds the
 * events of one child and checks its targets exist. */
static enum dmlsim_err plan_crash(struct builder *b, const struct scenario *sc,
                                  const struct fault_spec *f, const struct fault_names *nm,
                                  gsl_rng *rng, struct dmlsim_error *err)
{
    (void)rng;
    return add_crashes(b, f, nm) ? DMLSIM_OK : unknown(sc, f, "host", f->host, err);
}

static enum dmlsim_err plan_straggler(struct builder *b, const struct scenario *sc,
                                      const struct fault_spec *f, const struct fault_names *nm,
                                      gsl_rng *rng, struct dmlsim_error *err)
{
    (void)rng;
    if (f->sigma > 0) {
        b->plan->jitter_sigma = f->sigma;
        return DMLSIM_OK;
    }
    return add_stragglers(b, f, nm) ? DMLSIM_OK : unknown(sc, f, "host", f->host, err);
}

/* Every row's plan events (faultkind.h: START and END). */
#define START_ROW(kind, element, targets, read, plan, start, end) [kind] = start,
static const enum fault_kind start_of[FS_KIND_COUNT] = {FAULT_SPEC_KINDS(START_ROW)};
#undef START_ROW
#define END_ROW(kind, element, targets, read, plan, start, end) [kind] = end,
static const enum fault_kind end_of[FS_KIND_COUNT] = {FAULT_SPEC_KINDS(END_ROW)};
#undef END_ROW

/* A window [at, at + for) of the row's START and END (none if for is absent, or END
 * FAULT_NO_EVENT) on every host the spec's host names (a host, or a node's hosts). */
static int host_window(struct builder *b, const struct fault_spec *f, const struct fault_names *nm,
                       const char *cause)
{
    int hits = 0;
    for (size_t h = 0; h < nm->nhosts; h++) {
        if (!names(f->host, nm->hosts[h])) continue;
        hits++;
        add(b, start_of[f->kind], f->at_s, -1, nm->hosts[h], f, cause);
        if (f->for_s > 0 && end_of[f->kind] != FAULT_NO_EVENT)
            add(b, end_of[f->kind], f->at_s + f->for_s, -1, nm->hosts[h], f, cause);
    }
    return hits;
}

/* The generic plan builder (faultkind.h's PLAN `window`: link-down, degrade, and any kind that
 * is "from at, for a while, on a host, a link or a node's NIC links"): the row's START at `at`
 * and END at `at + for` on each target, whose existence it checks. */
static enum dmlsim_err plan_window(struct builder *b, const struct scenario *sc,
                                   const struct fault_spec *f, const struct fault_names *nm,
                                   gsl_rng *rng, struct dmlsim_error *err)
{
    (void)rng;
    const char *cause = scenario_fault_element(f->kind);
    if (f->host)
        return host_window(b, f, nm, cause) ? DMLSIM_OK : unknown(sc, f, "host", f->host, err);
    if (link_window(b, f, f->node, start_of[f->kind], end_of[f->kind], nm->links, nm->nlinks,
                    cause))
        return DMLSIM_OK;
    return unknown(sc, f, f->node ? "node with NIC links" : "link", f->node ? f->node : f->link,
                   err);
}

static enum dmlsim_err plan_partition(struct builder *b, const struct scenario *sc,
                                      const struct fault_spec *f, const struct fault_names *nm,
                                      gsl_rng *rng, struct dmlsim_error *err)
{
    (void)rng;
    char bad[64];
    add_partition(b, f, sc->has_cluster, nm, bad, sizeof bad);
    return bad[0] ? unknown(sc, f, sc->has_cluster ? "node" : "node with NIC links", bad, err)
                  : DMLSIM_OK;
}

static enum dmlsim_err plan_corrupt(struct builder *b, const struct scenario *sc,
                                    const struct fault_spec *f, const struct fault_names *nm,
                                    gsl_rng *rng, struct dmlsim_error *err)
{
    int steps = sc->train.steps > 0 ? sc->train.steps : 0;
    if (add_corrupt(b, f, nm, rng, steps) || f->probability > 0) return DMLSIM_OK;
    return unknown(sc, f, "GPU host", f->host, err);
}

static enum dmlsim_err plan_mtbf(struct builder *b, const struct scenario *sc,
                                 const struct fault_spec *f, const struct fault_names *nm,
                                 gsl_rng *rng, struct dmlsim_error *err)
{
    (void)sc;
    (void)err;
    add_mtbf(b, f, nm, rng);
    return DMLSIM_OK;
}

/* A standing fault: the shard fails from the start (the pipeline and <numerics> ask
 * fault_sample_corrupt); the reader checked the shard exists. */
static enum dmlsim_err plan_corrupt_shard(struct builder *b, const struct scenario *sc,
                                          const struct fault_spec *f, const struct fault_names *nm,
                                          gsl_rng *rng, struct dmlsim_error *err)
{
    (void)sc;
    (void)nm;
    (void)rng;
    (void)err;
    char shard[32];
    snprintf(shard, sizeof shard, "shard %lld", f->shard);
    add(b, FAULT_SHARD_CORRUPT, 0, -1, shard, f, "corrupt-shard")->shard = f->shard;
    return DMLSIM_OK;
}

/* The tier of the node's CPU host (which must exist) is lost at `at`, and down until its
 * restart (restart-after > 0; else it serves again at once, empty). */
static enum dmlsim_err plan_cache_crash(struct builder *b, const struct scenario *sc,
                                        const struct fault_spec *f, const struct fault_names *nm,
                                        gsl_rng *rng, struct dmlsim_error *err)
{
    (void)rng;
    char cpu[80];
    snprintf(cpu, sizeof cpu, "%s.cpu", f->node);
    if (!listed(nm->hosts, nm->nhosts, cpu))
        return unknown(sc, f, "node with a CPU host", f->node, err);
    double down_s = f->restart_s > 0 ? f->restart_s : 0;
    add(b, FAULT_CACHE_CRASH, f->at_s, -1, cpu, f, "cache-crash")->restart_s = down_s;
    if (down_s > 0) add(b, FAULT_CACHE_RESTART, f->at_s + down_s, -1, cpu, f, "cache-crash");
    return DMLSIM_OK;
}

#define PLAN_ROW(kind, element, targets, read, plan, start, end) [kind] = plan_##plan,
static enum dmlsim_err (*const plan_of[FS_KIND_COUNT])(struct builder *, const struct scenario *,
                                                       const struct fault_spec *,
                                                       const struct fault_names *, gsl_rng *,
                                                       struct dmlsim_error *) = {
        FAULT_SPEC_KINDS(PLAN_ROW)};
#undef PLAN_ROW

/* Adds the events of one <faults> child; checks its targets exist. */
static enum dmlsim_err add_spec(struct builder *b, const struct scenario *sc,
                                const struct fault_spec *f, const struct fault_names *nm,
                                gsl_rng *rng, struct dmlsim_error *err)
{
    return plan_of[f->kind](b, sc, f, nm, rng, err);
}

static int cmp_shard(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

/* plan->shards: the corrupt-shard events' shards, sorted, each once (fault_sample_corrupt asks
 * it for every sample a batch reads). */
static void index_shards(struct fault_plan *plan)
{
    size_t n = 0;
    for (size_t i = 0; i < plan->n; i++)
        n += plan->ev[i].kind == FAULT_SHARD_CORRUPT;
    if (n == 0) return;
    plan->shards = mem_new(long long, n);
    for (size_t i = 0; i < plan->n; i++)
        if (plan->ev[i].kind == FAULT_SHARD_CORRUPT)
            plan->shards[plan->nshards++] = plan->ev[i].shard;
    qsort(plan->shards, plan->nshards, sizeof *plan->shards, cmp_shard);
    n = 0;
    for (size_t i = 0; i < plan->nshards; i++)
        if (n == 0 || plan->shards[n - 1] != plan->shards[i]) plan->shards[n++] = plan->shards[i];
    plan->nshards = n;
}

enum dmlsim_err fault_plan_build(const struct scenario *sc, const struct fault_names *nm,
                                 struct fault_plan *plan, struct dmlsim_error *err)
{
    struct builder b = {.plan = plan};
    enum dmlsim_err rc = DMLSIM_OK;
    memset(plan, 0, sizeof *plan);
    plan->seed = sc->seed;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, sc->seed);
    for (size_t i = 0; i < sc->nfaults && rc == DMLSIM_OK; i++) {
        rc = add_spec(&b, sc, &sc->faults[i], nm, rng, err);
        if (rc == DMLSIM_OK && b.full)
            rc = dmlsim_fail(err, DMLSIM_EVALUE,
                             "%s:%d: <%s>: the fault plan would hold more than %d events; "
                             "expected fewer (a longer mtbf, a shorter until, fewer steps)",
                             sc->path, sc->faults[i].line, scenario_fault_element(sc->faults[i].kind),
                             FAULT_MAX_EVENTS);
    }
    gsl_rng_free(rng);
    if (rc != DMLSIM_OK) {
        fault_plan_release(plan);
        return rc;
    }
    struct indexed *tmp = mem_new(struct indexed, plan->n ? plan->n : 1);
    for (size_t i = 0; i < plan->n; i++)
        tmp[i] = (struct indexed){plan->ev[i], i};
    qsort(tmp, plan->n, sizeof *tmp, cmp_indexed);
    for (size_t i = 0; i < plan->n; i++)
        plan->ev[i] = tmp[i].e;
    free(tmp);
    index_shards(plan);
    return DMLSIM_OK;
}

int fault_plan_pstate(const struct fault_plan *plan, size_t i)
{
    int k = 0;
    for (size_t j = 0; j < i; j++)
        k += plan->ev[j].kind == FAULT_SLOW && strcmp(plan->ev[j].target, plan->ev[i].target) == 0;
    return k;
}

int fault_plan_slow_events(const struct fault_plan *plan, const char *target)
{
    int n = 0;
    for (size_t j = 0; j < plan->n; j++)
        n += plan->ev[j].kind == FAULT_SLOW && strcmp(plan->ev[j].target, target) == 0;
    return n;
}

void fault_plan_release(struct fault_plan *plan)
{
    free(plan->ev);
    free(plan->shards);
    memset(plan, 0, sizeof *plan);
}

void fault_plan_print(const struct fault_plan *plan, FILE *out)
{
    fprintf(out, "# fault plan (seed %lu): %zu event(s)%s\n", plan->seed, plan->n,
            plan->jitter_sigma > 0 ? ", plus lognormal compute jitter" : "");
    if (plan->jitter_sigma > 0)
        fprintf(out,
                "# jitter        every worker's compute of every step x max(1, "
                "lognormal(0, %g))\n",
                plan->jitter_sigma);
    fprintf(out, "#%13s %8s %14s %-26s %10s  %s\n", "time", "step", "event", "target", "factor",
            "cause");
    fprintf(out, "#%13s %8s\n", "(s)", "");
    for (size_t i = 0; i < plan->n; i++) {
        const struct fault_event *e = &plan->ev[i];
        char when[32], step[16], factor[32];
        snprintf(when, sizeof when, e->t_s < 0 ? "-" : "%.6f", e->t_s);
        snprintf(step, sizeof step, e->step < 0 ? "-" : "%d", e->step);
        snprintf(factor, sizeof factor,
                 prints_factor[e->kind] ? "%g" : "-", e->factor);
        fprintf(out, " %13s %8s %14s %-26s %10s  %s (line %d)", when, step,
                fault_kind_name(e->kind), e->target, factor, e->cause, e->line);
        if (e->kind == FAULT_CRASH && e->restart_s >= 0)
            fprintf(out, ", restart after %g s", e->restart_s);
        fputc('\n', out);
    }
}

/* splitmix64: a well-mixed 64-bit seed per (plan seed, rank, step) for the jitter generator. */
static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

double fault_jitter(const struct fault_plan *plan, int rank, int step)
{
    if (plan == NULL || plan->jitter_sigma <= 0) return 1;
    static gsl_rng *rng;
    if (rng == NULL) rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)mix(mix(plan->seed) ^ ((uint64_t)rank << 32 | (unsigned)step)));
    double f = gsl_ran_lognormal(rng, 0, plan->jitter_sigma);
    return f > 1 ? f : 1;
}

bool fault_is_corrupt(const struct fault_plan *plan, const char *host, int step)
{
    for (size_t i = 0; plan && i < plan->n; i++)
        if (plan->ev[i].kind == FAULT_CORRUPT && plan->ev[i].step == step &&
            strcmp(plan->ev[i].target, host) == 0)
            return true;
    return false;
}

bool fault_sample_corrupt(const struct fault_plan *plan, double shard_samples, long long i)
{
    if (plan == NULL || plan->nshards == 0) return false;
    long long shard = (long long)((double)i / shard_samples);
    return bsearch(&shard, plan->shards, plan->nshards, sizeof *plan->shards, cmp_shard) != NULL;
}
