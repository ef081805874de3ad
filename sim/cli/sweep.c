/* sweep.c - parameter sweeps over child processes (see sweep.h). */
#include "sweep.h"

#include "cmdline.h"
#include "outfile.h"

#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_AXES 8
#define SWEEP_MAX_EXTRA 128 /* option and value pairs passed to every point, 2 entries each */

struct axis {
    char path[128]; /* ELEM.ATTR */
    char **values;  /* the values */
    int nvalues;    /* how many */
    bool zip;       /* a --zip axis: one dimension with the other --zip axes */
    int stride;     /* grid points per step of its dimension (count_points) */
};

struct sweep {
    const char *file;           /* scenario */
    struct axis axes[MAX_AXES]; /* the grid */
    int naxes;                  /* how many axes */
    int jobs;                   /* children at a time */
    const char *out;            /* merged table file (with --point: the point's), or NULL */
    const char **extra;         /* what every point's `dmlsim run` gets besides its --set */
    int nextra;                 /* how many */
    int point;                  /* --point K: only point K - 1; else 0 */
    bool list;                  /* --list: print the points' command lines */
    int files;                  /* --csv, --json and --trace given (only with --point) */
    char dir[PATH_MAX];         /* temporary folder for the children's files, "" while none */
    int npoints;                /* product of the axes' sizes, at most SWEEP_MAX_POINTS */
    pid_t *pids;                /* per point: its child process while unreaped, else 0 */
    int nspawned;               /* points started so far (0 .. nspawned-1 may have files) */
};

/* The sweep whose children and folder an interrupt must clean up (sweep_interrupt), or NULL.
 * It, and its pids and nspawned, change only with SIGINT and SIGTERM held, so the handler
 * never sees them half-changed. */
static struct sweep *live;

/* DIR/P.EXT into buf (PATH_MAX; dir is shorter by 32 at least). Async-signal-safe: the handler
 * uses it too. */
static void point_path(const struct sweep *sw, int p, const char *ext, char *buf)
{
    char digits[16];
    int nd = 0;
    do {
        digits[nd++] = (char)('0' + p % 10);
        p /= 10;
    } while (p > 0);
    size_t n = strlen(sw->dir);
    memcpy(buf, sw->dir, n);
    buf[n++] = '/';
    while (nd > 0)
        buf[n++] = digits[--nd];
    strcpy(buf + n, ext);
}

/* Removes the points' files and the folder (async-signal-safe). A child's own temporary files
 * are its business: it removes them when it ends, on an interrupt too. */
static void remove_files(const struct sweep *sw)
{
    char path[PATH_MAX];
    if (sw->dir[0] == '\0') return;
    for (int p = 0; p < sw->nspawned; p++) {
        point_path(sw, p, ".sum", path);
        unlink(path);
        point_path(sw, p, ".err", path);
        unlink(path);
    }
    rmdir(sw->dir);
}

void sweep_interrupt(void)
{
    struct sweep *sw = live;
    if (sw == NULL) return;
    for (int p = 0; p < sw->nspawned; p++)
        if (sw->pids[p] > 0) kill(sw->pids[p], SIGTERM);
    for (int p = 0; p < sw->nspawned; p++)
        while (sw->pids[p] > 0 && waitpid(sw->pids[p], NULL, 0) < 0 && errno == EINTR)
            continue;
    remove_files(sw);
}

static int sweep_usage(const char *why)
{
    return cli_error(cli_find("sweep"), why);
}

/* Value of axis a at grid point p (first dimension slowest; the --zip axes are one dimension,
 * where the first of them stands). */
static const char *point_value(const struct sweep *sw, int p, int a)
{
    const struct axis *ax = &sw->axes[a];
    return ax->values[(p / ax->stride) % ax->nvalues];
}

/* The child of a point: interrupts as by default (unless ignored) until its dmlsim sets its
 * own handler, ended with its parent, stdout to /dev/null, stderr to ERRF. Only
 * async-signal-safe calls. */
static void exec_point(const char *exe, char **argv, const char *errf, pid_t parent,
                       const sigset_t *mask)
{
    struct sigaction cur;
    if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler != SIG_IGN) signal(SIGINT, SIG_DFL);
    if (sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler != SIG_IGN) signal(SIGTERM, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127); /* the sweep has ended already */
    sigprocmask(SIG_SETMASK, mask, NULL);
    int null = open("/dev/null", O_WRONLY), e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(null, 1);
    dup2(e, 2);
    execv(exe, argv);
    _exit(127);
}

/* Starts point p (the next one) as `dmlsim run FILE --set ... --summary DIR/P.sum`; returns the
 * child's pid, or -1. The child is in sw->pids before an interrupt can see it. */
static pid_t spawn(struct sweep *sw, const char *exe, int p)
{
    char **argv = xbt_new0(char *, 8 + 2 * MAX_AXES + (size_t)sw->nextra), sum[PATH_MAX],
         errf[PATH_MAX];
    int n = 0;
    argv[n++] = (char *)exe;
    argv[n++] = "run";
    argv[n++] = (char *)sw->file;
    for (int a = 0; a < sw->naxes; a++) {
        argv[n++] = "--set";
        argv[n++] = bprintf("%s=%s", sw->axes[a].path, point_value(sw, p, a));
    }
    for (int e = 0; e < sw->nextra; e++)
        argv[n++] = (char *)sw->extra[e];
    argv[n++] = "--summary";
    argv[n++] = sum;
    point_path(sw, p, ".sum", sum);
    point_path(sw, p, ".err", errf);
    fflush(NULL);
    sigset_t old;
    pid_t parent = getpid();
    outfile_hold_interrupts(&old);
    pid_t pid = fork();
    if (pid == 0) exec_point(exe, argv, errf, parent, &old);
    sw->pids[p] = pid > 0 ? pid : 0;
    sw->nspawned = p + 1;
    outfile_release_interrupts(&old);
    for (int a = 0; a < sw->naxes; a++)
        free(argv[4 + 2 * a]);
    free(argv);
    return pid;
}

static void progress(int done, int total)
{
    if (!isatty(2)) return;
    int width = 40, fill = total ? done * width / total : width;
    fprintf(stderr, "\r[%.*s%*s] %d/%d", fill, "########################################",
            width - fill, "", done, total);
    if (done == total) fputc('\n', stderr);
}

/* A file's lines, each without its newline. */
struct text {
    char **line;
    int n;
};

static void text_free(struct text *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->line[i]);
    free(t->line);
    t->line = NULL;
    t->n = 0;
}

/* Reads path's lines into t (text_free it); 0, or -1 (t empty) when the file cannot be read, has
 * more than max lines, a line of SWEEP_LINE_MAX bytes or more, or a last line without its
 * newline (a file cut short). */
static int read_text(const char *path, int max, struct text *t)
{
    FILE *f = fopen(path, "r");
    t->line = xbt_new0(char *, (size_t)max);
    t->n = 0;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len = 0;
    bool bad = f == NULL;
    while (!bad && (len = getline(&buf, &cap, f)) >= 0) {
        bad = t->n == max || len >= SWEEP_LINE_MAX || buf[len - 1] != '\n';
        if (bad) break;
        buf[len - 1] = '\0';
        t->line[t->n++] = xbt_strdup(buf);
    }
    bad = bad || (f != NULL && ferror(f));
    free(buf);
    if (f) fclose(f);
    if (bad) text_free(t);
    return bad ? -1 : 0;
}

/* Axes with one value are fixed overrides: named in the header, not given a column. */
static void print_table(const struct sweep *sw, FILE *out, char **rows, const char *header)
{
    fprintf(out, "# dmlsim sweep of %s over", sw->file);
    for (int a = 0; a < sw->naxes; a++)
        if (sw->axes[a].nvalues > 1) fprintf(out, " %s", sw->axes[a].path);
    for (int a = 0, first = 1; a < sw->naxes; a++)
        if (sw->axes[a].nvalues == 1) {
            fprintf(out, "%s%s=%s", first ? "; fixed: " : ", ", sw->axes[a].path,
                    sw->axes[a].values[0]);
            first = 0;
        }
    fprintf(out, "\n#");
    for (int a = 0, col = 0; a < sw->naxes; a++)
        if (sw->axes[a].nvalues > 1) fprintf(out, " %*s", col++ == 0 ? 23 : 24, sw->axes[a].path);
    fprintf(out, " %s\n", header);
    for (int p = 0; p < sw->npoints; p++) {
        fprintf(out, " ");
        for (int a = 0; a < sw->naxes; a++)
            if (sw->axes[a].nvalues > 1) fprintf(out, " %23s", point_value(sw, p, a));
        fprintf(out, " %s\n", rows[p]);
    }
}

/* Splits LIST at its unescaped commas ("\\," is a comma, "\\\\" a backslash) into ax's values;
 * false with why for a trailing lone backslash or an empty value. */
static bool split_values(struct axis *ax, const char *list, char *why, size_t len)
{
    char *v = xbt_malloc(strlen(list) + 1);
    size_t n = 0;
    bool empty = false;
    for (const char *c = list;; c++) {
        if (*c == '\\' && (c[1] == ',' || c[1] == '\\')) {
            v[n++] = *++c;
            continue;
        }
        empty |= *c == '\\' && c[1] == '\0'; /* a lone backslash at the end: refused */
        if (*c != ',' && *c != '\0') {
            v[n++] = *c;
            continue;
        }
        v[n] = '\0';
        empty |= n == 0;
        ax->values = xbt_realloc(ax->values, (ax->nvalues + 1) * sizeof *ax->values);
        ax->values[ax->nvalues++] = xbt_strdup(v);
        n = 0;
        if (*c == '\0') break;
    }
    free(v);
    snprintf(why, len,
             "--%s %s: an empty value or a lone backslash at the end; expected V1,V2,... (\\, for "
             "a comma inside one, \\\\ for a backslash)",
             ax->zip ? "zip" : "set", ax->path);
    return !empty;
}

/* Adds the axis ELEM.ATTR=V1,V2,... (a --zip axis if zip); false with why it is refused. */
static bool add_axis(struct sweep *sw, const char *spec, bool zip, char *why, size_t len)
{
    const char *eq = strchr(spec, '=');
    size_t klen = eq ? (size_t)(eq - spec) : 0;
    if (eq == NULL || klen == 0 || eq[1] == '\0' || sw->naxes == MAX_AXES ||
        klen >= sizeof sw->axes[0].path || strchr(spec, '\n') != NULL) {
        snprintf(why, len, "--%s expects ELEM.ATTR=V1,V2,... on one line (at most 8 axes)",
                 zip ? "zip" : "set");
        return false;
    }
    for (int a = 0; a < sw->naxes; a++)
        if (strlen(sw->axes[a].path) == klen && strncmp(sw->axes[a].path, spec, klen) == 0) {
            snprintf(why, len, "--%s %.*s is given twice; expected each axis once",
                     zip ? "zip" : "set", (int)klen, spec);
            return false;
        }
    struct axis *ax = &sw->axes[sw->naxes++];
    snprintf(ax->path, sizeof ax->path, "%.*s", (int)klen, spec);
    ax->zip = zip;
    return split_values(ax, eq + 1, why, len);
}

/* The --zip axes' common length; false with why when they differ. */
static bool zip_length(const struct sweep *sw, int *len, char *why, size_t wlen)
{
    *len = 0;
    for (int a = 0; a < sw->naxes; a++) {
        if (!sw->axes[a].zip) continue;
        if (*len != 0 && sw->axes[a].nvalues != *len) {
            snprintf(why, wlen, "--zip %s has %d value(s), another --zip axis %d; expected as many",
                     sw->axes[a].path, sw->axes[a].nvalues, *len);
            return false;
        }
        *len = sw->axes[a].nvalues;
    }
    return true;
}

/* Each axis's stride: the dimensions are the --set axes and, where the first --zip axis
 * stands, the --zip axes together (zip values each); the last dimension is the fastest. */
static void set_strides(struct sweep *sw, int zip)
{
    int stride = 1, first_zip = -1;
    for (int a = 0; a < sw->naxes && first_zip < 0; a++)
        if (sw->axes[a].zip) first_zip = a;
    for (int a = sw->naxes - 1; a >= 0; a--) {
        if (sw->axes[a].zip && a != first_zip) continue;
        if (a == first_zip) {
            for (int b = 0; b < sw->naxes; b++)
                if (sw->axes[b].zip) sw->axes[b].stride = stride;
            stride *= zip;
        } else {
            sw->axes[a].stride = stride;
            stride *= sw->axes[a].nvalues;
        }
    }
}

/* The number of grid points, counted in 64 bits (no product before the check exceeds
 * SWEEP_MAX_POINTS, so none overflows), and each axis's stride (its dimension's: the --zip axes
 * are one, the last dimension fastest); false with why above SWEEP_MAX_POINTS. */
static bool count_points(struct sweep *sw, char *why, size_t len)
{
    int zip;
    if (!zip_length(sw, &zip, why, len)) return false;
    uint64_t n = 1;
    int used = snprintf(why, len, "the grid has");
    for (int a = sw->naxes - 1, zip_seen = 0; a >= 0; a--) {
        struct axis *ax = &sw->axes[a];
        bool last_zip = ax->zip && !zip_seen++; /* the zip dimension, counted once */
        if (ax->zip && !last_zip) continue;
        if (n <= SWEEP_MAX_POINTS) n *= (uint64_t)ax->nvalues;
    }
    for (int a = 0; a < sw->naxes; a++)
        if (used >= 0 && (size_t)used < len)
            used += snprintf(why + used, len - (size_t)used, "%s%d", a ? " x " : " ",
                             sw->axes[a].nvalues);
    if (n > SWEEP_MAX_POINTS) {
        if (used >= 0 && (size_t)used < len)
            snprintf(why + used, len - (size_t)used,
                     " points, more than %d; expected at most %d points in one sweep",
                     SWEEP_MAX_POINTS, SWEEP_MAX_POINTS);
        return false;
    }
    sw->npoints = (int)n;
    set_strides(sw, zip);
    sw->pids = xbt_new0(pid_t, sw->npoints);
    return true;
}

/* The default -j: the online cores, 1 .. 256. */
static int default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

/* Whether a passed option names a file that one point writes. */
static bool is_file_option(const char *opt)
{
    return strcmp(opt, "--csv") == 0 || strcmp(opt, "--json") == 0 || strcmp(opt, "--trace") == 0;
}

/* An option of the sweep itself (sw); false with why it is refused. */
static bool sweep_option(struct sweep *sw, const struct cli_hit *h, char *why, size_t len)
{
    char *end;
    long v = h->value ? strtol(h->value, &end, 10) : 0;
    switch (h->key) {
    case CLI_SET:
    case CLI_ZIP: return add_axis(sw, h->value, h->key == CLI_ZIP, why, len);
    case CLI_OUT: sw->out = h->value; return true;
    case CLI_LIST: sw->list = true; return true;
    case CLI_JOBS:
        sw->jobs = (int)v;
        snprintf(why, len, "-j expects a number from 1 to 256");
        return *end == '\0' && v >= 1 && v <= 256;
    case CLI_POINT:
        sw->point = (int)v;
        snprintf(why, len, "--point expects a point number from 1 to %d", SWEEP_MAX_POINTS);
        return *end == '\0' && v >= 1 && v <= SWEEP_MAX_POINTS;
    default: /* to the points: --calib, --cfg, --unset; with --point, --csv, --json, --trace */
        snprintf(why, len, "at most %d options passed to the points, each on one line",
                 SWEEP_MAX_EXTRA / 2);
        if (sw->nextra == SWEEP_MAX_EXTRA || strchr(h->value, '\n') != NULL) return false;
        sw->files += h->key == CLI_CSV || h->key == CLI_JSON || h->key == CLI_TRACE;
        sw->extra[sw->nextra++] = h->key == CLI_CALIB   ? "--calib"
                                  : h->key == CLI_CFG   ? "--cfg"
                                  : h->key == CLI_UNSET ? "--unset"
                                  : h->key == CLI_CSV   ? "--csv"
                                  : h->key == CLI_JSON  ? "--json"
                                                        : "--trace";
        sw->extra[sw->nextra++] = h->value;
        return true;
    }
}

static int parse(struct sweep *sw, const struct cli_args *a)
{
    char why[256];
    memset(sw, 0, sizeof *sw);
    sw->jobs = default_jobs();
    sw->file = a->args[0];
    sw->extra = xbt_new0(const char *, SWEEP_MAX_EXTRA);
    for (int i = 0; i < a->nhits; i++)
        if (!sweep_option(sw, &a->hits[i], why, sizeof why)) return sweep_usage(why);
    if (sw->naxes == 0) return sweep_usage("expected at least one --set or --zip");
    if (!count_points(sw, why, sizeof why)) return sweep_usage(why);
    if (sw->point > sw->npoints) {
        snprintf(why, sizeof why, "--point %d: the grid has %d points; expected 1 to %d",
                 sw->point, sw->npoints, sw->npoints);
        return sweep_usage(why);
    }
    if (sw->files && !sw->point)
        return sweep_usage("--csv, --json and --trace name one file; expected them with --point K");
    return sw->list && sw->point ? sweep_usage("--list and --point exclude each other") : 0;
}

/* Removes the folder, then lets go of the sweep. */
static void cleanup(struct sweep *sw)
{
    sigset_t old;
    remove_files(sw);
    outfile_hold_interrupts(&old);
    live = NULL;
    outfile_release_interrupts(&old);
    free(sw->pids);
    free(sw->extra);
    for (int a = 0; a < sw->naxes; a++) {
        for (int v = 0; v < sw->axes[a].nvalues; v++)
            free(sw->axes[a].values[v]);
        free(sw->axes[a].values);
    }
}

/* Reaps the ended child `pid` (waitid left it a zombie) and records its point's status. */
static void reap(struct sweep *sw, pid_t pid, int *rcs)
{
    sigset_t old;
    int wst = 0;
    outfile_hold_interrupts(&old);
    waitpid(pid, &wst, 0);
    for (int p = 0; p < sw->nspawned; p++)
        if (sw->pids[p] == pid) {
            rcs[p] = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
            sw->pids[p] = 0;
        }
    outfile_release_interrupts(&old);
}

/* Runs every point, sw.jobs at a time; fills rcs with their exit statuses. A child is only
 * reaped with interrupts held (waitid's WNOWAIT waits without reaping), so the handler never
 * signals or waits for a pid that is no longer its child. */
static void run_points(struct sweep *sw, const char *exe, int lo, int hi, int *rcs)
{
    int running = 0, done = 0, total = hi - lo;
    sw->nspawned = lo;
    progress(0, total);
    while (done < total) {
        while (running < sw->jobs && sw->nspawned < hi) {
            int p = sw->nspawned;
            if (spawn(sw, exe, p) > 0) {
                running++;
            } else {
                rcs[p] = 127;
                progress(++done, total);
            }
        }
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (running == 0) break;
        if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) != 0) {
            if (errno == EINTR) continue;
            break;
        }
        reap(sw, si.si_pid, rcs);
        running--;
        progress(++done, total);
    }
}

/* Reads each point's summary line into rows; a point that failed (any status but 0, or 4: a
 * simulated job that failed is a result too) stops the sweep with its first error line. */
static int collect_rows(struct sweep *sw, int lo, int hi, const int *rcs, char **rows,
                        char **header)
{
    char path[PATH_MAX];
    for (int p = lo; p < hi; p++) {
        struct text t = {0};
        point_path(sw, p, ".sum", path);
        if ((rcs[p] == 0 || rcs[p] == 4) && read_text(path, 2, &t) == 0 && t.n == 2) {
            if (*header == NULL) *header = xbt_strdup(t.line[0]);
            bool same = strcmp(*header, t.line[0]) == 0;
            if (same) rows[p] = xbt_strdup(t.line[1]);
            text_free(&t);
            if (same) continue;
            fprintf(stderr, "dmlsim sweep: point %d has other summary columns than point %d; "
                            "expected one table\n", p + 1, lo + 1);
            return 1;
        }
        text_free(&t);
        char msg[1024] = "";
        point_path(sw, p, ".err", path);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(msg, sizeof msg, f)) msg[0] = '\0';
            fclose(f);
        }
        msg[strcspn(msg, "\n")] = '\0';
        fprintf(stderr, "dmlsim sweep: point %d failed (exit %d): %s\n", p + 1, rcs[p],
                msg[0] ? msg : "no summary written");
        return 1;
    }
    return 0;
}

/* What the merged table is printed from (print_table's arguments, as a struct outfile ctx). */
struct table {
    const struct sweep *sw; /* the sweep */
    char **rows;            /* per point, its summary values */
    const char *header;     /* the summary's column names */
};

static void write_table_to(const void *ctx, FILE *out)
{
    const struct table *t = ctx;
    print_table(t->sw, out, t->rows, t->header);
}

/* -o OUT as an output file (report.h): in place for a device or FIFO, else renamed onto it. */
static int write_table(const struct sweep *sw, char **rows, const char *header)
{
    struct dmlsim_error err = {0};
    const struct table t = {sw, rows, header};
    const struct outfile o = {"-o", sw->out, write_table_to, &t};
    if (outfile_write(&o, 1, &err) == DMLSIM_OK) return 0;
    fprintf(stderr, "%s\n", err.msg);
    return 1;
}

/* -o OUT must not be the scenario; checked before anything runs. */
static int check_table_path(const struct sweep *sw)
{
    struct dmlsim_error err = {0};
    struct outfile o[1 + SWEEP_MAX_EXTRA / 2] = {{"-o", sw->out, write_table_to, NULL}};
    size_t n = 1;
    for (int e = 0; e + 1 < sw->nextra; e += 2) /* --point's own files: one file per output */
        if (is_file_option(sw->extra[e]))
            o[n++] = (struct outfile){sw->extra[e], sw->extra[e + 1], write_table_to, NULL};
    const struct outfile_input in = {"scenario file", sw->file};
    if (outfile_check(o, n, &in, 1, &err) == DMLSIM_OK) return 0;
    fprintf(stderr, "%s\n", err.msg);
    return 1;
}

/* The children's folder, in $TMPDIR (else /tmp); the sweep is live from then on. */
static int make_dir(struct sweep *sw)
{
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] == '\0') tmp = "/tmp";
    size_t room = sizeof sw->dir - 32; /* for "/P.sum" */
    int n = snprintf(sw->dir, room, "%s/dmlsim-sweep-XXXXXX", tmp);
    sigset_t old;
    outfile_hold_interrupts(&old);
    bool made = n > 0 && (size_t)n < room && mkdtemp(sw->dir) != NULL;
    if (made)
        live = sw;
    else
        sw->dir[0] = '\0';
    outfile_release_interrupts(&old);
    if (!made)
        fprintf(stderr, "dmlsim: sweep: cannot create a temporary folder in %s: %s\n", tmp,
                strerror(n > 0 && (size_t)n < room ? errno : ENAMETOOLONG));
    return made ? 0 : 1;
}

/* s in single quotes for the shell ('\'' for a quote inside). */
static void shell_quote(FILE *out, const char *s)
{
    fputc('\'', out);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", out);
        else
            fputc(*s, out);
    fputc('\'', out);
}

/* ---- one point of a grid, and merging points (dmlsim merge) ------------------------------- */

/* A point's file: "# dmlsim sweep point K of N", the scenario, each axis as given (values
 * re-escaped), each option passed to every point ("# pass --calib FILE"), then the summary's two
 * lines. dmlsim merge reads the axes back with add_axis and requires the rest to be the same in
 * every file, so points of sweeps run with other options are never joined. */
struct point_file {
    const struct sweep *sw;
    int point; /* 1 .. npoints */
    const char *header, *row;
};

static void write_axes(const struct sweep *sw, FILE *out)
{
    fprintf(out, "# file %s\n", sw->file);
    for (int a = 0; a < sw->naxes; a++) {
        fprintf(out, "# %s %s=", sw->axes[a].zip ? "zip" : "set", sw->axes[a].path);
        for (int v = 0; v < sw->axes[a].nvalues; v++) {
            if (v) fputc(',', out);
            for (const char *c = sw->axes[a].values[v]; *c; c++)
                fprintf(out, "%s%c", *c == ',' || *c == '\\' ? "\\" : "", *c);
        }
        fputc('\n', out);
    }
    for (int e = 0; e + 1 < sw->nextra; e += 2)
        if (!is_file_option(sw->extra[e]))
            fprintf(out, "# pass %s %s\n", sw->extra[e], sw->extra[e + 1]);
}

static void write_point_to(const void *ctx, FILE *out)
{
    const struct point_file *pf = ctx;
    fprintf(out, "# dmlsim sweep point %d of %d\n", pf->point, pf->sw->npoints);
    write_axes(pf->sw, out);
    fprintf(out, "%s\n%s\n", pf->header, pf->row);
}

static int write_point(const struct sweep *sw, const char *row, const char *header)
{
    const struct point_file pf = {sw, sw->point, header, row};
    if (sw->out == NULL) {
        write_point_to(&pf, stdout);
        return 0;
    }
    struct dmlsim_error err = {0};
    const struct outfile o = {"-o", sw->out, write_point_to, &pf};
    if (outfile_write(&o, 1, &err) == DMLSIM_OK) return 0;
    fprintf(stderr, "%s\n", err.msg);
    return 1;
}

/* Runs the grid (or only --point K) and prints the merged table and writes it to -o (or
 * writes the point's file to -o, else to stdout). */
static int run_grid(struct sweep *sw, const char *self)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0)
        exe[n] = '\0';
    else
        snprintf(exe, sizeof exe, "%s", self);
    int *rcs = xbt_new0(int, sw->npoints);
    char **rows = xbt_new0(char *, sw->npoints);
    char *header = NULL;
    int lo = sw->point ? sw->point - 1 : 0, hi = sw->point ? sw->point : sw->npoints;
    run_points(sw, exe, lo, hi, rcs);
    int status = collect_rows(sw, lo, hi, rcs, rows, &header);
    if (status == 0 && sw->point) {
        status = write_point(sw, rows[lo], header);
    } else if (status == 0) {
        print_table(sw, stdout, rows, header);
        if (sw->out) status = write_table(sw, rows, header);
    }
    for (int p = 0; p < sw->npoints; p++)
        free(rows[p]);
    free(rows);
    free(rcs);
    free(header);
    return status;
}

/* --list: each point as a `dmlsim run` command line, single-quoted for the shell. */
static void list_points(const struct sweep *sw)
{
    for (int p = 0; p < sw->npoints; p++) {
        printf("dmlsim run ");
        shell_quote(stdout, sw->file);
        for (int a = 0; a < sw->naxes; a++) {
            printf(" --set ");
            char *kv = bprintf("%s=%s", sw->axes[a].path, point_value(sw, p, a));
            shell_quote(stdout, kv);
            free(kv);
        }
        for (int e = 0; e < sw->nextra; e++) {
            putchar(' ');
            shell_quote(stdout, sw->extra[e]);
        }
        putchar('\n');
    }
}

int sweep_main(const char *self, const struct cli_args *a)
{
    struct sweep sw;
    int status = parse(&sw, a);
    if (status == 0 && sw.list) {
        list_points(&sw);
        cleanup(&sw);
        return 0;
    }
    if (status == 0 && sw.out) status = check_table_path(&sw);
    if (status == 0) status = make_dir(&sw);
    if (status == 0) status = run_grid(&sw, self);
    cleanup(&sw);
    return status;
}

/* The sweep a point file describes (its first file: t), into sw; false with why. */
static bool sweep_of(struct sweep *sw, const struct text *t, char *why, size_t len)
{
    memset(sw, 0, sizeof *sw);
    sw->file = t->line[1] + 7;
    for (int i = 2; i < t->n - 2; i++)
        if (strncmp(t->line[i], "# pass ", 7) != 0 &&
            !add_axis(sw, t->line[i] + 6, t->line[i][2] == 'z', why, len))
            return false;
    return sw->naxes > 0 && count_points(sw, why, len);
}

/* Checks point file `path` (t) against the first one and files its row; 0, or 1 with the
 * message printed. */
static int merge_one(const struct sweep *sw, const char *path, const struct text *t,
                     const struct text *first, char **rows)
{
    int k = 0, of = 0, end = 0;
    bool same = t->n == first->n &&
                sscanf(t->line[0], "# dmlsim sweep point %d of %d%n", &k, &of, &end) == 2 &&
                t->line[0][end] == '\0' && of == sw->npoints && k >= 1 && k <= of;
    for (int i = 1; same && i < t->n - 1; i++)
        same = strcmp(t->line[i], first->line[i]) == 0;
    if (!same) {
        fprintf(stderr, "%s:1: not a point of the same sweep as the first file (the same grid, "
                        "options and columns); expected the files of one `dmlsim sweep --point` "
                        "grid\n", path);
        return 1;
    }
    if (rows[k - 1] != NULL) {
        fprintf(stderr, "%s:1: point %d is given twice; expected each point once\n", path, k);
        return 1;
    }
    rows[k - 1] = xbt_strdup(t->line[t->n - 1]);
    return 0;
}

/* The first point file, checked for the shape write_point gives it; 0 or 1. */
static int check_first(const char *path, const struct text *t, int rc)
{
    bool ok = rc == 0 && t->n >= 5 && strncmp(t->line[0], "# dmlsim sweep point ", 21) == 0 &&
              strncmp(t->line[1], "# file ", 7) == 0;
    for (int i = 2; ok && i < t->n - 2; i++)
        ok = strncmp(t->line[i], "# set ", 6) == 0 || strncmp(t->line[i], "# zip ", 6) == 0 ||
             strncmp(t->line[i], "# pass ", 7) == 0;
    if (ok) return 0;
    fprintf(stderr, "%s:1: not a sweep point's file (or cut short); expected the -o file of "
                    "`dmlsim sweep --point K`\n", path);
    return 1;
}

/* Reads and files every point; 0, or 1 with the message printed. */
static int merge_all(const struct sweep *sw, const struct cli_args *a, const struct text *first,
                     char **rows)
{
    int status = 0;
    for (int i = 0; i < a->nargs && status == 0; i++) {
        struct text t = {0};
        if (read_text(a->args[i], SWEEP_POINT_LINES, &t) != 0) {
            fprintf(stderr, "%s:0: cannot read it whole as a sweep point's file; expected the -o "
                            "file of `dmlsim sweep --point K`\n", a->args[i]);
            status = 1;
        } else {
            status = merge_one(sw, a->args[i], &t, first, rows);
        }
        text_free(&t);
    }
    for (int p = 0; p < sw->npoints && status == 0; p++)
        if (rows[p] == NULL) {
            fprintf(stderr, "dmlsim merge: point %d of %d is missing; expected every point of "
                            "the grid\n", p + 1, sw->npoints);
            status = 1;
        }
    return status;
}

/* merge -o must not be one of the files it reads; 0 or 1. */
static int check_merge_output(const struct cli_args *a, const char *out)
{
    struct dmlsim_error err = {0};
    struct outfile_input *in = xbt_new0(struct outfile_input, (size_t)a->nargs);
    for (int i = 0; i < a->nargs; i++)
        in[i] = (struct outfile_input){"point file", a->args[i]};
    const struct outfile o = {"-o", out, write_table_to, NULL};
    enum dmlsim_err rc = outfile_check(&o, 1, in, (size_t)a->nargs, &err);
    free(in);
    if (rc == DMLSIM_OK) return 0;
    fprintf(stderr, "%s\n", err.msg);
    return 1;
}

int sweep_merge_main(const struct cli_args *a)
{
    char why[256];
    struct sweep sw;
    struct text first = {0};
    memset(&sw, 0, sizeof sw);
    const char *out = cli_value(a, CLI_OUT); /* sw.out once sweep_of has filled sw */
    int status = out ? check_merge_output(a, out) : 0;
    if (status == 0)
        status = check_first(a->args[0], &first, read_text(a->args[0], SWEEP_POINT_LINES, &first));
    if (status == 0 && !sweep_of(&sw, &first, why, sizeof why)) {
        fprintf(stderr, "%s:1: %s\n", a->args[0], why);
        status = 1;
    }
    char **rows = xbt_new0(char *, sw.npoints + 1);
    if (status == 0) status = merge_all(&sw, a, &first, rows);
    sw.out = out;
    if (status == 0) {
        print_table(&sw, stdout, rows, first.line[first.n - 2]);
        if (sw.out) status = write_table(&sw, rows, first.line[first.n - 2]);
    }
    for (int p = 0; p < sw.npoints; p++)
        free(rows[p]);
    free(rows);
    cleanup(&sw);
    text_free(&first);
    return status;
}
