/* sweep.c - parameter sweeps over child processes (see sweep.h). */
#include "sweep.h"

#include "outfile.h"
#include "sweep_grid.h"
#include "sweep_table.h"

#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
        point_path(sw, p, ".out", path);
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

/* The child of a point: interrupts as by default (unless ignored) until its dmlsim sets its
 * own handler, ended with its parent, stdout to OUTF (its <expect> lines), stderr to ERRF. Only
 * async-signal-safe calls. */
static void exec_point(const char *exe, char **argv, const char *outf, const char *errf,
                       pid_t parent, const sigset_t *mask, double cpu_limit_s)
{
    if (cpu_limit_s > 0) { /* SIGXCPU ends it at the soft limit, SIGKILL a second later */
        struct rlimit rl = {(rlim_t)ceil(cpu_limit_s), (rlim_t)ceil(cpu_limit_s) + 1};
        setrlimit(RLIMIT_CPU, &rl);
    }
    struct sigaction cur;
    if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler != SIG_IGN) signal(SIGINT, SIG_DFL);
    if (sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler != SIG_IGN) signal(SIGTERM, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127); /* the sweep has ended already */
    sigprocmask(SIG_SETMASK, mask, NULL);
    int o = open(outf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    execv(exe, argv);
    _exit(127);
}

/* Starts point p (the next one) as `dmlsim run FILE --set ... --summary DIR/P.sum`; returns the
 * child's pid, or -1. The child is in sw->pids before an interrupt can see it. */
static pid_t spawn(struct sweep *sw, const char *exe, int p)
{
    char **argv = xbt_new0(char *, 8 + 2 * SWEEP_MAX_AXES + (size_t)sw->nextra), sum[PATH_MAX],
         errf[PATH_MAX], outf[PATH_MAX];
    int n = 0;
    argv[n++] = (char *)exe;
    argv[n++] = "run";
    argv[n++] = (char *)sw->file;
    for (int a = 0; a < sw->naxes; a++) {
        argv[n++] = "--set";
        argv[n++] = bprintf("%s=%s", sw->axes[a].path, sweep_grid_value(sw, p, a));
    }
    for (int e = 0; e < sw->nextra; e++)
        argv[n++] = (char *)sw->extra[e];
    argv[n++] = "--summary";
    argv[n++] = sum;
    point_path(sw, p, ".sum", sum);
    point_path(sw, p, ".err", errf);
    point_path(sw, p, ".out", outf);
    fflush(NULL);
    sigset_t old;
    pid_t parent = getpid();
    outfile_hold_interrupts(&old);
    pid_t pid = fork();
    if (pid == 0) exec_point(exe, argv, outf, errf, parent, &old, sw->cpu_limit_s);
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

/* Removes the folder, then lets go of the sweep. */
static void cleanup(struct sweep *sw)
{
    sigset_t old;
    remove_files(sw);
    outfile_hold_interrupts(&old);
    live = NULL;
    outfile_release_interrupts(&old);
    sweep_grid_release(sw);
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

/* The first (has NULL: the last) non-empty line of path that starts with `prefix` and holds
 * `has` (NULL: any line), from its character `skip` on, into msg (len), without its newline;
 * how many such lines there are. */
static int find_line(const char *path, const char *prefix, const char *has, size_t skip, char *msg,
                     size_t len)
{
    char line[1024];
    int n = 0;
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '\0' || strncmp(line, prefix, strlen(prefix)) != 0) continue;
        if (has && strstr(line, has) == NULL) continue;
        if (n++ == 0 || has == NULL) snprintf(msg, len, "%s", line + skip);
    }
    if (f) fclose(f);
    return n;
}

/* Runs of blanks in s to one (an <expect> line's aligned columns, as a message). */
static void squeeze(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++)
        if (*r != ' ' || w == s || w[-1] != ' ') *w++ = *r;
    *w = '\0';
}

/* Point p's status from its exit status rc and its files, and its one-line message (its
 * first failed <expect>, or the last line it wrote to stderr). */
static enum sweep_status point_status(struct sweep *sw, int p, int rc, bool has_row)
{
    char path[PATH_MAX], msg[1024] = "";
    enum sweep_status st = !has_row  ? (rc == 1 ? SWEEP_REFUSED : SWEEP_ERROR)
                           : rc == 3 ? SWEEP_EXPECT_FAILED
                           : rc == 4 ? SWEEP_JOB_FAILED
                                     : SWEEP_OK;
    if (st == SWEEP_EXPECT_FAILED) { /* "expect METRIC in [MIN, MAX]: V FAILED (FILE:LINE)" */
        point_path(sw, p, ".out", path);
        int n = find_line(path, "# expect ", " FAILED ", 2, msg, sizeof msg - 32);
        squeeze(msg);
        if (n > 1) snprintf(msg + strlen(msg), 32, " (+%d more failed)", n - 1);
    } else if (st != SWEEP_OK) {
        point_path(sw, p, ".err", path);
        find_line(path, "", NULL, 0, msg, sizeof msg);
    }
    if (st == SWEEP_ERROR && rc == 128 + SIGXCPU)
        snprintf(msg, sizeof msg, "over its %.0f CPU s", sw->cpu_limit_s);
    else if (st == SWEEP_ERROR && msg[0] == '\0')
        snprintf(msg, sizeof msg, rc > 128 ? "killed by signal %d" : "exit %d, no summary written",
                 rc > 128 ? rc - 128 : rc);
    free(sw->msg[p]);
    sw->msg[p] = st == SWEEP_OK ? NULL : xbt_strdup(msg);
    sw->status[p] = st;
    return st;
}

/* Reads each point's summary line into rows and its status into sw (0, 3 or 4: a simulated job
 * that failed is a result too, a failed <expect> one to report); a failed point's message goes
 * to stderr, and the others go on. For `dmlsim plan` (keep_going), only 0 and 4 give a row. 1
 * when two points give other columns (no table can hold them), else 0. */
static int collect_rows(struct sweep *sw, int lo, int hi, const int *rcs, char **rows,
                        char **header)
{
    char path[PATH_MAX];
    for (int p = lo; p < hi; p++) {
        struct sweep_text t = {0};
        point_path(sw, p, ".sum", path);
        bool result = rcs[p] == 0 || rcs[p] == 4 || (rcs[p] == 3 && !sw->keep_going);
        if (result && sweep_table_read_text(path, 2, &t) == 0 && t.n == 2) {
            if (*header == NULL) *header = xbt_strdup(t.line[0]);
            bool same = strcmp(*header, t.line[0]) == 0;
            if (same) rows[p] = xbt_strdup(t.line[1]);
            sweep_table_text_free(&t);
            if (!same) {
                fprintf(stderr,
                        "dmlsim sweep: point %d has other summary columns than point %d; "
                        "expected one table\n",
                        p + 1, lo + 1);
                return 1;
            }
        }
        sweep_table_text_free(&t);
        enum sweep_status st = point_status(sw, p, rcs[p], rows[p] != NULL);
        if (st == SWEEP_OK || st == SWEEP_JOB_FAILED) continue;
        fprintf(stderr, "dmlsim %s: point %d failed (exit %d, %s): %s\n",
                sw->keep_going ? "plan" : "sweep", p + 1, rcs[p], sweep_status_name(st),
                sw->msg[p][0] ? sw->msg[p] : "no summary written");
    }
    return 0;
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

/* The running binary's path into exe (self when /proc does not say). */
static void self_exe(const char *self, char *exe, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", exe, len - 1);
    if (n > 0)
        exe[n] = '\0';
    else
        snprintf(exe, len, "%s", self);
}

int sweep_run_rows(struct sweep *sw, const char *self, char **rows, char **header)
{
    char exe[4096];
    self_exe(self, exe, sizeof exe);
    int *rcs = xbt_new0(int, sw->npoints);
    int status = make_dir(sw);
    if (status == 0) {
        run_points(sw, exe, 0, sw->npoints, rcs);
        status = collect_rows(sw, 0, sw->npoints, rcs, rows, header);
    }
    free(rcs);
    cleanup(sw);
    return status;
}

/* Runs the grid (or only --point K) and prints the merged table and writes it to -o (or
 * writes the point's file to -o, else to stdout). */
static int run_grid(struct sweep *sw, const char *self)
{
    char exe[4096];
    self_exe(self, exe, sizeof exe);
    int *rcs = xbt_new0(int, sw->npoints);
    char **rows = xbt_new0(char *, sw->npoints);
    char *header = NULL;
    int lo = sw->point ? sw->point - 1 : 0, hi = sw->point ? sw->point : sw->npoints;
    run_points(sw, exe, lo, hi, rcs);
    int status = collect_rows(sw, lo, hi, rcs, rows, &header);
    if (status == 0 && sw->point) { /* a point's file holds a result: none for a failed point */
        status = sweep_exit_status(sw);
        if (status == 0) status = sweep_merge_write_point(sw, rows[lo], header);
    } else if (status == 0) { /* every point's row, failed ones too; then the worst status */
        sweep_table_print(sw, stdout, rows, header);
        status = sweep_table_write(sw, rows, header);
        if (status == 0) status = sweep_exit_status(sw);
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
            char *kv = bprintf("%s=%s", sw->axes[a].path, sweep_grid_value(sw, p, a));
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
    int status = sweep_grid_parse(&sw, a);
    if (status == 0 && sw.list) {
        list_points(&sw);
        cleanup(&sw);
        return 0;
    }
    if (status == 0 && sw.out) status = sweep_table_check_path(&sw);
    if (status == 0) status = make_dir(&sw);
    if (status == 0) status = run_grid(&sw, self);
    cleanup(&sw);
    return status;
}
