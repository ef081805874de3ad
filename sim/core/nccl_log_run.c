/* nccl_log_run.c - what one nccl-tests run was, from every source (see nccl_log_run.h). */
#include "nccl_log_run.h"

#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A test binary's name ("all_gather_perf", "alltoall_perf_mpi", "allgather"): its collective, or
 * LOG_UNMODELLED for the tests dmlsim has none for (sendrecv, reduce, gather, scatter, ...). */
int nccl_log_run_op_of_name(const char *s)
{
    enum coll_op op;
    return coll_op_of_name(s, &op) ? (int)op : LOG_UNMODELLED;
}

/* The collective's rows as nccl-tests prints them (nccl-tests src/<test>.cu, GetCollByteCount and the
 * row's redop and root): whether it reduces, whether the count column is size / (n x type size)
 * (each rank's share) rather than size / type size, whether it has a root. */
struct log_shape {
    int red, split, rooted; /* 1 yes, 0 no, -1 unknown */
    int a2a; /* 1: out-of-place #wrong checked, in-place "N/A": alltoall_perf ("We don't support
                in-place alltoall": nccl-tests src/alltoall.cu sets reportErrors to 0 in place),
                0: both checked (all_gather_perf), -1: unknown (-c 0 prints N/A in both) */
};

static const struct log_shape op_shapes[COLL_NOPS] = {
        [COLL_ALLREDUCE] = {1, 0, 0, -1},     [COLL_ALLGATHER] = {0, 1, 0, 0},
        [COLL_REDUCESCATTER] = {1, 1, 0, -1}, [COLL_BROADCAST] = {0, 0, 1, -1},
        [COLL_ALLTOALL] = {0, 1, 0, 1},
};

static struct log_shape run_shape(const struct log_run *u)
{
    struct log_shape s;
    s.red = u->red && !u->none && !u->noredop ? 1 : !u->red ? 0 : -1;
    s.split = u->k_unknown || u->k == 0 ? -1 : u->k > 1;
    s.rooted = u->rooted && !u->unrooted && !u->noroot  ? 1
               : u->unrooted && !u->rooted && !u->noroot ? 0
                                                         : -1;
    s.a2a = u->inplace_na && !u->inplace_checked ? 1 : u->inplace_checked && !u->inplace_na ? 0 : -1;
    return s;
}

/* The rows' shape in words, for messages: "redop none, count = size / (16 x 4 B), root -1". */
static void shape_text(const struct log_run *u, const struct log_shape *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s%s", u->redop[0] ? "redop " : "no redop column", u->redop,
             s->red < 0 ? " and others" : "", s->split >= 0 ? ", " : "",
             s->split >= 0 ? u->k_text : "", u->root[0] ? ", root " : "");
    if (u->root[0]) snprintf(buf + strlen(buf), len - strlen(buf), "%s", u->root);
}

/* The operation the rows' shape alone says, or LOG_UNMODELLED; *why: what was ambiguous ("") */
static int shape_op(const struct log_shape *s, const char **why)
{
    *why = "";
    if (s->red == 1) {
        if (s->split == 1) return COLL_REDUCESCATTER;
        if (s->rooted == 1) return LOG_UNMODELLED; /* reduce_perf */
        if (s->split < 0) *why = "the count column does not tell all-reduce from reduce-scatter";
        return COLL_ALLREDUCE;
    }
    if (s->rooted == 1) {
        if (s->split == 1) return LOG_UNMODELLED; /* gather_perf, scatter_perf */
        if (s->split < 0) *why = "the count column does not tell broadcast from gather/scatter";
        return COLL_BROADCAST;
    }
    if (s->split == 0) return LOG_UNMODELLED; /* sendrecv_perf, hypercube_perf */
    if (s->split < 0) {
        *why = "the count column does not say; all-gather assumed";
        return COLL_ALLGATHER;
    }
    if (s->a2a == 1) {
        *why = "in-place #wrong N/A: alltoall_perf does not check in place, all_gather_perf does";
        return COLL_ALLTOALL;
    }
    *why = s->a2a == 0 ? "in-place #wrong checked: all_gather_perf checks it, alltoall_perf not"
                       : "no #wrong column tells all-gather from all-to-all (run without -c?): "
                         "all-gather assumed, --op alltoall or a \"# dmlsim-op alltoall\" line "
                         "if it was one";
    return COLL_ALLGATHER;
}

/* Whether the rows can be those of `op`: no known dimension of their shape differs. */
static bool shape_fits(const struct log_shape *s, int op)
{
    if (op == LOG_UNMODELLED) return true; /* not checked: its rows are dropped */
    const struct log_shape *w = &op_shapes[op];
    return !((s->red >= 0 && s->red != w->red) || (s->split >= 0 && s->split != w->split) ||
             (s->rooted >= 0 && s->rooted != w->rooted));
}

static const char *op_label(int op)
{
    return op == LOG_UNMODELLED ? "a test dmlsim does not model" : collective_op_name(op);
}

/* Decides the run's operation into *op (LOG_UNMODELLED: its rows are dropped), its account into
 * text; false after an error. Named sources (--op, a "# dmlsim-op" line, the command line or
 * "Collective test starting") must agree with each other and with the rows' shape. */
static bool run_op(struct log_reader *r, int *op, char *text, size_t len)
{
    const struct log_run *u = &r->run;
    struct log_name opt = {r->opt ? r->opt->op : -1, 0, "--op"};
    const struct log_name *named[3] = {&opt, &r->annot_op, &r->name}, *first = NULL;
    struct log_shape s = run_shape(u);
    char rows[160];
    shape_text(u, &s, rows, sizeof rows);
    for (int i = 0; i < 3; i++) {
        const struct log_name *n = named[i];
        if (n->op < 0) continue;
        if (first && first->op != n->op) {
            LOG_FAIL(r, "%s:%d: %s names %s, but %s names %s; expected one test per run",
                     r->path, n->line > first->line ? n->line : first->line, first->what,
                     op_label(first->op), n->what, op_label(n->op));
            return false;
        }
        if (!shape_fits(&s, n->op)) {
            LOG_FAIL(r,
                     "%s:%d: the rows (%s) are not those of %s, which %s names; expected the "
                     "rows of the test named (is the log of another test?), or --op NAME",
                     r->path, u->first_line, rows, op_label(n->op), n->what);
            return false;
        }
        if (!first) first = n;
    }
    if (first) {
        *op = first->op;
        snprintf(text, len, "%s from %s", op_label(*op), first->what);
        return true;
    }
    const char *why;
    *op = shape_op(&s, &why);
    snprintf(text, len, "%s from the rows' columns (line %d: %s%s%s)", op_label(*op),
             u->first_line, rows, why[0] ? "; " : "", why);
    return true;
}

/* One source of a count: exact, or a bound. */
struct log_count {
    int lo, hi;          /* the count lies in [lo, hi] (lo == hi: exact); hi 0: no upper bound */
    int mult;            /* it is a multiple of this (nThread x nGpus of one process); 0 none */
    int line;            /* where (0: dmlsim's command line) */
    char what[LOG_WHAT]; /* "the rank lines (lines 5-20)" */
    const char *name;    /* "the rank lines" */
};

static struct log_count count_src(int lo, int hi, int mult, int line, const char *name)
{
    struct log_count s = {.lo = lo, .hi = hi, .mult = mult, .line = line, .name = name};
    return s;
}

/* busbw/algbw = f (n - 1) / n (nccl-tests doc/PERFORMANCE.md: f = 2 for all-reduce, 1 for
 * all-gather, reduce-scatter and all-to-all; broadcast's factor 1 says nothing of n): the n
 * within the printed digits of every row, as the integer range [*lo, *hi]; false without
 * information (or when no n fits: *lo > *hi). */
static bool ratio_ranks(const struct log_run *u, int op, int *lo, int *hi)
{
    double f = op == COLL_ALLREDUCE ? 2 : op == COLL_BROADCAST || op == LOG_UNMODELLED ? 0 : 1;
    if (f == 0 || u->rlo <= 0 || !(u->rlo <= u->rhi)) return false;
    double nlo = u->rlo < f ? f / (f - u->rlo) : INFINITY;
    double nhi = u->rhi < f ? f / (f - u->rhi) : INFINITY;
    if (isinf(nlo) || nlo > LOG_MAX_RANKS) return false;
    *lo = (int)ceil(nlo - 1e-9);
    *hi = isinf(nhi) || nhi > LOG_MAX_RANKS ? 0 : (int)floor(nhi + 1e-9);
    if (*lo < 2) *lo = 2; /* one rank prints busbw 0 for every factor: no row tells it */
    return true;
}

/* "a and b", as a source's account of what it says. */
static void count_says(const struct log_count *s, char *buf, size_t len)
{
    if (s->lo == s->hi)
        snprintf(buf, len, "%d", s->lo);
    else if (s->hi == 0)
        snprintf(buf, len, "at least %d", s->lo);
    else if (s->hi < s->lo)
        snprintf(buf, len, "no whole number");
    else
        snprintf(buf, len, "%d to %d", s->lo, s->hi);
}

/* Checks the sources of one count against each other: every exact one equal, each bound holding
 * for them, the multiple dividing them. Returns the count (the first exact source's, else the
 * multiple's, when it fits every bound), 0 when nothing tells, -1 after an error. *from: the
 * source decided by. */
static int counts_resolve(struct log_reader *r, const char *unit, const struct log_count *s,
                          int n, int *from)
{
    int pick = -1;
    for (int i = 0; i < n && pick < 0; i++)
        if (s[i].lo == s[i].hi) pick = i;
    for (int i = 0; i < n; i++) {
        int v = pick >= 0 ? s[pick].lo : 0;
        if (pick < 0 || i == pick) continue;
        bool ok = v >= s[i].lo && (s[i].hi == 0 || v <= s[i].hi) &&
                  (s[i].mult == 0 || v % s[i].mult == 0);
        if (ok) continue;
        char a[32], b[32];
        count_says(&s[pick], a, sizeof a);
        count_says(&s[i], b, sizeof b);
        if (s[i].mult) snprintf(b, sizeof b, "a multiple of %d", s[i].mult);
        LOG_FAIL(r, "%s:%d: %s gives %s %s, but %s gives %s; expected them to agree (a log cut, or "
                    "pasted together?), or the right count given",
                 r->path, s[i].line > s[pick].line ? s[i].line : s[pick].line, s[pick].what, a,
                 unit, s[i].what, b);
        return -1;
    }
    if (pick >= 0) {
        *from = pick;
        return s[pick].lo;
    }
    for (int i = 0; i < n; i++) { /* nThread x nGpus: one process, if every bound allows it */
        int v = s[i].mult;
        bool ok = v > 0;
        for (int j = 0; j < n && ok; j++)
            ok = j == i || (v >= s[j].lo && (s[j].hi == 0 || v <= s[j].hi));
        if (ok) {
            *from = i;
            return v;
        }
    }
    return 0;
}

/* The account "16 ranks from the rank lines (lines 5-20), busbw/algbw agrees". */
static void count_text(const char *unit, int v, const struct log_count *s, int n, int from,
                       char *buf, size_t len)
{
    int w = snprintf(buf, len, "%d %s%s from %s%s", v, unit, v == 1 ? "" : "s", s[from].what,
                     s[from].lo != s[from].hi ? " (one process assumed)" : "");
    for (int i = 0; i < n && w > 0 && (size_t)w < len; i++)
        if (i != from && ((s[i].lo == s[i].hi && s[i].lo == v) || s[i].mult == v))
            w += snprintf(buf + w, len - (size_t)w, ", %s agrees", s[i].name);
}

/* Whether the run's rank lines are all there: ids 0 .. n-1, no "..." after them. */
static bool ranks_complete(const struct log_run *u)
{
    return u->nranks > 0 && u->max_id + 1 == u->nranks && u->elided_line == 0;
}

/* The run's GPU count into *n (0: none told: an error), its account into text; false after an
 * error. */
static bool run_ranks(struct log_reader *r, int op, int *n, char *text, size_t len)
{
    const struct log_run *u = &r->run;
    struct log_count s[6];
    int k = 0, lo, hi;
    if (r->opt && r->opt->nranks > 0) {
        s[k] = count_src(r->opt->nranks, r->opt->nranks, 0, 0, "--nranks");
        snprintf(s[k++].what, LOG_WHAT, "--nranks");
    }
    if (u->nranks > 0) {
        bool all = ranks_complete(u);
        int least = u->max_id + 1 > u->nranks ? u->max_id + 1 : u->nranks;
        s[k] = count_src(all ? u->nranks : least, all ? u->nranks : 0, 0, u->rank_line[1],
                         "the rank lines");
        int w = u->rank_line[0] == u->rank_line[1]
                        ? snprintf(s[k].what, LOG_WHAT, "the rank line (line %d", u->rank_line[0])
                        : snprintf(s[k].what, LOG_WHAT, "the rank lines (lines %d-%d",
                                   u->rank_line[0], u->rank_line[1]);
        if (!all)
            snprintf(s[k].what + w, LOG_WHAT - (size_t)w, ", %d of rank ids up to %d%s%.0d)",
                     u->nranks, u->max_id, u->elided_line ? ", elided at line " : "",
                     u->elided_line);
        else
            snprintf(s[k].what + w, LOG_WHAT - (size_t)w, ")");
        k++;
    }
    if (r->annot_ranks > 0) {
        s[k] = count_src(r->annot_ranks, r->annot_ranks, 0, r->annot_ranks_line,
                         "the dmlsim-nranks line");
        snprintf(s[k++].what, LOG_WHAT, "the dmlsim-nranks line (line %d)", r->annot_ranks_line);
    }
    if (op != LOG_UNMODELLED && op_shapes[op].split && !u->k_unknown && u->k > 1) {
        s[k] = count_src((int)u->k, (int)u->k, 0, u->first_line, "the count column");
        snprintf(s[k++].what, LOG_WHAT, "the count column (line %d: %s)", u->first_line,
                 u->k_text);
    }
    if (ratio_ranks(u, op, &lo, &hi)) {
        int line = u->rlo_line > u->rhi_line ? u->rlo_line : u->rhi_line;
        s[k] = count_src(lo, hi, 0, line, "busbw/algbw");
        snprintf(s[k++].what, LOG_WHAT, "busbw/algbw (lines %d and %d: %s and %s, %s(n-1)/n)",
                 u->rlo_line, u->rhi_line, u->rlo_text, u->rhi_text,
                 op == COLL_ALLREDUCE ? "2" : "");
    }
    if (u->nthread > 0 && u->nranks == 0) {
        s[k] = count_src(1, 0, u->nthread * u->ngpus, u->nthread_line, "nThread x nGpus");
        snprintf(s[k++].what, LOG_WHAT, "nThread %d x nGpus %d (line %d)", u->nthread, u->ngpus,
                 u->nthread_line);
    }
    int from = 0;
    *n = counts_resolve(r, "ranks", s, k, &from);
    if (*n < 0) return false;
    if (*n == 0) {
        char said[600] = "", v[32];
        for (int i = 0, w = 0; i < k && w >= 0 && (size_t)w < sizeof said; i++) {
            count_says(&s[i], v, sizeof v);
            w += snprintf(said + w, sizeof said - (size_t)w, "%s%s gives %s", i ? ", " : " (",
                          s[i].what, s[i].mult ? "a multiple of its product" : v);
        }
        LOG_FAIL(r,
                 "%s:%d: cannot tell how many GPUs the nccl-tests run of this row used%s%s; "
                 "expected its \"#  Rank N ... on HOST device ...\" lines, a \"# nThread T nGpus "
                 "G\" line, a \"# dmlsim-nranks N\" line or --nranks N",
                 r->path, u->first_line, said, k ? ")" : "");
        return false;
    }
    count_text("rank", *n, s, k, from, text, len);
    return true;
}

/* The run's node count into *nodes (0: nothing tells), its account into text; false after an
 * error. */
static bool run_nodes(struct log_reader *r, int nranks, int *nodes, char *text, size_t len)
{
    const struct log_run *u = &r->run;
    struct log_count s[3];
    int k = 0;
    if (r->opt && r->opt->nodes > 0) {
        s[k] = count_src(r->opt->nodes, r->opt->nodes, 0, 0, "--nodes");
        snprintf(s[k++].what, LOG_WHAT, "--nodes");
    }
    if (u->nranks > 0 && !u->redacted) {
        bool all = ranks_complete(u);
        s[k] = count_src(u->nhosts, all ? u->nhosts : 0, 0, u->rank_line[1],
                         "the hosts of the rank lines");
        snprintf(s[k++].what, LOG_WHAT, "the hosts of the rank lines (lines %d-%d%s)",
                 u->rank_line[0], u->rank_line[1], all ? "" : ", some elided");
    }
    if (r->annot_nodes > 0) {
        s[k] = count_src(r->annot_nodes, r->annot_nodes, 0, r->annot_nodes_line,
                         "the dmlsim-nodes line");
        snprintf(s[k++].what, LOG_WHAT, "the dmlsim-nodes line (line %d)", r->annot_nodes_line);
    }
    int from = 0;
    *nodes = counts_resolve(r, "nodes", s, k, &from);
    if (*nodes < 0) return false;
    if (*nodes > nranks) {
        LOG_FAIL(r, "%s:%d: %s gives %d nodes for %d ranks; expected at most one node per rank",
                 r->path, u->first_line, s[from].what, *nodes, nranks);
        return false;
    }
    if (*nodes > 0)
        count_text("node", *nodes, s, k, from, text, len);
    else
        snprintf(text, len, "nodes not told (no complete list of hosts; --nodes N or a \"# "
                            "dmlsim-nodes N\" line tells them)");
    return true;
}

/* Ends the run being read: decides what it was (run_op, run_ranks, run_nodes), gives its rows
 * their operation, GPU and node counts (rows of a test dmlsim does not model are dropped and
 * counted as skipped), and records the account in c->run. */
void nccl_log_run_close(struct log_reader *r)
{
    struct log_run *u = &r->run;
    struct calib *c = r->c;
    if (c->ncoll > u->first && r->rc == DMLSIM_OK) {
        struct calib_run cr = {.first = u->first, .n = c->ncoll - u->first, .line = u->first_line};
        char op_t[400], ranks_t[400] = "", nodes_t[300] = "";
        int op = -1;
        bool ok = run_op(r, &op, op_t, sizeof op_t);
        if (ok && op == LOG_UNMODELLED) {
            c->skipped += (int)cr.n;
            c->ncoll = u->first;
            cr.n = 0;
        } else if (ok) {
            ok = run_ranks(r, op, &cr.nranks, ranks_t, sizeof ranks_t) &&
                 run_nodes(r, cr.nranks, &cr.nodes, nodes_t, sizeof nodes_t);
        }
        if (ok) {
            cr.op = op == LOG_UNMODELLED ? COLL_NOPS : (enum coll_op)op;
            snprintf(cr.read, sizeof cr.read, "%s%s%s%s%s%s", op_t, cr.n ? "" : ": rows skipped",
                     ranks_t[0] ? "; " : "", ranks_t, nodes_t[0] ? "; " : "", nodes_t);
            for (size_t i = cr.first; i < cr.first + cr.n; i++) {
                c->coll[i].op = cr.op;
                c->coll[i].nranks = cr.nranks;
                c->coll[i].nodes = cr.nodes > 0 ? cr.nodes : 1;
                c->coll[i].gpus_per_thread = u->ngpus;
            }
            if (cr.nranks > c->gpu_count) c->gpu_count = cr.nranks;
            if (cr.nodes > c->nodes) c->nodes = cr.nodes;
            MEM_PUSH(c->run, c->nrun, cr);
        }
        r->name = (struct log_name){-1, 0, ""}; /* a test's name is for one run */
    }
    unsigned char *seen = u->rank_seen;
    char(*hosts)[LOG_HOST_LEN] = u->hosts;
    memset(seen, 0, LOG_MAX_RANKS / 8);
    *u = (struct log_run){.first = c->ncoll, .rank_seen = seen,
                          .hosts = hosts, .rlo = 0, .rhi = INFINITY};
    r->ncols = 0; /* every run prints its own header */
}

