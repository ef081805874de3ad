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
    static const char *names[] = {"allreduce", "allgather", "reducescatter", "broadcast"};
    static const char *nccl[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast"};
    for (int i = 0; i < 4; i++)
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
 * A "run" is one nccl-tests invocation: its rows get the rank and node counts of the "# Rank"
 * lines it printed before them, so logs of several runs keep each run's own counts. */

#define LOG_LINE_MAX  4096  /* longest line kept; NCCL's "Trees" lines reach about 2 kB */
#define LOG_TOKENS    32    /* fields kept from one line (a result row has 13) */
#define LOG_MAX_RANKS 65536 /* rank ids told apart in one run */
#define LOG_MAX_HOSTS 4096  /* host names told apart in one run */
#define LOG_HOST_LEN  64    /* host names are cut to this (longer ones may then merge) */

struct log_run {
    size_t first;                /* index in c->coll of the run's first row */
    int first_line;              /* line of that row, for messages */
    int nthread, ngpus;          /* from "# nThread T nGpus G"; 0 unseen */
    int nranks;                  /* distinct rank ids among its "# Rank" lines */
    unsigned char *rank_seen;    /* LOG_MAX_RANKS bits: rank ids seen */
    char (*hosts)[LOG_HOST_LEN]; /* distinct host names of those lines */
    int nhosts;                  /* entries in hosts */
};

struct log_reader {
    const char *path;          /* for messages */
    struct calib *c;           /* being filled */
    int lineno;                /* current line, from 1 */
    enum coll_op op;           /* operation of the current test */
    bool op_known;             /* false while the current test is one dmlsim does not model */
    int ncols;                 /* fields of the last header line; 0: none, guess from each row */
    int time_col, inplace_col; /* where that header puts the two "time" columns (-1: none) */
    int annot_ranks;           /* "# dmlsim-nranks N"; 0 none */
    int annot_nodes;           /* "# dmlsim-nodes N"; 0 none */
    char annot_gpu[640];       /* "# dmlsim-gpu NAME..."; "" none */
    int net_rank;              /* how direct the evidence behind c->net is: 0 none .. 3 */
    int unknown_line;          /* first row of a run whose GPU count is unknown; 0 none */
    struct log_run run;        /* the invocation being read */
};

/* Reads one line without its end; false at end of file. A line longer than the buffer is
 * consumed whole and flagged, so that its tail is never read as a line (or a fake row) of its
 * own. NUL bytes become blanks so that they cannot cut a line short. */
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

/* Ends the run being read: its rows get its GPU count (its distinct "# Rank" ids, else the
 * dmlsim-nranks annotation, else nThread x nGpus, which is right for one process only) and its
 * node count (its distinct hosts, else the dmlsim-nodes annotation, else unknown: 1). */
static void run_close(struct log_reader *r)
{
    struct log_run *u = &r->run;
    struct calib *c = r->c;
    int ranks = u->nranks ? u->nranks : r->annot_ranks ? r->annot_ranks : u->nthread * u->ngpus;
    int nodes = u->nranks ? u->nhosts : r->annot_nodes;
    if (c->ncoll > u->first) {
        if (ranks < 1 && r->unknown_line == 0) r->unknown_line = u->first_line;
        for (size_t i = u->first; i < c->ncoll; i++) {
            c->coll[i].nranks = ranks;
            c->coll[i].nodes = nodes > 0 ? nodes : 1;
        }
        if (ranks > c->gpu_count) c->gpu_count = ranks;
        if (nodes > c->nodes) c->nodes = nodes;
    }
    u->first = c->ncoll;
    u->nthread = u->ngpus = u->nranks = u->nhosts = 0;
    memset(u->rank_seen, 0, LOG_MAX_RANKS / 8);
    r->ncols = 0; /* every run prints its own header */
}

/* A test starts ("# Collective test starting: NAME", or a command line running NAME): rows from
 * here on are of its operation, or skipped when dmlsim does not model it (alltoall, sendrecv). */
static void log_test_starts(struct log_reader *r, const char *name)
{
    if (r->c->ncoll > r->run.first) run_close(r);
    r->op_known = op_of(name, &r->op);
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
        log_test_starts(r, name);
        return true;
    }
    return false;
}

/* "#  Rank  3 Group  0 Pid 1234 on host device  3 [0x5d] NVIDIA H100 80GB HBM3" (nccl-tests 2.11
 * and later) or "#   Rank  3 Pid 1234 on host device  3 [0x5d] Tesla V100-SXM2-32GB" (before):
 * the rank id, the host after "on" (absent where the poster redacted it), the device name after
 * the bus id. Rank ids are counted once each, as processes that failed to join one communicator
 * all print "Rank 0" (NVIDIA/nccl-tests#254). */
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
    int h = 0;
    while (h < u->nhosts && strncmp(u->hosts[h], host, LOG_HOST_LEN - 1) != 0)
        h++;
    if (h == u->nhosts && u->nhosts < LOG_MAX_HOSTS) {
        u->hosts = mem_realloc(u->hosts, ((size_t)u->nhosts + 1) * sizeof *u->hosts);
        snprintf(u->hosts[u->nhosts++], LOG_HOST_LEN, "%s", host);
    }
    if (dev >= 0 && dev + 3 < n && tok[dev + 2][0] == '[' && r->c->gpu_name[0] == '\0')
        log_join(r->c->gpu_name, sizeof r->c->gpu_name, tok + dev + 3, n - dev - 3);
    return true;
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
    return true;
}

/* "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ...": the layout of the
 * rows below. Older nccl-tests have no root column (and "error" for "#wrong"), older
 * broadcast_perf has root but no redop: the columns are found by name, not by position. */
static bool log_header(struct log_reader *r, char **tok, int n)
{
    int t = -1, tin = -1;
    if (n < 7 || n > LOG_TOKENS) return false;
    for (int i = 3; i < n; i++)
        if (strcmp(tok[i], "time") == 0) {
            if (t < 0)
                t = i;
            else if (tin < 0)
                tin = i;
        }
    if (t < 0 || t + 2 >= n || strcmp(tok[t + 1], "algbw") != 0 || strcmp(tok[t + 2], "busbw") != 0)
        return false;
    r->ncols = n;
    r->time_col = t;
    r->inplace_col = tin;
    return true;
}

/* "# dmlsim-nranks N", "# dmlsim-nodes N", "# dmlsim-gpu NAME...": what a log posted without
 * its "# Rank" lines does not say. A malformed one counts as skipped rather than as a comment. */
static bool log_annotation(struct log_reader *r, char **tok, int n)
{
    bool ok = n >= 2;
    if (strcmp(tok[0], "dmlsim-nranks") == 0)
        ok = ok && n == 2 && parse_int(tok[1], 1, LOG_MAX_RANKS, &r->annot_ranks);
    else if (strcmp(tok[0], "dmlsim-nodes") == 0)
        ok = ok && n == 2 && parse_int(tok[1], 1, LOG_MAX_HOSTS, &r->annot_nodes);
    else if (strcmp(tok[0], "dmlsim-gpu") == 0 && ok)
        log_join(r->annot_gpu, sizeof r->annot_gpu, tok + 1, n - 1);
    else
        return false;
    if (!ok) r->c->skipped++;
    return true;
}

/* "# nccl-tests version 2.18.0 nccl-headers=22907 nccl-library=22907": the NCCL version as
 * NCCL_VERSION_CODE, X * 10000 + Y * 100 + Z since 2.9 (nccl.h, NCCL_VERSION), for logs whose
 * "NCCL version" line was not kept. */
static bool log_tests_version(struct log_reader *r, char **tok, int n)
{
    int code;
    if (n < 2 || strcmp(tok[1], "version") != 0) return false;
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
        log_test_starts(r, tok[3]);
        return true;
    }
    if (strcmp(tok[0], "nThread") == 0) return log_nthread(r, tok, k);
    if (strcmp(tok[0], "Rank") == 0) return log_rank_line(r, tok, k);
    if (strcmp(tok[0], "size") == 0) return log_header(r, tok, n);
    if (strncmp(tok[0], "dmlsim-", 7) == 0) return log_annotation(r, tok, k);
    if (strcmp(tok[0], "nccl-tests") == 0) return log_tests_version(r, tok, k);
    return false;
}

/* A result row: size count type [redop] [root] time algbw busbw wrong [time algbw busbw wrong].
 * Without a header the layout comes from the field count: 13 (or 9, out-of-place only) with a
 * root column, 12 (or 8) without. Returns 1 for a row kept, 0 for a row of 0 bytes (dropped:
 * NCCL returns at once for a zero count, so its time is launch overhead, which would pull a
 * latency fit to zero), -1 for a line that is not a row (counted as skipped by the caller). */
static int log_row(struct log_reader *r, char **tok, int n)
{
    int t = r->time_col, tin = r->inplace_col;
    if (n > LOG_TOKENS || (r->ncols > 0 && n != r->ncols)) return -1;
    if (r->ncols == 0) {
        t = (n == 13 || n == 9) ? 5 : (n == 12 || n == 8) ? 4 : -1;
        tin = n >= 12 ? t + 4 : -1;
    }
    if (t < 3 || !is_uint(tok[0]) || !is_uint(tok[1]) || !isalpha((unsigned char)tok[2][0]))
        return -1;
    for (int i = 3; i < t;
         i++) /* redop, root: a word or a rank; a torn line ("-1[0]") is neither */
        if (!isalpha((unsigned char)tok[i][0]) && !is_int(tok[i])) return -1;
    struct calib_coll row = {.op = r->op};
    double t_us, tin_us;
    if (!parse_num(tok[0], &row.bytes) || !parse_num(tok[t], &t_us) || t_us <= 0 ||
        !parse_num(tok[t + 1], &row.algbw) || !parse_num(tok[t + 2], &row.busbw))
        return -1;
    if (tin > t && tin < n && parse_num(tok[tin], &tin_us) && tin_us > 0)
        row.time_inplace_s = tin_us * 1e-6;
    row.time_s = t_us * 1e-6;
    if (row.bytes == 0) return 0;
    if (!r->op_known) return -1;
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

static void log_line(struct log_reader *r, char *line)
{
    char *p = log_strip(line), *tok[LOG_TOKENS];
    if (*p == '\0') return; /* blank, or a launcher prefix alone */
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

static enum dmlsim_err load_nccl_log(const char *path, FILE *f, struct calib *c,
                                     struct dmlsim_error *err)
{
    struct log_reader r = {.path = path, .c = c, .op = COLL_ALLREDUCE, .op_known = true};
    char line[LOG_LINE_MAX];
    bool too_long;
    enum dmlsim_err rc = DMLSIM_OK;
    snprintf(c->source, sizeof c->source, "nccl-tests log %s", path);
    c->gemm_eff = DEFAULT_GEMM_EFF;
    c->mem_eff = DEFAULT_MEM_EFF;
    r.run.rank_seen = mem_new0(unsigned char, LOG_MAX_RANKS / 8);
    while (log_getline(f, line, sizeof line, &too_long)) {
        r.lineno++;
        if (too_long)
            c->skipped++;
        else
            log_line(&r, line);
    }
    run_close(&r);
    if (c->gpu_name[0] == '\0') snprintf(c->gpu_name, sizeof c->gpu_name, "%s", r.annot_gpu);
    if (c->ncoll == 0)
        rc = dmlsim_fail(err, DMLSIM_EVALUE,
                         "%s:%d: no nccl-tests result rows (%d lines read); expected nccl-tests "
                         "output with \"size count type ...\" rows",
                         path, r.lineno, r.lineno);
    else if (r.unknown_line > 0)
        rc = dmlsim_fail(err, DMLSIM_EVALUE,
                         "%s:%d: cannot tell how many GPUs the nccl-tests run of this row used; "
                         "expected its \"#  Rank N ... on HOST device ...\" lines, a \"# nThread "
                         "T nGpus G\" line or a \"# dmlsim-nranks N\" line",
                         path, r.unknown_line);
    free(r.run.rank_seen);
    free(r.run.hosts);
    return rc;
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
        rc = load_nccl_log(path, f, c, err);
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
