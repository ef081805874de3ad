/* campaign.c - one replication of a campaign: the job's runs, checkpoints, failures, recoveries,
 * spares and repairs as discrete events (campaign.h). */
#include "campaign.h"

#include <assert.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_SLOW        64   /* fail-slow windows open at once; more are counted, not simulated */
#define MAX_REPAIR      4096 /* nodes in repair at once; beyond, a node is back at once (counted) */
#define CAMP_WALL_CAP_S 1e9  /* 32 years: a campaign that cannot progress ends here */

/* Work since the last checkpoint that counted, split as the rep's parts are. */
struct pend {
    double work_s, ckpt_s, shrunk_s;
    double slow_s[CAMP_MAX_CAUSES];
};

struct slow_win {
    double until_s; /* the window ends (absolute) */
    double evict_s; /* its detection: the job evicts the node then (INF: never) */
    int cause;      /* its cause */
};

struct job {
    const struct camp_config *cfg;
    const struct camp_costs *co;
    struct camp_rep *out;
    gsl_rng *rng;
    double t, end_s;
    double lambda_per_s; /* failures a second at full size */
    double next_fail_s;  /* the next arrival (full-size stream) */
    int next_cause;      /* its cause */
    double next_keep;    /* its thinning draw in [0, 1) */
    /* progress */
    double u;                 /* steps done in this timeline */
    long ck_step;             /* steps of the last checkpoint that counted */
    double block_left_s;      /* > 0: inside a checkpoint's block */
    bool forced;              /* a checkpoint at the next step boundary (a planned stop) */
    bool inflight;            /* an asynchronous write not counted yet */
    long inflight_step;       /* its steps */
    double inflight_commit_s; /* when it counts */
    struct pend a, b;         /* a: up to the in-flight snapshot (all, when none); b: after it */
    /* state */
    bool down;                 /* stopped: detecting, waiting for nodes or restarting */
    double detect_end_s;       /* down: the detection ends */
    double down_until_s;       /* down: training resumes (INF: waiting for nodes) */
    int down_cause;            /* down time goes to this cause */
    int phase;                 /* down: 0 detecting, 1 waiting for nodes, 2 restarting */
    int stop_cause;            /* a planned stop waiting for its checkpoint (-1: none) */
    bool grow;                 /* that stop is a shrunk job growing back */
    int shrink_cause;          /* the failure that made the job shrink */
    int dp_cur;                /* data-parallel replicas running */
    double base_step_s;        /* the step at dp_cur */
    int nodes_held;            /* nodes the job runs on */
    int pool;                  /* spare nodes free */
    double repair[MAX_REPAIR]; /* repair completion times (unordered) */
    int nrepair;
    struct slow_win slow[MAX_SLOW];
    int nslow;
    struct camp_event *ev; /* the failures traced (campaign_run_traced), or NULL */
    int maxev, nev;
};

static uint64_t mix64(uint64_t x)
{ /* splitmix64's finaliser (Steele, Lea, Flood, OOPSLA '14) */
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static int nodes_for(const struct camp_config *c, int dp)
{
    long g = (long)dp * (c->gpus / c->dp);
    return (int)((g + c->gpus_per_node - 1) / c->gpus_per_node);
}

static double cause_rate(const struct camp_config *c, int i)
{
    return c->causes[i].per_gpu_hour * c->failure_scale / 3600.0;
}

static void draw_failure(struct job *j)
{
    j->next_fail_s = j->lambda_per_s > 0
                             ? j->next_fail_s + gsl_ran_exponential(j->rng, 1.0 / j->lambda_per_s)
                             : INFINITY;
    double x = gsl_rng_uniform(j->rng) * j->lambda_per_s / j->cfg->gpus;
    int c = 0;
    for (; c < j->cfg->ncauses - 1; c++) {
        x -= cause_rate(j->cfg, c);
        if (x < 0) break;
    }
    j->next_cause = c;
    j->next_keep = gsl_rng_uniform(j->rng);
}

/* ---- the running job --------------------------------------------------------------------- */

static double slow_ratio(const struct job *j, int *cause)
{
    double r = 1;
    *cause = -1;
    for (int i = 0; i < j->nslow; i++) {
        double s = j->co->slow_step_s[j->slow[i].cause] / j->co->step_s;
        if (s > r) r = s, *cause = j->slow[i].cause;
    }
    return r;
}

/* d seconds of steps at the current speed, into the pending buckets. */
static void account_steps(struct job *j, double d)
{
    int sc;
    double r = slow_ratio(j, &sc), cur = j->base_step_s * r;
    struct pend *p = j->inflight ? &j->b : &j->a;
    p->work_s += d * j->co->step_s / cur;
    p->shrunk_s += d * (j->base_step_s - j->co->step_s) / cur;
    if (sc >= 0) p->slow_s[sc] += d * (cur - j->base_step_s) / cur;
    j->out->gpu_busy_s += d * (double)j->dp_cur * (j->cfg->gpus / j->cfg->dp);
}

static void pend_keep(struct job *j, struct pend *p)
{
    struct camp_rep *o = j->out;
    o->productive_s += p->work_s;
    o->ckpt_s += p->ckpt_s;
    o->shrunk_s += p->shrunk_s;
    for (int c = 0; c < j->cfg->ncauses; c++)
        o->slow_s[c] += p->slow_s[c];
    memset(p, 0, sizeof *p);
}

static void pend_lose(struct job *j, struct pend *p, int cause)
{
    double s = p->work_s + p->ckpt_s + p->shrunk_s;
    for (int c = 0; c < j->cfg->ncauses; c++)
        s += p->slow_s[c];
    j->out->lost_s[cause] += s;
    memset(p, 0, sizeof *p);
}

static void after_commit(struct job *j);

static void commit(struct job *j, long step)
{
    pend_keep(j, &j->a);
    j->a = j->b;
    memset(&j->b, 0, sizeof j->b);
    j->inflight = false;
    j->ck_step = step;
    j->out->checkpoints++;
    after_commit(j);
}

static void start_down(struct job *j, int cause, double detect_s);

/* The checkpoint's block ended at j->t. */
static void block_done(struct job *j)
{
    long s = (long)llround(j->u);
    if (j->co->ckpt_commit_s <= 0) {
        commit(j, s);
    } else {
        j->inflight = true;
        j->inflight_step = s;
        j->inflight_commit_s = j->t + j->co->ckpt_commit_s;
    }
}

static bool at_target(const struct job *j)
{
    return j->cfg->target_steps > 0 && j->u >= (double)j->cfg->target_steps;
}

/* The next step boundary where something happens: a checkpoint or the target. */
static double next_boundary(const struct job *j)
{
    double nb = INFINITY;
    if (j->cfg->every_steps > 0)
        nb = (floor(j->u / j->cfg->every_steps + 1e-9) + 1) * j->cfg->every_steps;
    if (j->forced) nb = fmin(nb, ceil(j->u - 1e-9) > j->u ? ceil(j->u - 1e-9) : j->u);
    if (j->cfg->target_steps > 0) nb = fmin(nb, (double)j->cfg->target_steps);
    return nb;
}

/* At a boundary: start a checkpoint (after the one in flight counted: wait for it). */
static void start_block(struct job *j)
{
    double wait = j->inflight ? fmax(0, j->inflight_commit_s - j->t) : 0;
    j->block_left_s = j->co->ckpt_block_s + wait;
    j->forced = false;
    if (j->block_left_s <= 0) block_done(j);
}

/* Runs the job from j->t to at most `to`; stops early at the target. */
static void run_until(struct job *j, double to)
{
    for (long guard = 0; j->t < to && !at_target(j) && guard < 1000000; guard++) {
        if (j->inflight && j->inflight_commit_s <= j->t) commit(j, j->inflight_step);
        if (j->down) return;
        if (j->block_left_s > 0) {
            double d = fmin(j->block_left_s, to - j->t);
            (j->inflight ? &j->b : &j->a)->ckpt_s += d;
            j->t += d;
            j->block_left_s -= d;
            if (j->block_left_s <= 1e-12 * fmax(1, j->t)) {
                j->block_left_s = 0;
                block_done(j);
                if (j->down) return;
            }
            continue;
        }
        int sc;
        double cur = j->base_step_s * slow_ratio(j, &sc), nb = next_boundary(j);
        double need = (nb - j->u) * cur, d = fmin(need, to - j->t);
        if (j->inflight) d = fmin(d, fmax(0, j->inflight_commit_s - j->t));
        account_steps(j, d);
        j->t += d;
        j->u = d >= need ? nb : j->u + d / cur;
        if (d >= need && !at_target(j)) start_block(j);
    }
}

/* ---- failures, recoveries, nodes ---------------------------------------------------------- */

static void send_to_repair(struct job *j, int nodes, double repair_s)
{
    for (int i = 0; i < nodes; i++) {
        if (repair_s <= 0 || j->nrepair >= MAX_REPAIR)
            j->pool++;
        else
            j->repair[j->nrepair++] = j->t + repair_s;
    }
}

static int scope_nodes(const struct job *j, enum camp_scope s)
{
    return s == CAMP_SCOPE_NONE ? 0 : s == CAMP_SCOPE_RACK ? j->cfg->rack_nodes : 1;
}

static void start_down(struct job *j, int cause, double detect_s)
{
    j->down = true;
    j->down_cause = cause;
    j->detect_end_s = j->t + detect_s;
    j->down_until_s = INFINITY;
    j->phase = 0;
    j->block_left_s = 0;
    j->forced = false;
    j->stop_cause = -1;
}

/* Rolls back to the last checkpoint that counted: what was done since is lost to `cause`. */
static void roll_back(struct job *j, int cause)
{
    pend_lose(j, &j->a, cause);
    pend_lose(j, &j->b, cause);
    j->inflight = false;
    j->u = (double)j->ck_step;
}

/* The largest size the held and spare nodes allow (policy shrink), or -1. */
static int shrink_choice(const struct job *j, int avail)
{
    for (int i = 0; i < j->co->nshrunk; i++)
        if (nodes_for(j->cfg, j->co->shrunk_dp[i]) <= avail) return i;
    return -1;
}

/* Detection over: take spares, or shrink, or wait; sets down_until_s when it can restart. */
static void try_restart(struct job *j)
{
    int full = nodes_for(j->cfg, j->cfg->dp), need = full - j->nodes_held;
    int take = need < j->pool ? need : j->pool;
    j->pool -= take;
    j->nodes_held += take;
    if (j->nodes_held < full && j->cfg->policy == CAMP_SHRINK) {
        int k = shrink_choice(j, j->nodes_held);
        if (k < 0) return; /* not even the smallest size: wait */
        int n = nodes_for(j->cfg, j->co->shrunk_dp[k]);
        j->pool += j->nodes_held - n;
        j->nodes_held = n;
        j->dp_cur = j->co->shrunk_dp[k];
        j->base_step_s = j->co->shrunk_step_s[k];
    } else if (j->nodes_held < full) {
        return; /* policy wait */
    } else {
        j->dp_cur = j->cfg->dp;
        j->base_step_s = j->co->step_s;
    }
    j->down_until_s = j->t + j->co->restart_s + j->co->reload_s;
}

static double detect_of(const struct job *j, int c)
{
    double d = j->cfg->causes[c].detect_s;
    return d < 0 ? j->co->watchdog_s : d;
}

/* An unplanned failure or hang of cause c at j->t. */
static void fail(struct job *j, int c)
{
    const struct camp_cause *k = &j->cfg->causes[c];
    int n = scope_nodes(j, k->scope);
    if (n > j->nodes_held) n = j->nodes_held;
    j->nodes_held -= n;
    send_to_repair(j, n, k->repair_s);
    if (j->ev && j->down && j->nev > 0) j->ev[j->nev - 1].interrupted = true;
    if (j->ev && !j->down && j->nev < j->maxev) {
        double before = j->out->lost_s[c];
        struct camp_event *e = &j->ev[j->nev++];
        *e = (struct camp_event){.t_s = j->t,
                                 .cause = c,
                                 .ck_step = j->ck_step,
                                 .resume_s = INFINITY,
                                 .plain = j->nslow == 0 && j->dp_cur == j->cfg->dp &&
                                          !j->inflight && j->block_left_s <= 0};
        roll_back(j, c);
        e->lost_s = j->out->lost_s[c] - before;
    } else if (!j->down) {
        roll_back(j, c);
    }
    start_down(j, c, detect_of(j, c));
}

static void open_slow(struct job *j, int c)
{
    const struct camp_cause *k = &j->cfg->causes[c];
    if (j->nslow >= MAX_SLOW) return;
    double det = detect_of(j, c);
    j->slow[j->nslow++] = (struct slow_win){.until_s = j->t + k->slow_s,
                                            .evict_s = det < k->slow_s ? j->t + det : INFINITY,
                                            .cause = c};
}

/* The arrival at j->t: kept (thinning by the GPUs in use), then played by its kind. */
static void arrival(struct job *j)
{
    int c = j->next_cause;
    double keep = j->next_keep;
    draw_failure(j);
    double used = (double)j->nodes_held * j->cfg->gpus_per_node;
    if (keep * j->cfg->gpus >= fmin(used, j->cfg->gpus)) return;
    j->out->failures[c]++;
    switch (j->cfg->causes[c].kind) {
    case CAMP_SLOW:
        open_slow(j, c);
        break;
    case CAMP_PLANNED:
        if (j->down) { /* maintained while down anyway */
            int n = scope_nodes(j, j->cfg->causes[c].scope);
            if (n > j->nodes_held) n = j->nodes_held;
            j->nodes_held -= n;
            send_to_repair(j, n, j->cfg->causes[c].repair_s);
        } else if (j->stop_cause < 0) {
            j->stop_cause = c; /* checkpoint at the next step boundary, then stop */
            j->forced = true;
        }
        break;
    default:
        fail(j, c);
        break;
    }
}

/* ---- the event loop ------------------------------------------------------------------------ */

/* A planned stop (maintenance, a slow node's eviction, growing back) once its checkpoint
 * counted: the job stops with nothing lost; the stop's nodes go to repair. */
static void stop_now(struct job *j)
{
    int c = j->stop_cause;
    if (c < 0 || j->inflight || j->block_left_s > 0 || j->forced) return;
    int n = j->grow ? 0 : scope_nodes(j, j->cfg->causes[c].scope);
    if (n > j->nodes_held) n = j->nodes_held;
    j->nodes_held -= n;
    send_to_repair(j, n, j->cfg->causes[c].repair_s);
    j->grow = false;
    start_down(j, c, 0);
}

/* After a checkpoint counted: a planned stop waiting for it stops; a shrunk job grows back
 * once the nodes are there. */
static void after_commit(struct job *j)
{
    stop_now(j);
    int full = nodes_for(j->cfg, j->cfg->dp);
    if (j->down || j->dp_cur == j->cfg->dp || j->stop_cause >= 0) return;
    if (j->nodes_held + j->pool < full || j->inflight || j->block_left_s > 0) return;
    j->stop_cause = j->shrink_cause;
    j->grow = true;
    stop_now(j);
}

static double next_event(const struct job *j)
{
    double t = fmin(j->next_fail_s, j->end_s);
    for (int i = 0; i < j->nslow; i++)
        t = fmin(t, fmin(j->slow[i].until_s, j->slow[i].evict_s));
    for (int i = 0; i < j->nrepair; i++)
        t = fmin(t, j->repair[i]);
    if (j->down) t = fmin(t, j->phase == 0 ? j->detect_end_s : j->down_until_s);
    return t;
}

static void repairs_back(struct job *j)
{
    for (int i = 0; i < j->nrepair;)
        if (j->repair[i] <= j->t) {
            j->pool++;
            j->repair[i] = j->repair[--j->nrepair];
        } else {
            i++;
        }
}

static void slow_events(struct job *j)
{
    for (int i = 0; i < j->nslow;) {
        struct slow_win *w = &j->slow[i];
        bool evict = w->evict_s <= j->t, end = w->until_s <= j->t;
        if (evict && !end && !j->down && j->stop_cause < 0) { /* while down: the restart
                                                                 clears it */
            j->stop_cause = w->cause;
            j->forced = true;
        }
        if (evict || end)
            *w = j->slow[--j->nslow];
        else
            i++;
    }
}

static void down_events(struct job *j)
{
    if (!j->down) return;
    if (j->phase == 0 && j->t >= j->detect_end_s) j->phase = 1;
    if (j->phase == 1) {
        try_restart(j);
        if (j->down_until_s < INFINITY) j->phase = 2;
        if (j->dp_cur < j->cfg->dp) j->shrink_cause = j->down_cause;
    }
    if (j->phase == 2 && j->t >= j->down_until_s) {
        j->down = false;
        j->out->restarts++;
        if (j->ev && j->nev > 0 && isinf(j->ev[j->nev - 1].resume_s))
            j->ev[j->nev - 1].resume_s = j->t;
    }
}

/* One pass: the job advances to the next event, which is played. Returns false at the end. */
static bool step_loop(struct job *j)
{
    double tn = fmin(next_event(j), CAMP_WALL_CAP_S);
    if (j->down) {
        j->out->down_s[j->down_cause] += tn - j->t;
        j->t = tn;
    } else {
        run_until(j, tn);
        if (at_target(j)) return false;
        if (j->t < tn) return true; /* stopped early: a planned stop */
    }
    if (j->t >= j->end_s || j->t >= CAMP_WALL_CAP_S) return false;
    repairs_back(j);
    slow_events(j);
    down_events(j);
    if (j->next_fail_s <= j->t) arrival(j);
    return true;
}

static void job_init(struct job *j, const struct camp_config *cfg, const struct camp_costs *co,
                     int index, struct camp_rep *out)
{
    memset(out, 0, sizeof *out);
    memset(j, 0, sizeof *j);
    j->cfg = cfg;
    j->co = co;
    j->out = out;
    j->rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(j->rng,
                (unsigned long)(mix64(cfg->seed * 1000003ULL + (uint64_t)index) & 0xffffffffUL));
    j->end_s = cfg->duration_s > 0 ? cfg->duration_s : INFINITY;
    for (int c = 0; c < cfg->ncauses; c++)
        j->lambda_per_s += cause_rate(cfg, c) * cfg->gpus;
    j->stop_cause = -1;
    j->dp_cur = cfg->dp;
    j->base_step_s = co->step_s;
    j->nodes_held = nodes_for(cfg, cfg->dp);
    j->pool = cfg->spares;
    draw_failure(j);
}

void campaign_run_one(const struct camp_config *cfg, const struct camp_costs *costs, int index,
                      struct camp_rep *out)
{
    campaign_run_traced(cfg, costs, index, out, NULL, 0, NULL);
}

void campaign_run_traced(const struct camp_config *cfg, const struct camp_costs *costs, int index,
                         struct camp_rep *out, struct camp_event *ev, int max, int *nev)
{
    struct job j;
    job_init(&j, cfg, costs, index, out);
    j.ev = ev;
    j.maxev = ev ? max : 0;
    for (long i = 0; i < CAMP_MAX_EVENTS && step_loop(&j); i++)
        ;
    if (!j.down) { /* the run ends with the state it has: what it did since is its own */
        pend_keep(&j, &j.a);
        pend_keep(&j, &j.b);
    }
    out->wall_s = j.t;
    out->steps = (long)floor(j.u + 1e-9);
    out->reached = at_target(&j);
    out->gpu_reserved_s =
            (double)(nodes_for(cfg, cfg->dp) + cfg->spares) * cfg->gpus_per_node * j.t;
    gsl_rng_free(j.rng);
    if (nev) *nev = j.nev;
    assert(campaign_rep_is_sane(cfg, out));
}

/* ---- figures ------------------------------------------------------------------------------ */

bool campaign_rep_is_sane(const struct camp_config *cfg, const struct camp_rep *r)
{
    double s = r->productive_s + r->ckpt_s + r->shrunk_s;
    bool ok = r->productive_s >= 0 && r->ckpt_s >= 0 && r->shrunk_s >= -1e-9 * r->wall_s;
    for (int c = 0; c < cfg->ncauses; c++) {
        s += r->lost_s[c] + r->down_s[c] + r->slow_s[c];
        ok = ok && r->lost_s[c] >= 0 && r->down_s[c] >= 0 && r->slow_s[c] >= -1e-9 * r->wall_s;
    }
    return ok && fabs(s - r->wall_s) <= 1e-9 * fmax(1, r->wall_s);
}

double campaign_mtbf_s(const struct camp_config *cfg)
{
    double rate = 0;
    for (int c = 0; c < cfg->ncauses; c++)
        if (cfg->causes[c].kind == CAMP_CRASH || cfg->causes[c].kind == CAMP_HANG)
            rate += cause_rate(cfg, c) * cfg->gpus;
    return rate > 0 ? 1 / rate : INFINITY;
}

double campaign_ettr(const struct camp_rep *rep)
{
    return rep->wall_s > 0 ? rep->productive_s / rep->wall_s : 0;
}

double campaign_energy_j(const struct camp_rep *rep, const struct camp_costs *costs)
{
    return rep->gpu_busy_s * costs->busy_power_w +
           fmax(0, rep->gpu_reserved_s - rep->gpu_busy_s) * costs->idle_power_w;
}
