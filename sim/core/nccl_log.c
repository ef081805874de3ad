/* nccl_log.c - the nccl-tests log reader: its lines, classified once each (see nccl_log.h). */
#include "nccl_log.h"

#include "nccl_log_run.h"

#include "mem.h"
#include "units.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOG_LINE_MAX  4096  /* longest line kept; NCCL's "Trees" lines reach about 2 kB */
#define LOG_TOKENS    32    /* fields kept from one line (a result row has 13) */

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

/* ---- the lines ---------------------------------------------------------------------------- */

/* A test starts ("# Collective test starting: NAME", or a command line running NAME): the next
 * run is of its operation (or of a test dmlsim does not model: its rows are dropped). */
static void log_test_starts(struct log_reader *r, const char *name, const char *how)
{
    if (r->c->ncoll > r->run.first) nccl_log_run_close(r);
    r->name.op = nccl_log_run_op_of_name(name);
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
    if (n < 2 || !units_parse_int(tok[1], 0, INT_MAX, &id)) return false;
    if (id >= LOG_MAX_RANKS) {
        r->c->skipped++;
        return true;
    }
    if (r->c->ncoll > r->run.first) nccl_log_run_close(r); /* rank lines come before a run's rows */
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
    if (n < 4 || strcmp(tok[2], "nGpus") != 0 || !units_parse_int(tok[1], 1, 1024, &th) ||
        !units_parse_int(tok[3], 1, 1024, &g))
        return false;
    nccl_log_run_close(r);
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
        ok = ok && n == 2 && units_parse_int(tok[1], 1, LOG_MAX_RANKS, &r->annot_ranks);
        r->annot_ranks_line = r->lineno;
    } else if (strcmp(tok[0], "dmlsim-nodes") == 0) {
        ok = ok && n == 2 && units_parse_int(tok[1], 1, LOG_MAX_HOSTS, &r->annot_nodes);
        r->annot_nodes_line = r->lineno;
    } else if (strcmp(tok[0], "dmlsim-gpu") == 0 && ok) {
        log_join(r->annot_gpu, sizeof r->annot_gpu, tok + 1, n - 1);
    } else if (strcmp(tok[0], "dmlsim-op") == 0) {
        ok = ok && n == 2;
        if (ok) {
            r->annot_op.op = nccl_log_run_op_of_name(tok[1]);
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
 * NCCL_VERSION_CODE, X * 10000 + Y * 100 + Z since 2.9 (src/nccl.h.in, NCCL_VERSION), for logs whose
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
            units_parse_int(tok[i] + 13, 20900, 999999, &code) && r->c->nccl[0] == '\0')
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
    else if (units_parse_int(root, -1, INT_MAX, &rt) && rt >= 0)
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
    MEM_PUSH(r->c->coll, r->c->ncoll, row);
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

enum dmlsim_err nccl_log_load(const char *path, FILE *f, const struct calib_opts *opt,
                              struct calib *c, struct dmlsim_error *err)
{
    struct log_reader r = {.path = path, .c = c, .opt = opt, .err = err, .rc = DMLSIM_OK};
    r.name.op = r.annot_op.op = -1;
    char line[LOG_LINE_MAX];
    bool too_long;
    snprintf(c->source, sizeof c->source, "nccl-tests log %s", path);
    c->gemm_eff = CALIB_DEFAULT_GEMM_EFF;
    c->mem_eff = CALIB_DEFAULT_MEM_EFF;
    r.run.rank_seen = mem_new0(unsigned char, LOG_MAX_RANKS / 8);
    r.run.rhi = INFINITY;
    while (r.rc == DMLSIM_OK && log_getline(f, line, sizeof line, &too_long)) {
        r.lineno++;
        if (too_long)
            c->skipped++;
        else
            log_line(&r, line);
    }
    nccl_log_run_close(&r);
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
