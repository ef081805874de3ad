/* sweep.c - parameter sweeps over child processes (see sweep.h). */
#include "sweep.h"

#include "report.h"

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

struct axis {
    char path[128]; /* ELEM.ATTR */
    char **values;  /* the values */
    int nvalues;    /* how many */
};

struct sweep {
    const char *file;           /* scenario */
    struct axis axes[MAX_AXES]; /* the grid */
    int naxes;                  /* how many axes */
    int jobs;                   /* children at a time */
    const char *out;            /* merged table file, or NULL */
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
    fprintf(stderr,
            "dmlsim: sweep: %s\nusage: dmlsim sweep FILE.xml --set ELEM.ATTR=V1,V2,... "
            "[--set ...] [-j N] [-o OUT]\n",
            why);
    return 1;
}

/* Value of axis a at grid point p (first axis slowest). */
static const char *point_value(const struct sweep *sw, int p, int a)
{
    int stride = 1;
    for (int b = a + 1; b < sw->naxes; b++)
        stride *= sw->axes[b].nvalues;
    return sw->axes[a].values[(p / stride) % sw->axes[a].nvalues];
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
    char **argv = xbt_new0(char *, 8 + 2 * MAX_AXES), sum[PATH_MAX], errf[PATH_MAX];
    int n = 0;
    argv[n++] = (char *)exe;
    argv[n++] = "run";
    argv[n++] = (char *)sw->file;
    for (int a = 0; a < sw->naxes; a++) {
        argv[n++] = "--set";
        argv[n++] = bprintf("%s=%s", sw->axes[a].path, point_value(sw, p, a));
    }
    argv[n++] = "--summary";
    argv[n++] = sum;
    point_path(sw, p, ".sum", sum);
    point_path(sw, p, ".err", errf);
    fflush(NULL);
    sigset_t old;
    pid_t parent = getpid();
    report_hold_interrupts(&old);
    pid_t pid = fork();
    if (pid == 0) exec_point(exe, argv, errf, parent, &old);
    sw->pids[p] = pid > 0 ? pid : 0;
    sw->nspawned = p + 1;
    report_release_interrupts(&old);
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

/* Reads the two lines of a child's summary file. */
static int read_summary(const char *path, char *header, char *values, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return -1;
    int ok = fgets(header, (int)len, f) && fgets(values, (int)len, f);
    fclose(f);
    header[strcspn(header, "\n")] = '\0';
    values[strcspn(values, "\n")] = '\0';
    return ok ? 0 : -1;
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

/* Adds the axis ELEM.ATTR=V1,V2,...; false with why it is refused. */
static bool add_axis(struct sweep *sw, const char *spec, char *why, size_t len)
{
    const char *eq = strchr(spec, '=');
    size_t klen = eq ? (size_t)(eq - spec) : 0;
    if (eq == NULL || klen == 0 || eq[1] == '\0' || sw->naxes == MAX_AXES ||
        klen >= sizeof sw->axes[0].path) {
        snprintf(why, len, "--set expects ELEM.ATTR=V1,V2,... (at most 8 axes)");
        return false;
    }
    for (int a = 0; a < sw->naxes; a++)
        if (strlen(sw->axes[a].path) == klen && strncmp(sw->axes[a].path, spec, klen) == 0) {
            snprintf(why, len, "--set %.*s is given twice; expected each axis once", (int)klen,
                     spec);
            return false;
        }
    struct axis *ax = &sw->axes[sw->naxes++];
    snprintf(ax->path, sizeof ax->path, "%.*s", (int)klen, spec);
    char *list = xbt_strdup(eq + 1), *save = NULL;
    for (char *v = strtok_r(list, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
        ax->values = xbt_realloc(ax->values, (ax->nvalues + 1) * sizeof *ax->values);
        ax->values[ax->nvalues++] = xbt_strdup(v);
    }
    free(list);
    snprintf(why, len, "--set needs at least one value");
    return ax->nvalues > 0;
}

/* The number of grid points, counted in 64 bits (no product before the check exceeds
 * SWEEP_MAX_POINTS, so none overflows); false with why above SWEEP_MAX_POINTS. */
static bool count_points(struct sweep *sw, char *why, size_t len)
{
    uint64_t n = 1;
    int used = snprintf(why, len, "the grid has");
    for (int a = 0; a < sw->naxes; a++) {
        if (n <= SWEEP_MAX_POINTS) n *= (uint64_t)sw->axes[a].nvalues;
        if (used >= 0 && (size_t)used < len)
            used += snprintf(why + used, len - (size_t)used, "%s%d", a ? " x " : " ",
                             sw->axes[a].nvalues);
    }
    if (n > SWEEP_MAX_POINTS) {
        if (used >= 0 && (size_t)used < len)
            snprintf(why + used, len - (size_t)used,
                     " points, more than %d; expected at most %d points in one sweep",
                     SWEEP_MAX_POINTS, SWEEP_MAX_POINTS);
        return false;
    }
    sw->npoints = (int)n;
    sw->pids = xbt_new0(pid_t, sw->npoints);
    return true;
}

static int parse(struct sweep *sw, int argc, char **argv)
{
    char why[256];
    memset(sw, 0, sizeof *sw);
    sw->jobs = 1;
    if (argc < 1 || argv[0][0] == '-') return sweep_usage("expected FILE.xml");
    sw->file = argv[0];
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) return sweep_usage("option needs a value");
        if (strcmp(argv[i], "-j") == 0) {
            char *end;
            long j = strtol(argv[++i], &end, 10);
            if (*end != '\0' || j < 1 || j > 256)
                return sweep_usage("-j expects a number from 1 to 256");
            sw->jobs = (int)j;
        } else if (strcmp(argv[i], "-o") == 0) {
            sw->out = argv[++i];
        } else if (strcmp(argv[i], "--set") == 0) {
            if (!add_axis(sw, argv[++i], why, sizeof why)) return sweep_usage(why);
        } else {
            return sweep_usage("unknown option");
        }
    }
    if (sw->naxes == 0) return sweep_usage("expected at least one --set");
    return count_points(sw, why, sizeof why) ? 0 : sweep_usage(why);
}

/* Removes the folder, then lets go of the sweep. */
static void cleanup(struct sweep *sw)
{
    sigset_t old;
    remove_files(sw);
    report_hold_interrupts(&old);
    live = NULL;
    report_release_interrupts(&old);
    free(sw->pids);
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
    report_hold_interrupts(&old);
    waitpid(pid, &wst, 0);
    for (int p = 0; p < sw->nspawned; p++)
        if (sw->pids[p] == pid) {
            rcs[p] = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
            sw->pids[p] = 0;
        }
    report_release_interrupts(&old);
}

/* Runs every point, sw.jobs at a time; fills rcs with their exit statuses. A child is only
 * reaped with interrupts held (waitid's WNOWAIT waits without reaping), so the handler never
 * signals or waits for a pid that is no longer its child. */
static void run_points(struct sweep *sw, const char *exe, int *rcs)
{
    int running = 0, done = 0;
    progress(0, sw->npoints);
    while (done < sw->npoints) {
        while (running < sw->jobs && sw->nspawned < sw->npoints) {
            int p = sw->nspawned;
            if (spawn(sw, exe, p) > 0) {
                running++;
            } else {
                rcs[p] = 127;
                progress(++done, sw->npoints);
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
        progress(++done, sw->npoints);
    }
}

/* Reads each point's summary line into rows; a point that failed (any status but 0, or 4: a
 * simulated job that failed is a result too) stops the sweep with its first error line. */
static int collect_rows(struct sweep *sw, const int *rcs, char **rows, char *header)
{
    char line[512];
    char path[PATH_MAX];
    for (int p = 0; p < sw->npoints; p++) {
        point_path(sw, p, ".sum", path);
        if ((rcs[p] == 0 || rcs[p] == 4) && read_summary(path, header, line, sizeof line) == 0) {
            rows[p] = xbt_strdup(line);
            continue;
        }
        char msg[1024] = "";
        point_path(sw, p, ".err", path);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(msg, sizeof msg, f)) msg[0] = '\0';
            fclose(f);
        }
        msg[strcspn(msg, "\n")] = '\0';
        fprintf(stderr, "dmlsim: sweep: point %d failed (exit %d): %s\n", p + 1, rcs[p],
                msg[0] ? msg : "no summary written");
        return 1;
    }
    return 0;
}

/* What the merged table is printed from (print_table's arguments, as a report_output ctx). */
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
    const struct report_output o = {"-o", sw->out, write_table_to, &t};
    if (report_outputs_write(&o, 1, &err) == DMLSIM_OK) return 0;
    fprintf(stderr, "%s\n", err.msg);
    return 1;
}

/* -o OUT must not be the scenario; checked before anything runs. */
static int check_table_path(const struct sweep *sw)
{
    struct dmlsim_error err = {0};
    const struct report_output o = {"-o", sw->out, write_table_to, NULL};
    const struct report_input in = {"scenario file", sw->file};
    if (report_outputs_check(&o, 1, &in, 1, &err) == DMLSIM_OK) return 0;
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
    report_hold_interrupts(&old);
    bool made = n > 0 && (size_t)n < room && mkdtemp(sw->dir) != NULL;
    if (made)
        live = sw;
    else
        sw->dir[0] = '\0';
    report_release_interrupts(&old);
    if (!made)
        fprintf(stderr, "dmlsim: sweep: cannot create a temporary folder in %s: %s\n", tmp,
                strerror(n > 0 && (size_t)n < room ? errno : ENAMETOOLONG));
    return made ? 0 : 1;
}

/* Runs the grid and prints the merged table (and writes it to -o). */
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
    char header[512] = "";
    run_points(sw, exe, rcs);
    int status = collect_rows(sw, rcs, rows, header);
    if (status == 0) {
        print_table(sw, stdout, rows, header);
        if (sw->out) status = write_table(sw, rows, header);
    }
    for (int p = 0; p < sw->npoints; p++)
        free(rows[p]);
    free(rows);
    free(rcs);
    return status;
}

int sweep_main(const char *self, int argc, char **argv)
{
    struct sweep sw;
    int status = parse(&sw, argc, argv);
    if (status == 0 && sw.out) status = check_table_path(&sw);
    if (status == 0) status = make_dir(&sw);
    if (status == 0) status = run_grid(&sw, self);
    cleanup(&sw);
    return status;
}
