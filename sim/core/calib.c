/* calib.c - calibration profiles: reading, writing, interpolation and fits (see calib.h). */
#include "calib.h"

#include "xmldoc.h"

#include "mem.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_GEMM_EFF 0.78 /* H100 GEMMs, Meta pytorch/ao roofline_utils.py */
#define DEFAULT_MEM_EFF  0.92 /* H100 memory-bound kernels, same source */

struct calib calib_default(void)
{
    struct calib c;
    memset(&c, 0, sizeof c);
    snprintf(c.source, sizeof c.source,
             "spec-derived default: GEMMs from their shapes (tiles, waves, the GPU's "
             "large-GEMM ceiling), else 78%% of peak; memory-bound 92%% of bandwidth (Meta, "
             "pytorch/ao roofline_utils.py, H100)");
    c.gemm_eff = DEFAULT_GEMM_EFF;
    c.mem_eff = DEFAULT_MEM_EFF;
    return c;
}

void calib_release(struct calib *c)
{
    free(c->gemm);
    free(c->copy);
    free(c->kernel);
    free(c->coll);
    free(c->run);
    memset(c, 0, sizeof *c);
}

static enum gpu_dtype dtype_of(const char *s, bool *ok)
{
    for (int d = 0; d < DTYPE_COUNT; d++)
        if (strcmp(s, catalog_dtype_name((enum gpu_dtype)d)) == 0) {
            *ok = true;
            return (enum gpu_dtype)d;
        }
    *ok = false;
    return DTYPE_FP32;
}

static bool op_of(const char *s, enum coll_op *op)
{
    static const char *names[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                  "alltoall"};
    static const char *nccl[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                 "alltoall"};
    for (int i = 0; i < COLL_NOPS; i++)
        if (strcmp(s, names[i]) == 0 || strncmp(s, nccl[i], strlen(nccl[i])) == 0) {
            *op = (enum coll_op)i;
            return true;
        }
    return false;
}

#define PUSH(arr, n, val) \
    do { \
        (arr) = mem_realloc((arr), ((n) + 1) * sizeof *(arr)); \
        (arr)[(n)++] = (val); \
    } while (0)

/* ---- nccl-tests logs ---------------------------------------------------------------------- */

/* nccl-tests logs are read as they are posted, not as nccl-tests writes them: a launcher prefix
 * on every line, NCCL_DEBUG output between the rows, two column layouts, several tests in one
 * file. Each line is classified once: nccl-tests' own "#" lines and the dmlsim annotations
 * (metadata), NCCL's lines (mined for its version and network), a command line naming the test,
 * a result row, a comment or a blank; anything else is counted in c->skipped and left behind.
 * A "run" is one nccl-tests invocation. Its operation, GPU count and node count are decided when
 * it ends, from every source that speaks of them (run_op, run_ranks, run_nodes): the test's name,
 * the rows' own columns, the "# Rank" lines, the dmlsim annotations, the options, nccl-tests'
 * busbw/algbw ratio. Sources that disagree are an error naming both; what was decided, and from
 * what, is kept in c->run for the user to read. */

#define LOG_LINE_MAX  4096  /* longest line kept; NCCL's "Trees" lines reach about 2 kB */
#define LOG_TOKENS    32    /* fields kept from one line (a result row has 13) */
#define LOG_MAX_RANKS 65536 /* rank ids told apart in one run */
#define LOG_MAX_HOSTS 4096  /* host names told apart in one run */
#define LOG_HOST_LEN  64    /* host names are cut to this (longer ones may then merge) */
#define LOG_WHAT      200   /* one source's description */
#define LOG_UNMODELLED COLL_NOPS /* a test dmlsim has no collective for (sendrecv, reduce, ...) */

/* A test's name and where it was given: "all_gather_perf" on a command line, ... */
struct log_name {
    int op;               /* enum coll_op, LOG_UNMODELLED, or -1: none given */
    int line;             /* where (0: the command line of dmlsim) */
    char what[LOG_WHAT];  /* "the command line at line 3 (all_gather_perf)" */
};

struct log_run {
    size_t first;                /* index in c->coll of the run's first row */
    int first_line;              /* line of that row, for messages */
    int nthread, ngpus;          /* from "# nThread T nGpus G"; 0 unseen */
    int nthread_line;            /* its line */
    int nranks;                  /* distinct rank ids among its "# Rank" lines */
    int max_id;                  /* the largest of them */
    int rank_line[2];            /* first and last "# Rank" line */
    int elided_line;             /* a "..." line after rank lines, before the rows; 0 none */
    unsigned char *rank_seen;    /* LOG_MAX_RANKS bits: rank ids seen */
    char (*hosts)[LOG_HOST_LEN]; /* distinct host names of those lines */
    int nhosts;                  /* entries in hosts */
    bool redacted;               /* a rank line without its host name */
    /* the rows, as their own columns describe them */
    int nrows;
    int red, none, noredop;      /* rows with a reduction, with redop "none", without redop */
    int rooted, unrooted, noroot; /* rows with root >= 0, root -1, without a root column */
    long k;                      /* size / (count x type size), the same in every row; 0 none */
    bool k_unknown;              /* a row whose k is unknown or differs */
    char k_text[96];             /* the first row's: "count = size / (16 x 4 B)" */
    char redop[16], root[16];    /* the first row's redop and root ("" none) */
    int inplace_checked, inplace_na; /* rows whose out-of-place #wrong is a number and whose
                                        in-place one is a number, or N/A */
    double rlo, rhi;             /* busbw/algbw, within the printed digits of every row */
    int rlo_line, rhi_line;      /* the rows that set them */
    char rlo_text[64], rhi_text[64]; /* "115.64 / 59.68" */
};

struct log_reader {
    const char *path;          /* for messages */
    struct calib *c;           /* being filled */
    const struct calib_opts *opt; /* the user's statements (--nranks, --nodes, --op) */
    struct dmlsim_error *err;  /* the first error */
    enum dmlsim_err rc;        /* its code (DMLSIM_OK: none yet) */
    int lineno;                /* current line, from 1 */
    int prev_line;             /* the last line before it that was not blank */
    struct log_name name;      /* the test named for the next run (command line, "Collective
                                  test starting"); consumed by the run it names */
    int ncols;                 /* fields of the last header line; 0: none, guess from each row */
    int time_col, inplace_col; /* where that header puts the two "time" columns (-1: none) */
    int redop_col, root_col;   /* where it puts redop and root (-1: not there) */
    int annot_ranks, annot_nodes;   /* "# dmlsim-nranks N", "# dmlsim-nodes N"; 0 none */
    int annot_ranks_line, annot_nodes_line;
    struct log_name annot_op;  /* "# dmlsim-op NAME" */
    char annot_gpu[640];       /* "# dmlsim-gpu NAME..."; "" none */
    int net_rank;              /* how direct the evidence behind c->net is: 0 none .. 3 */
    int rccl_line;             /* first line showing an rccl-tests log (AMD's RCCL); 0 none */
    char rccl_what[96];        /* what it showed */
    struct log_run run;        /* the invocation being read */
};

static bool log_getline(FILE *f, char *buf, size_t len, bool *too_long)
{
    size_t n = 0;
    int ch;
    *too_long = false;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (n + 1 < len)
            buf[n++] = ch ? (char)ch : ' ';
        else
            *too_long = true;
    }
    while (n > 0 && isspace((unsigned char)buf[n - 1])) /* CRLF ends, trailing blanks */
        n--;
    buf[n] = '\0';
    return ch != EOF || n > 0 || *too_long;
}

/* Peels what launchers put before each line: Open MPI --tag-output "[1,0]<stdout>:", MPICH and
 * Intel MPI "[0] ", kubectl --prefix "[pod/x/c] ", Ray "(head, rank=0, pid=1) ", srun --label
 * " 0: ", kubectl --timestamps "2024-05-06T10:00:00.1Z ", a UTF-8 byte-order mark. None of these
 * can begin a result row (a digit run, then a blank), so peeling them never eats data. */
static char *log_strip(char *p)
{
    if (strncmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    for (int k = 0; k < 8; k++) {
        while (*p == ' ' || *p == '\t')
            p++;
        char *q = NULL;
        if (*p == '[' || *p == '(') {
            q = strchr(p, *p == '[' ? ']' : ')');
            if (q == NULL) break;
            q++;
            if (strncmp(q, "<stdout>:", 9) == 0 || strncmp(q, "<stderr>:", 9) == 0)
                q += 9;
            else if (*q == ':')
                q++;
        } else if (isdigit((unsigned char)*p)) {
            size_t d = strspn(p, "0123456789");
            if (p[d] == ':' && (p[d + 1] == ' ' || p[d + 1] == '\t' || p[d + 1] == '\0'))
                q = p + d + 1;
            else if (d == 4 && p[4] == '-' && strlen(p) > 10 && p[7] == '-' && p[10] == 'T')
                q = p + strcspn(p, " \t");
        }
        if (q == NULL) break;
        p = q;
    }
    return p;
}

/* Splits s in place at blanks into at most LOG_TOKENS fields; returns the full field count,
 * which the callers compare with LOG_TOKENS before trusting the tail. */
static int log_split(char *s, char **tok)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n < LOG_TOKENS) tok[n] = t;
        n++;
    }
    return n;
}

static bool is_uint(const char *s)
{
    size_t d = strspn(s, "0123456789");
    return d > 0 && s[d] == '\0';
}

static bool is_int(const char *s)
{
    return is_uint(*s == '-' ? s + 1 : s);
}

/* strtod with the end-pointer check: "N/A", "1.2x", "nan" and "inf" are not numbers here. */
static bool parse_num(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && isfinite(*v);
}

static bool parse_int(const char *s, int lo, int hi, int *v)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || x < lo || x > hi) return false;
    *v = (int)x;
    return true;
}

/* Writes the fields joined by single blanks into dst (cut at len). */
static void log_join(char *dst, size_t len, char **tok, int n)
{
    size_t used = 0;
    dst[0] = '\0';
    for (int i = 0; i < n && used + 1 < len; i++) {
        int w = snprintf(dst + used, len - used, "%s%s", i ? " " : "", tok[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* ---- what a run was: its operation, GPUs and nodes, from every source ---------------------- */

/* Records the reader's first error (later ones would only follow from it). */
#define LOG_FAIL(r, ...) \
    do { \
        if ((r)->rc == DMLSIM_OK) (r)->rc = dmlsim_fail((r)->err, DMLSIM_EVALUE, __VA_ARGS__); \
    } while (0)

/* A test binary's name ("all_gather_perf", "alltoall_perf_mpi", "allgather"): its collective, or
 * LOG_UNMODELLED for the tests dmlsim has none for (sendrecv, reduce, gather, scatter, ...). */
static int log_op_of_name(const char *s)
{
    enum coll_op op;
    return op_of(s, &op) ? (int)op : LOG_UNMODELLED;
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
static void run_close(struct log_reader *r)
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
            PUSH(c->run, c->nrun, cr);
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

/* ---- the lines ---------------------------------------------------------------------------- */

/* A test starts ("# Collective test starting: NAME", or a command line running NAME): the next
 * run is of its operation (or of a test dmlsim does not model: its rows are dropped). */
static void log_test_starts(struct log_reader *r, const char *name, const char *how)
{
    if (r->c->ncoll > r->run.first) run_close(r);
    r->name.op = log_op_of_name(name);
    r->name.line = r->lineno;
    snprintf(r->name.what, sizeof r->name.what, "%s at line %d (%.60s)", how, r->lineno, name);
}

/* An rccl-tests log (AMD's RCCL and GPUs, not NCCL): remembered at its first sign. */
static void log_rccl(struct log_reader *r, const char *what)
{
    if (r->rccl_line == 0) {
        r->rccl_line = r->lineno;
        snprintf(r->rccl_what, sizeof r->rccl_what, "%.90s", what);
    }
}

/* Signs of rccl-tests in a line that is not a comment: its banner "rccl-tests: Version ...", its
 * "RCCL version : 2.27.7", "HIP version  :", "ROCm version :", RCCL's INFO lines, a path through
 * rccl-tests/ (ROCm/rccl-tests src/common.cu prints the first four). */
static void log_rccl_signs(struct log_reader *r, const char *p)
{
    static const char *signs[] = {"rccl-tests", "RCCL version", "RCCL INFO", "RCCL WARN",
                                  "HIP version", "ROCm version", "librccl"};
    for (size_t i = 0; i < sizeof signs / sizeof signs[0]; i++)
        if (strstr(p, signs[i]) != NULL) {
            log_rccl(r, p);
            return;
        }
}

/* "./build/all_gather_perf -b 8 -e 8G -f 2 -g 8", "srun ... all_reduce_perf_mpi -b 512M ...":
 * a test binary followed by an option (or a line continuation). Build logs name the binaries
 * too ("Linking ... > build/all_reduce_perf"), with nothing after them: not commands. */
static bool log_command(struct log_reader *r, const char *p)
{
    for (const char *s = strstr(p, "_perf"); s != NULL; s = strstr(s + 1, "_perf")) {
        const char *end = s + 5;
        if (strncmp(end, "_mpi", 4) == 0) end += 4;
        if (*end != ' ' && *end != '\t') continue;
        const char *next = end + strspn(end, " \t");
        if (*next != '-' && *next != '\\') continue;
        const char *base = s;
        while (base > p && !isspace((unsigned char)base[-1]) && base[-1] != '/')
            base--;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(end - base), base);
        log_test_starts(r, name, "the command line");
        return true;
    }
    return false;
}

/* "#  Rank  3 Group  0 Pid 1234 on host device  3 [0x5d] NVIDIA H100 80GB HBM3" (nccl-tests 2.11
 * and later) or "#   Rank  3 Pid 1234 on host device  3 [0x5d] Tesla V100-SXM2-32GB" (before):
 * the rank id, the host after "on" (absent where the poster redacted it), the device name after
 * the bus id. Rank ids are counted once each, as processes that failed to join one communicator
 * all print "Rank 0" (NVIDIA/nccl-tests#254). An AMD device is an rccl-tests log. */
static bool log_rank_line(struct log_reader *r, char **tok, int n)
{
    int id, dev = -1;
    if (n < 2 || !parse_int(tok[1], 0, INT_MAX, &id)) return false;
    if (id >= LOG_MAX_RANKS) {
        r->c->skipped++;
        return true;
    }
    if (r->c->ncoll > r->run.first) run_close(r); /* rank lines come before a run's rows */
    const char *host = "";
    for (int i = 2; i + 1 < n && dev < 0; i++) {
        if (strcmp(tok[i], "on") == 0 && strcmp(tok[i + 1], "device") != 0) host = tok[i + 1];
        if (strcmp(tok[i], "device") == 0) dev = i;
    }
    struct log_run *u = &r->run;
    if (!(u->rank_seen[id / 8] & (1u << (id % 8)))) {
        u->rank_seen[id / 8] |= (unsigned char)(1u << (id % 8));
        u->nranks++;
    }
    if (id > u->max_id) u->max_id = id;
    if (u->rank_line[0] == 0) u->rank_line[0] = r->lineno;
    u->rank_line[1] = r->lineno;
    u->elided_line = 0; /* a "..." before this rank line elided nothing of the list's end */
    u->redacted |= host[0] == '\0';
    int h = 0;
    while (h < u->nhosts && strncmp(u->hosts[h], host, LOG_HOST_LEN - 1) != 0)
        h++;
    if (h == u->nhosts && u->nhosts < LOG_MAX_HOSTS) {
        u->hosts = mem_realloc(u->hosts, ((size_t)u->nhosts + 1) * sizeof *u->hosts);
        snprintf(u->hosts[u->nhosts++], LOG_HOST_LEN, "%s", host);
    }
    if (dev >= 0 && dev + 3 < n && strcmp(tok[dev + 3], "AMD") == 0) log_rccl(r, tok[dev + 3]);
    if (dev >= 0 && dev + 3 < n && tok[dev + 2][0] == '[' && r->c->gpu_name[0] == '\0')
        log_join(r->c->gpu_name, sizeof r->c->gpu_name, tok + dev + 3, n - dev - 3);
    return true;
}

/* "...", "<snip>", "--(snip)--", "[...]" on a line of its own: cut lines. Right after a run's
 * rank lines (and before its rows), rank lines were cut. */
static bool log_elision(struct log_reader *r, char **tok, int n)
{
    static const char *marks[] = {"...", "\xE2\x80\xA6", "<snip>", "[snip]", "(snip)",
                                  "--(snip)--", "[...]", "(...)", "snip"};
    for (int i = 0; i < n && i < LOG_TOKENS; i++) {
        bool mark = false;
        for (size_t j = 0; j < sizeof marks / sizeof marks[0] && !mark; j++)
            mark = strcmp(tok[i], marks[j]) == 0;
        if (!mark) return false;
    }
    if (r->run.nranks > 0 && r->run.rank_line[1] == r->prev_line && r->c->ncoll == r->run.first)
        r->run.elided_line = r->lineno;
    return n > 0;
}

/* "# nThread 1 nGpus 8 minBytes ...": the first line of every run, so a new run starts. */
static bool log_nthread(struct log_reader *r, char **tok, int n)
{
    int th, g;
    if (n < 4 || strcmp(tok[2], "nGpus") != 0 || !parse_int(tok[1], 1, 1024, &th) ||
        !parse_int(tok[3], 1, 1024, &g))
        return false;
    run_close(r);
    r->run.nthread = th;
    r->run.ngpus = g;
    r->run.nthread_line = r->lineno;
    return true;
}

/* "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ...": the layout of the
 * rows below. Older nccl-tests have no root column (and "error" for "#wrong"), older
 * broadcast_perf has root but no redop: the columns are found by name, not by position. */
static bool log_header(struct log_reader *r, char **tok, int n)
{
    int t = -1, tin = -1, red = -1, root = -1;
    if (n < 7 || n > LOG_TOKENS) return false;
    for (int i = 3; i < n; i++)
        if (strcmp(tok[i], "time") == 0) {
            if (t < 0)
                t = i;
            else if (tin < 0)
                tin = i;
        } else if (t < 0 && strcmp(tok[i], "redop") == 0) {
            red = i;
        } else if (t < 0 && strcmp(tok[i], "root") == 0) {
            root = i;
        }
    if (t < 0 || t + 2 >= n || strcmp(tok[t + 1], "algbw") != 0 || strcmp(tok[t + 2], "busbw") != 0)
        return false;
    r->ncols = n;
    r->time_col = t;
    r->inplace_col = tin;
    r->redop_col = red;
    r->root_col = root;
    return true;
}

/* "# dmlsim-nranks N", "# dmlsim-nodes N", "# dmlsim-gpu NAME...", "# dmlsim-op NAME": what a log
 * posted without its "# Rank" lines or its command does not say. A malformed one counts as
 * skipped rather than as a comment. */
static bool log_annotation(struct log_reader *r, char **tok, int n)
{
    bool ok = n >= 2;
    if (strcmp(tok[0], "dmlsim-nranks") == 0) {
        ok = ok && n == 2 && parse_int(tok[1], 1, LOG_MAX_RANKS, &r->annot_ranks);
        r->annot_ranks_line = r->lineno;
    } else if (strcmp(tok[0], "dmlsim-nodes") == 0) {
        ok = ok && n == 2 && parse_int(tok[1], 1, LOG_MAX_HOSTS, &r->annot_nodes);
        r->annot_nodes_line = r->lineno;
    } else if (strcmp(tok[0], "dmlsim-gpu") == 0 && ok) {
        log_join(r->annot_gpu, sizeof r->annot_gpu, tok + 1, n - 1);
    } else if (strcmp(tok[0], "dmlsim-op") == 0) {
        ok = ok && n == 2;
        if (ok) {
            r->annot_op.op = log_op_of_name(tok[1]);
            r->annot_op.line = r->lineno;
            snprintf(r->annot_op.what, sizeof r->annot_op.what, "the dmlsim-op line (line %d)",
                     r->lineno);
        }
    } else {
        return false;
    }
    if (!ok) r->c->skipped++;
    return true;
}

/* "# nccl-tests version 2.18.0 nccl-headers=22907 nccl-library=22907": the NCCL version as
 * NCCL_VERSION_CODE, X * 10000 + Y * 100 + Z since 2.9 (nccl.h, NCCL_VERSION), for logs whose
 * "NCCL version" line was not kept. "# rccl-tests version ..." is rccl-tests'. */
static bool log_tests_version(struct log_reader *r, char **tok, int n)
{
    int code;
    if (n < 2 || strcmp(tok[1], "version") != 0) return false;
    if (strcmp(tok[0], "rccl-tests") == 0) {
        log_rccl(r, "rccl-tests version");
        return true;
    }
    for (int i = 2; i < n; i++)
        if (strncmp(tok[i], "nccl-library=", 13) == 0 &&
            parse_int(tok[i] + 13, 20900, 999999, &code) && r->c->nccl[0] == '\0')
            snprintf(r->c->nccl, sizeof r->c->nccl, "%d.%d.%d", code / 10000, code / 100 % 100,
                     code % 100);
    return true;
}

/* nccl-tests' own lines, with or without their "#" (a Markdown paste drops it); false if the
 * fields are none of them. */
static bool log_meta(struct log_reader *r, char **tok, int n)
{
    int k = n < LOG_TOKENS ? n : LOG_TOKENS;
    if (k >= 4 && strcmp(tok[0], "Collective") == 0 && strcmp(tok[1], "test") == 0 &&
        strcmp(tok[2], "starting:") == 0) {
        log_test_starts(r, tok[3], "\"Collective test starting\"");
        return true;
    }
    if (strcmp(tok[0], "nThread") == 0) return log_nthread(r, tok, k);
    if (strcmp(tok[0], "Rank") == 0) return log_rank_line(r, tok, k);
    if (strcmp(tok[0], "size") == 0) return log_header(r, tok, n);
    if (strncmp(tok[0], "dmlsim-", 7) == 0) return log_annotation(r, tok, k);
    if (strcmp(tok[0], "nccl-tests") == 0 || strcmp(tok[0], "rccl-tests") == 0)
        return log_tests_version(r, tok, k);
    return log_elision(r, tok, k);
}

/* Bytes of one element of an nccl-tests type (nccl-tests src/common.cu test_typenames), or 0. */
static int type_bytes(const char *t)
{
    static const struct {
        const char *name;
        int bytes;
    } types[] = {{"int8", 1},   {"uint8", 1},   {"char", 1},  {"int32", 4},    {"uint32", 4},
                 {"int", 4},    {"int64", 8},   {"uint64", 8}, {"half", 2},     {"float16", 2},
                 {"float", 4},  {"float32", 4}, {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1},
                 {"f8e5m2", 1}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(t, types[i].name) == 0) return types[i].bytes;
    return 0;
}

/* Half a unit of the last printed digit of a number: 0.005 for "59.68". */
static double half_ulp(const char *s)
{
    const char *dot = strchr(s, '.');
    return dot ? 0.5 * pow(10, -(double)strspn(dot + 1, "0123456789")) : 0.5;
}

/* What one row says of its run (log_run): redop, root, count, busbw/algbw. `red` and `root` are
 * the row's redop and root fields (NULL: no such column). */
static void row_facts(struct log_reader *r, char **tok, const char *red, const char *root,
                      double bytes, const char *algbw, const char *busbw, const char *wrong,
                      const char *wrong_in)
{
    struct log_run *u = &r->run;
    u->nrows++;
    double x;
    if (wrong && wrong_in && parse_num(wrong, &x)) {
        if (parse_num(wrong_in, &x))
            u->inplace_checked++;
        else if (strcmp(wrong_in, "N/A") == 0)
            u->inplace_na++;
    }
    if (!red)
        u->noredop++;
    else if (strcmp(red, "none") == 0)
        u->none++;
    else
        u->red++;
    int rt;
    if (!root)
        u->noroot++;
    else if (parse_int(root, -1, INT_MAX, &rt) && rt >= 0)
        u->rooted++;
    else
        u->unrooted++;
    double count, ts = type_bytes(tok[2]);
    long k = 0;
    if (parse_num(tok[1], &count) && count > 0 && ts > 0 && fmod(bytes, count * ts) == 0)
        k = (long)(bytes / (count * ts));
    if (u->nrows == 1) {
        u->k = k;
        snprintf(u->k_text, sizeof u->k_text, "count = size / (%ld x %.0f B)", k, ts);
        if (k == 1) snprintf(u->k_text, sizeof u->k_text, "count = size / %.0f B", ts);
        snprintf(u->redop, sizeof u->redop, "%s", red ? red : "");
        snprintf(u->root, sizeof u->root, "%s", root ? root : "");
    }
    if (k == 0 || k != u->k) u->k_unknown = true;
    double a, b;
    if (!parse_num(algbw, &a) || !parse_num(busbw, &b)) return;
    double da = half_ulp(algbw), db = half_ulp(busbw);
    if (a - da <= 0) return; /* "0.00": no digit to read the ratio from */
    double lo = fmax(0, b - db) / (a + da), hi = (b + db) / (a - da);
    if (lo > u->rlo) {
        u->rlo = lo;
        u->rlo_line = r->lineno;
        snprintf(u->rlo_text, sizeof u->rlo_text, "%s / %s", busbw, algbw);
    }
    if (hi < u->rhi) {
        u->rhi = hi;
        u->rhi_line = r->lineno;
        snprintf(u->rhi_text, sizeof u->rhi_text, "%s / %s", busbw, algbw);
    }
}

/* A result row: size count type [redop] [root] time algbw busbw wrong [time algbw busbw wrong].
 * Without a header the layout comes from the field count: 13 (or 9, out-of-place only) with a
 * root column, 12 (or 8) with one of redop (a word) or root (a number). Returns 1 for a row
 * kept, 0 for a row of 0 bytes (dropped: NCCL returns at once for a zero count, so its time is
 * launch overhead, which would pull a latency fit to zero), -1 for a line that is not a row
 * (counted as skipped by the caller). */
static int log_row(struct log_reader *r, char **tok, int n)
{
    int t = r->time_col, tin = r->inplace_col, red = r->redop_col, root = r->root_col;
    if (n > LOG_TOKENS || (r->ncols > 0 && n != r->ncols)) return -1;
    if (r->ncols == 0) {
        t = (n == 13 || n == 9) ? 5 : (n == 12 || n == 8) ? 4 : -1;
        tin = n >= 12 ? t + 4 : -1;
        red = t == 5 || (t == 4 && isalpha((unsigned char)tok[3][0])) ? 3 : -1;
        root = t == 5 ? 4 : t == 4 && red < 0 ? 3 : -1;
    }
    if (t < 3 || !is_uint(tok[0]) || !is_uint(tok[1]) || !isalpha((unsigned char)tok[2][0]))
        return -1;
    for (int i = 3; i < t;
         i++) /* redop, root: a word or a rank; a torn line ("-1[0]") is neither */
        if (!isalpha((unsigned char)tok[i][0]) && !is_int(tok[i])) return -1;
    struct calib_coll row = {.op = COLL_ALLREDUCE};
    double t_us, tin_us;
    if (!parse_num(tok[0], &row.bytes) || !parse_num(tok[t], &t_us) || t_us <= 0 ||
        !parse_num(tok[t + 1], &row.algbw) || !parse_num(tok[t + 2], &row.busbw))
        return -1;
    if (tin > t && tin < n && parse_num(tok[tin], &tin_us) && tin_us > 0)
        row.time_inplace_s = tin_us * 1e-6;
    row.time_s = t_us * 1e-6;
    if (row.bytes == 0) return 0;
    row_facts(r, tok, red >= 0 && red < t ? tok[red] : NULL, root >= 0 && root < t ? tok[root] : NULL,
              row.bytes, tok[t + 1], tok[t + 2], t + 3 < n ? tok[t + 3] : NULL,
              tin > t && tin + 3 < n ? tok[tin + 3] : NULL);
    if (r->c->ncoll == r->run.first) r->run.first_line = r->lineno;
    PUSH(r->c->coll, r->c->ncoll, row);
    return 1;
}

/* "NCCL version 2.18.3+cuda12.2", alone or inside an INFO line: "2.18.3". */
static void log_nccl_version(struct log_reader *r, const char *p)
{
    const char *v = strstr(p, "NCCL version ");
    if (v == NULL || r->c->nccl[0] != '\0') return;
    v += 13;
    size_t k = strcspn(v, "+ ");
    if (k > 0 && isdigit((unsigned char)*v))
        snprintf(r->c->nccl, sizeof r->c->nccl, "%.*s", (int)k, v);
}

/* NCCL's network, from the most direct evidence: "Using network X" (the transport NCCL picked)
 * over "via NET/X/" (a channel using it) over "NET/X : Using" (a transport that initialised,
 * not always the one used; "NET/IB : No device found" says nothing). HPC-X's RDMA plugin calls
 * itself "IBext" or "IBext_v8": that is InfiniBand. */
static void log_net(struct log_reader *r, const char *p)
{
    char name[32] = "";
    int rank = 0;
    const char *s, *q;
    if ((s = strstr(p, "Using network ")) != NULL) {
        snprintf(name, sizeof name, "%s", s + 14);
        rank = 3;
    } else if ((s = strstr(p, "via NET/")) != NULL) {
        snprintf(name, sizeof name, "%.*s", (int)strcspn(s + 8, "/ "), s + 8);
        rank = 2;
    } else if ((s = strstr(p, "NET/")) != NULL) {
        size_t k = strcspn(s + 4, " :");
        for (q = s + 4 + k; *q == ' '; q++)
            ;
        if (strncmp(q, ": Using", 7) == 0) snprintf(name, sizeof name, "%.*s", (int)k, s + 4);
        rank = 1;
    }
    if (rank <= r->net_rank || name[0] == '\0') return;
    if (strncmp(name, "IB", 2) == 0) name[2] = '\0';
    snprintf(r->c->net, sizeof r->c->net, "%s", name);
    r->net_rank = rank;
}

static void log_classify(struct log_reader *r, char *p);

static void log_line(struct log_reader *r, char *line)
{
    char *p = log_strip(line);
    if (*p == '\0') return; /* blank, or a launcher prefix alone */
    log_classify(r, p);
    r->prev_line = r->lineno;
}

static void log_classify(struct log_reader *r, char *p)
{
    char *tok[LOG_TOKENS];
    if (*p != '#') log_rccl_signs(r, p);
    if (*p != '#' && (strstr(p, "NCCL INFO") || strstr(p, "NCCL WARN") ||
                      strncmp(p, "NCCL version ", 13) == 0)) {
        log_nccl_version(r, p);
        log_net(r, p);
        return;
    }
    if (*p == '#') {
        int n = log_split(p + 1, tok);
        if (n > 0) log_meta(r, tok, n); /* anything else is a comment */
        return;
    }
    if (isdigit((unsigned char)*p)) {
        if (log_row(r, tok, log_split(p, tok)) < 0) r->c->skipped++;
        return;
    }
    if (log_command(r, p)) return;
    int n = log_split(p, tok);
    if (!log_meta(r, tok, n)) r->c->skipped++;
}

static enum dmlsim_err load_nccl_log(const char *path, FILE *f, const struct calib_opts *opt,
                                     struct calib *c, struct dmlsim_error *err)
{
    struct log_reader r = {.path = path, .c = c, .opt = opt, .err = err, .rc = DMLSIM_OK};
    r.name.op = r.annot_op.op = -1;
    char line[LOG_LINE_MAX];
    bool too_long;
    snprintf(c->source, sizeof c->source, "nccl-tests log %s", path);
    c->gemm_eff = DEFAULT_GEMM_EFF;
    c->mem_eff = DEFAULT_MEM_EFF;
    r.run.rank_seen = mem_new0(unsigned char, LOG_MAX_RANKS / 8);
    r.run.rhi = INFINITY;
    while (r.rc == DMLSIM_OK && log_getline(f, line, sizeof line, &too_long)) {
        r.lineno++;
        if (too_long)
            c->skipped++;
        else
            log_line(&r, line);
    }
    run_close(&r);
    if (c->gpu_name[0] == '\0') snprintf(c->gpu_name, sizeof c->gpu_name, "%s", r.annot_gpu);
    if (r.rccl_line > 0) /* whatever else went wrong: this is why */
        r.rc = dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: an rccl-tests log (AMD's RCCL: \"%s\"); dmlsim models NCCL on "
                           "NVIDIA GPUs and has no model of RCCL or of AMD GPUs, so it does not "
                           "read it as NCCL's; expected an nccl-tests log",
                           path, r.rccl_line, r.rccl_what);
    else if (r.rc == DMLSIM_OK && c->ncoll == 0)
        r.rc = dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: no nccl-tests result rows (%d lines read)%s; expected "
                           "nccl-tests output with \"size count type ...\" rows",
                           path, r.lineno, r.lineno,
                           c->skipped > 0 && c->nrun > 0 ? ", only rows of tests dmlsim does "
                                                           "not model"
                                                         : "");
    free(r.run.rank_seen);
    free(r.run.hosts);
    return r.rc;
}

/* ---- calibration files -------------------------------------------------------------------- */

/* The largest "count" a profile may give: 2^20 GPUs, 64 times the largest cluster measured in
 * public (Llama 3 405B's 16,384 H100s); a count is a measured machine, not a simulated one. */
#define CALIB_MAX_GPU_COUNT (1 << 20)

/* A measurement record (gemm, copy, kernel, coll) into c; false if `key` is not one. *ok:
 * its fields were well formed. */
static bool calib_measurement(struct calib *c, const char *key, const char *a, const char *rest,
                              int lineno, bool *ok)
{
    if (strcmp(key, "gemm") == 0) {
        struct calib_gemm g;
        double tf;
        g.dtype = dtype_of(a, ok);
        *ok = *ok && sscanf(rest, "%lf %lf %lf %lf", &g.m, &g.n, &g.k, &tf) == 4 && tf > 0;
        g.flops_s = tf * 1e12;
        g.line = lineno;
        if (*ok) PUSH(c->gemm, c->ngemm, g);
    } else if (strcmp(key, "copy") == 0 || strcmp(key, "kernel") == 0) {
        struct calib_rate r;
        double gbps;
        snprintf(r.kind, sizeof r.kind, "%s", a);
        *ok = sscanf(rest, "%lf %lf", &r.bytes, &gbps) == 2 && gbps > 0;
        r.Bps = gbps * 1e9;
        r.line = lineno;
        if (*ok && key[0] == 'c')
            PUSH(c->copy, c->ncopy, r);
        else if (*ok)
            PUSH(c->kernel, c->nkernel, r);
    } else if (strcmp(key, "coll") == 0) {
        /* NODES is optional: files written before it (and kernels/dmlsim-calibrate, which
         * measures one node) have five numbers */
        struct calib_coll r = {.nodes = 1};
        double t_us;
        int got = sscanf(rest, "%d %lf %lf %lf %lf %d", &r.nranks, &r.bytes, &t_us, &r.algbw,
                         &r.busbw, &r.nodes);
        *ok = op_of(a, &r.op) && (got == 5 || got == 6) && t_us > 0 && r.nodes >= 1;
        r.time_s = t_us * 1e-6;
        if (*ok) PUSH(c->coll, c->ncoll, r);
    } else {
        return false;
    }
    return true;
}

static enum dmlsim_err load_calib_file(const char *path, FILE *f, struct calib *c,
                                       struct dmlsim_error *err)
{
    char line[1024];
    int lineno = 1; /* the header was line 1 */
    c->gemm_eff = DEFAULT_GEMM_EFF;
    c->mem_eff = DEFAULT_MEM_EFF;
    snprintf(c->source, sizeof c->source, "calibration file %s", path);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char key[32], a[64], rest[512];
        rest[0] = '\0';
        int n = sscanf(line, "%31s %63s %511[^\n]", key, a, rest);
        if (n <= 0) continue;
        bool ok = true;
        if (calib_measurement(c, key, a, rest, lineno, &ok)) {
            /* a measurement, read (ok says whether it was well formed) */
        } else if (strcmp(key, "source") == 0) {
            snprintf(c->source, sizeof c->source, "%s: %s %s", path, a, rest);
        } else if (strcmp(key, "gpu") == 0) {
            snprintf(c->gpu_name, sizeof c->gpu_name, "%s%s%s", a, rest[0] ? " " : "", rest);
        } else if (strcmp(key, "count") == 0) {
            if (!parse_int(a, 1, CALIB_MAX_GPU_COUNT, &c->gpu_count) || rest[0] != '\0')
                return dmlsim_fail(err, DMLSIM_EVALUE,
                                   "%s:%d: count \"%s%s%s\": expected the number of GPUs "
                                   "measured, an integer from 1 to %d",
                                   path, lineno, a, rest[0] ? " " : "", rest, CALIB_MAX_GPU_COUNT);
        } else if (strcmp(key, "nodes") == 0) {
            ok = parse_int(a, 1, INT_MAX, &c->nodes) && rest[0] == '\0';
        } else if (strcmp(key, "net") == 0) {
            ok = strlen(a) < sizeof c->net;
            if (ok) memcpy(c->net, a, strlen(a) + 1);
        } else if (strcmp(key, "driver") == 0) {
            snprintf(c->driver, sizeof c->driver, "%s", a);
        } else if (strcmp(key, "cuda") == 0) {
            snprintf(c->cuda, sizeof c->cuda, "%s", a);
        } else if (strcmp(key, "nccl") == 0) {
            snprintf(c->nccl, sizeof c->nccl, "%s", a);
        } else if (strcmp(key, "date") == 0) {
            snprintf(c->date, sizeof c->date, "%s", a);
        } else if (strcmp(key, "nocoll") == 0) {
            snprintf(c->nocoll, sizeof c->nocoll, "%s %s", a, rest);
        } else {
            ok = false;
        }
        if (!ok)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: bad calibration record \"%s\"; expected gemm, copy, "
                               "kernel, coll, source, gpu, count, nodes, net, driver, cuda, nccl, "
                               "date or nocoll with their fields (see sim/calib.h)",
                               path, lineno, key);
    }
    return DMLSIM_OK;
}

enum dmlsim_err calib_load(const char *path, struct calib *c, struct dmlsim_error *err)
{
    return calib_load_opts(path, NULL, c, err);
}

enum dmlsim_err calib_load_opts(const char *path, const struct calib_opts *opt, struct calib *c,
                                struct dmlsim_error *err)
{
    memset(c, 0, sizeof *c);
    char why[128], first[256] = "";
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot read calibration: %s", path,
                           xmldoc_strerror(errno, why, sizeof why));
    if (!fgets(first, sizeof first, f)) first[0] = '\0';
    snprintf(c->path, sizeof c->path, "%s", path);
    enum dmlsim_err rc;
    if (strncmp(first, "dmlsim-calibration 1", 20) == 0) {
        rc = load_calib_file(path, f, c, err);
    } else {
        rewind(f);
        rc = load_nccl_log(path, f, opt, c, err);
    }
    fclose(f);
    if (rc != DMLSIM_OK) calib_release(c);
    return rc;
}

void calib_write(const struct calib *c, FILE *out)
{
    fprintf(out, "dmlsim-calibration 1\n# format: sim/calib.h\n");
    fprintf(out, "source %s\n", c->source);
    if (c->gpu_name[0]) fprintf(out, "gpu %s\n", c->gpu_name);
    if (c->gpu_count) fprintf(out, "count %d\n", c->gpu_count);
    if (c->nodes) fprintf(out, "nodes %d\n", c->nodes);
    if (c->net[0]) fprintf(out, "net %s\n", c->net);
    const char *keys[] = {"driver", "cuda", "nccl", "date"};
    const char *vals[] = {c->driver, c->cuda, c->nccl, c->date};
    for (int i = 0; i < 4; i++)
        if (vals[i][0]) fprintf(out, "%s %s\n", keys[i], vals[i]);
    for (size_t i = 0; i < c->ngemm; i++)
        fprintf(out, "gemm %s %.0f %.0f %.0f %.6g\n", catalog_dtype_name(c->gemm[i].dtype),
                c->gemm[i].m, c->gemm[i].n, c->gemm[i].k, c->gemm[i].flops_s / 1e12);
    for (size_t i = 0; i < c->ncopy; i++)
        fprintf(out, "copy %s %.0f %.6g\n", c->copy[i].kind, c->copy[i].bytes,
                c->copy[i].Bps / 1e9);
    for (size_t i = 0; i < c->nkernel; i++)
        fprintf(out, "kernel %s %.0f %.6g\n", c->kernel[i].kind, c->kernel[i].bytes,
                c->kernel[i].Bps / 1e9);
    for (size_t i = 0; i < c->ncoll; i++)
        fprintf(out, "coll %s %d %.0f %.6g %.6g %.6g %d\n", collective_op_name(c->coll[i].op),
                c->coll[i].nranks, c->coll[i].bytes, c->coll[i].time_s * 1e6, c->coll[i].algbw,
                c->coll[i].busbw, c->coll[i].nodes > 0 ? c->coll[i].nodes : 1);
    if (c->nocoll[0]) fprintf(out, "nocoll %s\n", c->nocoll);
}

void calib_write_spec(const struct gpu_model *gpu, FILE *out)
{
    struct calib c = calib_default();
    snprintf(c.source, sizeof c.source,
             "spec derived from the %s datasheet (dmlsim catalog) and the default efficiencies "
             "(GEMMs from their shapes, gemm.h; memory 0.92, Meta pytorch/ao roofline_utils.py): "
             "not a measurement",
             gpu->long_name);
    snprintf(c.gpu_name, sizeof c.gpu_name, "%s", gpu->long_name);
    c.gpu_count = 1;
    /* no GEMM rows: GEMMs take the shape model (gemm.h), as with no profile */
    const struct link_class *pcie = catalog_link(gpu->pcie);
    static const char *copies[] = {"h2d-pinned", "d2h-pinned"};
    for (int i = 0; i < 2; i++) {
        struct calib_rate r;
        snprintf(r.kind, sizeof r.kind, "%s", copies[i]);
        r.bytes = 1 << 28;
        r.Bps = pcie->bw_Bps;
        PUSH(c.copy, c.ncopy, r);
    }
    struct calib_rate d2d = {0, "d2d", 1 << 28, gpu->mem_bw_Bps * DEFAULT_MEM_EFF / 2};
    PUSH(c.copy, c.ncopy, d2d); /* a copy reads and writes: half the bandwidth moves data */
    static const char *kernels[] = {"sgd-momentum", "adam"};
    for (int i = 0; i < 2; i++) {
        struct calib_rate r;
        snprintf(r.kind, sizeof r.kind, "%s", kernels[i]);
        r.bytes = 1 << 28;
        r.Bps = gpu->mem_bw_Bps * DEFAULT_MEM_EFF;
        PUSH(c.kernel, c.nkernel, r);
    }
    snprintf(c.nocoll, sizeof c.nocoll, "spec profile: no measurement");
    calib_write(&c, out);
    calib_release(&c);
}

const struct gpu_model *calib_gpu(const struct calib *c)
{
    return catalog_gpu_match(c->gpu_name); /* the catalog owns the device-name table */
}

double calib_gemm_eff(const struct calib *c, const struct gpu_model *gpu, enum gpu_dtype dt,
                      double flops)
{
    /* points (log FLOPs, efficiency) of this dtype, in FLOPs order */
    double x[64], y[64];
    size_t n = 0;
    for (size_t i = 0; i < c->ngemm && n < 64; i++) {
        if (c->gemm[i].dtype != dt || gpu->peak_flops[dt] <= 0) continue;
        double f = 2 * c->gemm[i].m * c->gemm[i].n * c->gemm[i].k;
        size_t j = n++;
        for (; j > 0 && x[j - 1] > log(f); j--) {
            x[j] = x[j - 1];
            y[j] = y[j - 1];
        }
        x[j] = log(f);
        y[j] = c->gemm[i].flops_s / gpu->peak_flops[dt];
    }
    if (n == 0 || flops <= 0) return c->gemm_eff;
    double lf = log(flops);
    if (lf <= x[0]) return y[0];
    if (lf >= x[n - 1]) return y[n - 1];
    size_t j = 1;
    while (x[j] < lf)
        j++;
    double w = x[j] > x[j - 1] ? (lf - x[j - 1]) / (x[j] - x[j - 1]) : 0;
    return y[j - 1] + w * (y[j] - y[j - 1]);
}

double calib_gemm_measured(const struct calib *c, enum gpu_dtype dt, double m, double n, double k,
                           bool *any)
{
    *any = false;
    for (size_t i = 0; i < c->ngemm; i++) {
        const struct calib_gemm *g = &c->gemm[i];
        if (g->dtype != dt) continue;
        *any = true;
        if (g->m == m && g->n == n && g->k == k) return g->flops_s;
    }
    return 0;
}

double calib_compute_rate(const struct calib *c, const struct gpu_model *gpu, enum gpu_dtype dt)
{
    return gpu->peak_flops[dt] * c->gemm_eff;
}

double calib_memory_rate(const struct calib *c, const struct gpu_model *gpu)
{
    double best = 0;
    for (size_t i = 0; i < c->nkernel; i++)
        if (strcmp(c->kernel[i].kind, "sgd-momentum") == 0 ||
            strcmp(c->kernel[i].kind, "adam") == 0)
            best = fmax(best, c->kernel[i].Bps);
    return best > 0 ? best : gpu->mem_bw_Bps * c->mem_eff;
}

enum dmlsim_err calib_check_gpu(const struct calib *c, const struct gpu_model *gpu,
                                struct dmlsim_error *err)
{
    for (size_t i = 0; i < c->ngemm; i++) {
        const struct calib_gemm *g = &c->gemm[i];
        double peak = gpu->peak_flops[g->dtype];
        if (peak > 0 && g->flops_s > peak)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: gemm %s %.0f %.0f %.0f at %.1f TFLOP/s is %.0f%% of the %s's "
                               "dense %s peak of %.1f TFLOP/s; expected at most 100%%",
                               c->path, g->line, catalog_dtype_name(g->dtype), g->m, g->n, g->k,
                               g->flops_s / 1e12, 100 * g->flops_s / peak, gpu->name,
                               catalog_dtype_name(g->dtype), peak / 1e12);
    }
    for (size_t i = 0; i < c->nkernel; i++) {
        const struct calib_rate *r = &c->kernel[i];
        if (r->Bps > gpu->mem_bw_Bps)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: kernel %s at %.1f GB/s is above the %s's memory bandwidth "
                               "of %.1f GB/s; expected at most 100%%",
                               c->path, r->line, r->kind, r->Bps / 1e9, gpu->name,
                               gpu->mem_bw_Bps / 1e9);
    }
    return DMLSIM_OK;
}

int calib_fit(const struct calib *c, enum coll_op op, int nranks, struct calib_fit *out)
{
    /* t = a + b S, weights 1/t^2: minimise sum ((a + b S - t) / t)^2 */
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (size_t i = 0; i < c->ncoll; i++) {
        const struct calib_coll *r = &c->coll[i];
        if (r->op != op || r->nranks != nranks) continue;
        double w = 1 / (r->time_s * r->time_s);
        sw += w;
        sx += w * r->bytes;
        sy += w * r->time_s;
        sxx += w * r->bytes * r->bytes;
        sxy += w * r->bytes * r->time_s;
        n++;
    }
    double det = sw * sxx - sx * sx;
    if (n < 2 || det <= 0) return -1;
    double b = (sw * sxy - sx * sy) / det, a = (sy - b * sx) / sw;
    double P = nranks, steps, frac;
    switch (op) {
    case COLL_ALLREDUCE:
        steps = 2 * (P - 1);
        frac = 2 * (P - 1) / P;
        break;
    case COLL_ALLGATHER:
    case COLL_REDUCESCATTER:
    case COLL_ALLTOALL:
        steps = P - 1;
        frac = (P - 1) / P;
        break;
    default: /* broadcast: a pipelined chain moves S once over every link */
        steps = P - 1;
        frac = 1;
        break;
    }
    out->alpha_s = a / steps;
    out->bw_Bps = b > 0 ? frac / b : INFINITY;
    out->points = n;
    out->max_rel = 0;
    for (size_t i = 0; i < c->ncoll; i++) {
        const struct calib_coll *r = &c->coll[i];
        if (r->op == op && r->nranks == nranks)
            out->max_rel = fmax(out->max_rel, fabs(a + b * r->bytes - r->time_s) / r->time_s);
    }
    return 0;
}
