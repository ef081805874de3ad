/* sweep.c - parameter sweeps over child processes (see sweep.h). */
#include "sweep.h"

#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    int naxes;
    int jobs;        /* children at a time */
    const char *out; /* merged table file, or NULL */
    char dir[64];    /* temporary folder for the children's files */
    int npoints;     /* product of the axes' sizes */
};

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

static pid_t spawn(const struct sweep *sw, const char *exe, int p)
{
    char **argv = xbt_new0(char *, 8 + 2 * MAX_AXES);
    int n = 0;
    argv[n++] = (char *)exe;
    argv[n++] = "run";
    argv[n++] = (char *)sw->file;
    for (int a = 0; a < sw->naxes; a++) {
        argv[n++] = "--set";
        argv[n++] = bprintf("%s=%s", sw->axes[a].path, point_value(sw, p, a));
    }
    argv[n++] = "--summary";
    argv[n++] = bprintf("%s/%d.sum", sw->dir, p);
    char *errf = bprintf("%s/%d.err", sw->dir, p);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY), e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(null, 1);
        dup2(e, 2);
        execv(exe, argv);
        _exit(127);
    }
    for (int a = 0; a < sw->naxes; a++)
        free(argv[4 + 2 * a]);
    free(argv[n - 1]);
    free(argv);
    free(errf);
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

static int parse(struct sweep *sw, int argc, char **argv)
{
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
            const char *spec = argv[++i], *eq = strchr(spec, '=');
            if (eq == NULL || eq == spec || eq[1] == '\0' || sw->naxes == MAX_AXES ||
                (size_t)(eq - spec) >= sizeof sw->axes[0].path)
                return sweep_usage("--set expects ELEM.ATTR=V1,V2,... (at most 8 axes)");
            struct axis *ax = &sw->axes[sw->naxes++];
            snprintf(ax->path, sizeof ax->path, "%.*s", (int)(eq - spec), spec);
            char *list = xbt_strdup(eq + 1), *save = NULL;
            for (char *v = strtok_r(list, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
                ax->values = xbt_realloc(ax->values, (ax->nvalues + 1) * sizeof *ax->values);
                ax->values[ax->nvalues++] = xbt_strdup(v);
            }
            free(list);
            if (ax->nvalues == 0) return sweep_usage("--set needs at least one value");
        } else {
            return sweep_usage("unknown option");
        }
    }
    if (sw->naxes == 0) return sweep_usage("expected at least one --set");
    sw->npoints = 1;
    for (int a = 0; a < sw->naxes; a++)
        sw->npoints *= sw->axes[a].nvalues;
    return 0;
}

static void cleanup(struct sweep *sw)
{
    for (int p = 0; p < sw->npoints && sw->dir[0]; p++) {
        char *f = bprintf("%s/%d.sum", sw->dir, p), *e = bprintf("%s/%d.err", sw->dir, p);
        unlink(f);
        unlink(e);
        free(f);
        free(e);
    }
    if (sw->dir[0]) rmdir(sw->dir);
    for (int a = 0; a < sw->naxes; a++) {
        for (int v = 0; v < sw->axes[a].nvalues; v++)
            free(sw->axes[a].values[v]);
        free(sw->axes[a].values);
    }
}

/* Runs every point, sw.jobs at a time; fills rcs with their exit statuses. */
static void run_points(struct sweep *sw, const char *exe, int *rcs)
{
    pid_t *pids = xbt_new0(pid_t, sw->npoints);
    int next = 0, running = 0, done = 0;
    progress(0, sw->npoints);
    while (done < sw->npoints) {
        while (running < sw->jobs && next < sw->npoints) {
            pids[next] = spawn(sw, exe, next);
            next++;
            running++;
        }
        int wst;
        pid_t pid = wait(&wst);
        if (pid < 0) break;
        for (int p = 0; p < next; p++)
            if (pids[p] == pid) rcs[p] = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128;
        running--;
        progress(++done, sw->npoints);
    }
    free(pids);
}

/* Reads each point's summary line into rows; a point that failed (any status but 0, or 4: a
 * simulated job that failed is a result too) stops the sweep with its first error line. */
static int collect_rows(struct sweep *sw, const int *rcs, char **rows, char *header)
{
    char line[512];
    for (int p = 0; p < sw->npoints; p++) {
        char *sum = bprintf("%s/%d.sum", sw->dir, p);
        bool ok = (rcs[p] == 0 || rcs[p] == 4) && read_summary(sum, header, line, sizeof line) == 0;
        free(sum);
        if (ok) {
            rows[p] = xbt_strdup(line);
            continue;
        }
        char *errf = bprintf("%s/%d.err", sw->dir, p), msg[1024] = "";
        FILE *f = fopen(errf, "r");
        if (f) {
            if (!fgets(msg, sizeof msg, f)) msg[0] = '\0';
            fclose(f);
        }
        free(errf);
        msg[strcspn(msg, "\n")] = '\0';
        fprintf(stderr, "dmlsim: sweep: point %d failed (exit %d): %s\n", p + 1, rcs[p],
                msg[0] ? msg : "no summary written");
        return 1;
    }
    return 0;
}

/* The merged table to OUT, atomically. */
static int write_table(struct sweep *sw, char **rows, const char *header)
{
    char *tmp = bprintf("%s.tmp", sw->out);
    FILE *f = fopen(tmp, "w");
    if (f != NULL) {
        print_table(sw, f, rows, header);
        if ((ferror(f) | fclose(f)) || rename(tmp, sw->out) != 0) {
            unlink(tmp);
            f = NULL;
        }
    }
    free(tmp);
    if (f != NULL) return 0;
    fprintf(stderr, "dmlsim: sweep: %s: cannot write: %s\n", sw->out, strerror(errno));
    return 1;
}

int sweep_main(const char *self, int argc, char **argv)
{
    struct sweep sw;
    int status = parse(&sw, argc, argv);
    if (status != 0) {
        cleanup(&sw);
        return status;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0)
        exe[n] = '\0';
    else
        snprintf(exe, sizeof exe, "%s", self);
    snprintf(sw.dir, sizeof sw.dir, "/tmp/dmlsim-sweep-XXXXXX");
    if (mkdtemp(sw.dir) == NULL) {
        sw.dir[0] = '\0';
        fprintf(stderr, "dmlsim: sweep: cannot create a temporary folder\n");
        cleanup(&sw);
        return 1;
    }
    int *rcs = xbt_new0(int, sw.npoints);
    char **rows = xbt_new0(char *, sw.npoints);
    char header[512] = "";
    run_points(&sw, exe, rcs);
    status = collect_rows(&sw, rcs, rows, header);
    if (status == 0) {
        print_table(&sw, stdout, rows, header);
        if (sw.out) status = write_table(&sw, rows, header);
    }
    for (int p = 0; p < sw.npoints; p++)
        free(rows[p]);
    free(rows);
    free(rcs);
    cleanup(&sw);
    return status;
}
