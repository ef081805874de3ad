/* campaign_probe.c - the campaign's costs from dmlsim runs of its scenario (campaign_probe.h). */
#define _GNU_SOURCE
#include "campaign_probe.h"

#include "campaign_json.h"
#include "xmldoc.h"

#include <libxml/tree.h>
#include <xbt/sysdep.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_RUNS (2 + CAMP_MAX_SHRUNK + CAMP_MAX_CAUSES)

enum run_kind { RUN_RECOVERY, RUN_SHRUNK, RUN_SLOW, RUN_ZOOM, RUN_BASE };

struct probe_run {
    enum run_kind kind;
    int index;           /* RUN_SHRUNK: its shrunk slot; RUN_SLOW: its cause */
    int dp;              /* RUN_SHRUNK: its replicas */
    int steps;           /* RUN_ZOOM, RUN_BASE: steps to run */
    int crash_step;      /* RUN_ZOOM: the job's last node crashes after this many steps */
    char base[PATH_MAX]; /* DIR/NAME: .xml, .csv, .json, .err */
    pid_t pid;
    int status;
    double cpu_s;
};

/* ---- the runs' documents ------------------------------------------------------------------ */

static void drop_all(xmlNodePtr root, const char *name)
{
    for (xmlNodePtr n = root->children, next; n != NULL; n = next) {
        next = n->next;
        if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0) {
            xmlUnlinkNode(n);
            xmlFreeNode(n);
        }
    }
}

/* Sets ELEM.ATTR of the first ELEM (which the scenario has: the campaign's reader checked). */
static void set_attr(xmlNodePtr root, const char *elem, const char *attr, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void set_attr(xmlNodePtr root, const char *elem, const char *attr, const char *fmt, ...)
{
    char v[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    xmlNodePtr n = xmldoc_find(root, elem);
    if (n != NULL) xmlSetProp(n, (const xmlChar *)attr, (const xmlChar *)v);
}

/* A new element placed after `after` (the DTD's order), or first after the training. */
static xmlNodePtr add_after(xmlNodePtr root, const char *after, const char *name)
{
    xmlNodePtr a = xmldoc_find(root, after);
    if (a == NULL) a = xmldoc_find(root, "training");
    xmlNodePtr n = xmlNewDocNode(root->doc, NULL, (const xmlChar *)name, NULL);
    return xmlAddNextSibling(a, n);
}

/* The crash of the job's last node: as step 3 starts (4, asynchronous; the recovery run), or
 * as step crash_step + 1 starts (a zoom). */
static void add_crash(xmlNodePtr root, const struct scenario *sc, int gpus,
                      const struct probe_run *r)
{
    xmlNodePtr f = add_after(root, "recovery", "faults");
    xmlNodePtr c = xmlNewChild(f, NULL, (const xmlChar *)"crash", NULL);
    char host[32], v[32];
    snprintf(host, sizeof host, "node%d", (gpus - 1) / sc->cluster.gpus_per_node);
    xmlSetProp(c, (const xmlChar *)"host", (const xmlChar *)host);
    snprintf(v, sizeof v, "%d", r->kind == RUN_ZOOM ? r->crash_step : sc->ckpt.async ? 3 : 2);
    xmlSetProp(c, (const xmlChar *)"step", (const xmlChar *)v);
}

static void probe_doc(const struct scenario *sc, xmlNodePtr root, const struct probe_run *r)
{
    const struct parallel_spec *p = &sc->train.par;
    int gpus = p->tp * p->pp * p->dp * (p->cp > 1 ? p->cp : 1);
    drop_all(root, "campaign");
    drop_all(root, "expect");
    drop_all(root, "faults");
    if (r->kind == RUN_SHRUNK || r->kind == RUN_SLOW) {
        drop_all(root, "checkpoint");
        drop_all(root, "recovery");
        set_attr(root, "training", "steps", "1");
    }
    if (r->kind == RUN_SHRUNK) {
        set_attr(root, "training", "gpus", "%d", gpus / p->dp * r->dp);
        set_attr(root, "parallel", "dp", "%d", r->dp);
        set_attr(root, "parallel", "microbatches", "%d", p->microbatches * p->dp / r->dp);
    } else if (r->kind == RUN_SLOW) {
        xmlNodePtr f = add_after(root, "training", "faults");
        xmlNodePtr s = xmlNewChild(f, NULL, (const xmlChar *)"straggler", NULL);
        char v[32];
        snprintf(v, sizeof v, "%.17g", sc->camp.causes[r->index].slow_factor);
        xmlSetProp(s, (const xmlChar *)"host", (const xmlChar *)"node0.gpu0");
        xmlSetProp(s, (const xmlChar *)"factor", (const xmlChar *)v);
    } else {
        int nodes = sc->cluster.nodes;
        bool zoom = r->kind == RUN_ZOOM || r->kind == RUN_BASE;
        set_attr(root, "cluster", "nodes", "%d", nodes + 1);
        set_attr(root, "training", "gpus", "%d", gpus);
        set_attr(root, "training", "steps", "%d", zoom ? r->steps : sc->ckpt.async ? 4 : 3);
        if (!zoom) set_attr(root, "checkpoint", "every", "2 steps");
        if (xmldoc_find(root, "recovery") == NULL) add_after(root, "checkpoint", "recovery");
        if (r->kind != RUN_BASE) add_crash(root, sc, gpus, r);
    }
}

static int write_doc(const struct camp_probe_opts *o, const struct scenario *sc,
                     const struct probe_run *r)
{
    struct dmlsim_error err = {0};
    xmlDocPtr doc = NULL;
    if (xmldoc_read(o->file, &doc, &err) != DMLSIM_OK ||
        scenario_override_doc(o->file, doc, o->ov, o->nov, &err) != DMLSIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
        xmlFreeDoc(doc);
        return 1;
    }
    probe_doc(sc, xmlDocGetRootElement(doc), r);
    char path[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s.xml", r->base);
    int st = xmlSaveFile(path, doc) < 0;
    if (st) fprintf(stderr, "%s:0: cannot write; expected a folder that can be written\n", path);
    xmlFreeDoc(doc);
    return st;
}

/* ---- the runs ----------------------------------------------------------------------------- */

/* The child: ended with its parent, stdout to /dev/null, stderr to BASE.err. */
static void exec_run(const struct camp_probe_opts *o, const struct probe_run *r, pid_t parent)
{
    char xml[PATH_MAX + 8], csv[PATH_MAX + 8], json[PATH_MAX + 8], errf[PATH_MAX + 8];
    snprintf(xml, sizeof xml, "%s.xml", r->base);
    snprintf(csv, sizeof csv, "%s.csv", r->base);
    snprintf(json, sizeof json, "%s.json", r->base);
    snprintf(errf, sizeof errf, "%s.err", r->base);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    int null = open("/dev/null", O_WRONLY), e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(null, 1);
    dup2(e, 2);
    char *argv[] = {
            (char *)o->self,  "run", xml, "--csv", csv, "--json", json, o->calib ? "--calib" : NULL,
            (char *)o->calib, NULL};
    execv(o->self, argv);
    _exit(127);
}

/* Runs every run, at most o->jobs at a time; their statuses and CPU seconds in runs[]. */
static void run_all(const struct camp_probe_opts *o, struct probe_run *runs, int n)
{
    int next = 0, live = 0;
    pid_t parent = getpid();
    while (next < n || live > 0) {
        if (next < n && live < o->jobs) {
            fflush(NULL);
            pid_t pid = fork();
            if (pid == 0) exec_run(o, &runs[next], parent);
            runs[next].pid = pid;
            runs[next].status = pid < 0 ? -1 : 0;
            live += pid > 0;
            next++;
            continue;
        }
        int wst;
        struct rusage ru;
        pid_t pid = wait4(-1, &wst, 0, &ru);
        if (pid < 0 && errno == EINTR) continue;
        if (pid < 0) break;
        live--;
        for (int i = 0; i < n; i++)
            if (runs[i].pid == pid) {
                runs[i].status = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
                runs[i].cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
                                (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
            }
    }
}

/* ---- what the runs say -------------------------------------------------------------------- */

struct csv_row {
    char kind[16];
    double t_s, time_s;
    int step;
    char what[256];
};

static bool parse_row(char *line, struct csv_row *r)
{
    char *f[9];
    int n = 0;
    for (char *p = line; n < 9; n++) {
        f[n] = p;
        if (n == 8) break;
        p = strchr(p, ',');
        if (p == NULL) return false;
        *p++ = '\0';
    }
    snprintf(r->kind, sizeof r->kind, "%s", f[0]);
    r->t_s = strtod(f[1], NULL);
    r->step = atoi(f[2]);
    r->time_s = f[3][0] ? strtod(f[3], NULL) : 0;
    snprintf(r->what, sizeof r->what, "%s", f[8]);
    return true;
}

/* The recovery run's figures, in order: step, block, commit, watchdog, restart, reload. */
static int read_recovery(const char *csv, struct camp_costs *c)
{
    FILE *f = fopen(csv, "r");
    if (f == NULL) return 1;
    char line[1024];
    double row1 = NAN, row2 = NAN, row2_end = NAN, counts = NAN, crash = NAN, det = NAN, rst = NAN,
           rel = NAN;
    while (fgets(line, sizeof line, f)) {
        struct csv_row r;
        line[strcspn(line, "\n")] = '\0';
        if (!parse_row(line, &r)) continue;
        bool step = strcmp(r.kind, "step") == 0;
        if (step && r.step == 1 && isnan(row1)) row1 = r.time_s;
        if (step && r.step == 2 && isnan(row2)) row2 = r.time_s, row2_end = r.t_s;
        if (strstr(r.what, "checkpoint of step 2 counts") && isnan(counts)) counts = r.t_s;
        if (strstr(r.what, "crash of") && isnan(crash)) crash = r.t_s;
        if (strstr(r.what, "failure detected") && isnan(det)) det = r.t_s;
        if (strstr(r.what, "restart 1 ") && isnan(rst)) rst = r.t_s;
        if (strstr(r.what, "reloaded") && isnan(rel)) rel = r.t_s;
    }
    fclose(f);
    c->step_s = row1;
    c->ckpt_block_s = fmax(0, row2 - row1);
    c->ckpt_commit_s = fmax(0, counts - row2_end);
    c->watchdog_s = det - crash;
    c->restart_s = rst - det;
    c->reload_s = rel - rst;
    return isnan(row1) || isnan(row2) || isnan(counts) || isnan(crash) || isnan(det) ||
           isnan(rst) || isnan(rel);
}

/* The first step row's time of a fault-free run. */
static double read_step(const char *csv)
{
    FILE *f = fopen(csv, "r");
    char line[1024];
    double t = NAN;
    while (f && isnan(t) && fgets(line, sizeof line, f)) {
        struct csv_row r;
        line[strcspn(line, "\n")] = '\0';
        if (parse_row(line, &r) && strcmp(r.kind, "step") == 0) t = r.time_s;
    }
    if (f) fclose(f);
    return t;
}

/* A number of the run's JSON: the summary's (after "summary":), or with first_step the first
 * step row's; 0 when absent. */
static double read_json_at(const char *json, const char *name, bool first_step)
{
    char *buf = campaign_json_read(json);
    const char *from = buf == NULL ? NULL : first_step ? buf : strstr(buf, "\"summary\":");
    double v = campaign_json_num(from, name);
    free(buf);
    return isnan(v) ? 0 : v;
}

static double read_json(const char *json, const char *name)
{
    return read_json_at(json, name, false);
}

/* ---- the plan of runs --------------------------------------------------------------------- */

static int plan_runs(const struct scenario *sc, const char *dir, struct probe_run *runs)
{
    const struct parallel_spec *p = &sc->train.par;
    int n = 0;
    runs[n++] = (struct probe_run){.kind = RUN_RECOVERY};
    snprintf(runs[0].base, sizeof runs[0].base, "%.3900s/recovery", dir);
    long mb = (long)p->dp * p->microbatches;
    for (int d = p->dp - 1, k = 0;
         sc->camp.policy == CAMP_SHRINK && d >= (p->dp + 1) / 2 && k < CAMP_MAX_SHRUNK; d--) {
        if (mb % d != 0 || (p->ep > 1 && d % p->ep != 0)) continue;
        runs[n] = (struct probe_run){.kind = RUN_SHRUNK, .index = k++, .dp = d};
        snprintf(runs[n].base, sizeof runs[n].base, "%.3900s/dp%d", dir, d);
        n++;
    }
    for (int c = 0; c < sc->camp.ncauses; c++) {
        if (sc->camp.causes[c].kind != CAMP_SLOW) continue;
        runs[n] = (struct probe_run){.kind = RUN_SLOW, .index = c};
        snprintf(runs[n].base, sizeof runs[n].base, "%.3900s/slow-%s", dir,
                 sc->camp.causes[c].name);
        n++;
    }
    return n;
}

/* The last line of a failed run's stderr, as its message. */
static void say_failed(const struct probe_run *r)
{
    char errf[PATH_MAX + 8], line[1024], last[1024] = "(no message)";
    snprintf(errf, sizeof errf, "%s.err", r->base);
    FILE *f = fopen(errf, "r");
    while (f && fgets(line, sizeof line, f))
        if (line[0] != '\n') snprintf(last, sizeof last, "%s", line);
    if (f) fclose(f);
    last[strcspn(last, "\n")] = '\0';
    fprintf(stderr, "%s.xml:0: the campaign's simulation of its costs failed (exit %d): %s\n",
            r->base, r->status, last);
}

static int read_runs(const struct scenario *sc, struct probe_run *runs, int n, struct camp_costs *c,
                     FILE *log)
{
    char f[PATH_MAX + 8];
    for (int i = 0; i < n; i++) {
        const struct probe_run *r = &runs[i];
        snprintf(f, sizeof f, "%s.csv", r->base);
        if (r->kind == RUN_RECOVERY) {
            if (read_recovery(f, c) != 0) {
                fprintf(stderr,
                        "%s:0: the recovery run did not crash, restart and reload as "
                        "planned; expected its events\n",
                        f);
                return 1;
            }
            snprintf(f, sizeof f, "%s.json", r->base);
            c->busy_power_w = read_json_at(f, "power_w", true); /* step 1: no fault in it */
            fprintf(log,
                    "# costs         step %.6g s; a checkpoint blocks %.6g s%s; a crash: "
                    "watchdog %.6g s, restart %.6g s, reload %.6g s (the recovery run)\n",
                    c->step_s, c->ckpt_block_s, sc->ckpt.async ? ", counts later" : "",
                    c->watchdog_s, c->restart_s, c->reload_s);
            if (sc->ckpt.async)
                fprintf(log,
                        "# costs         an asynchronous checkpoint counts %.6g s after its "
                        "block\n",
                        c->ckpt_commit_s);
        } else if (r->kind == RUN_SHRUNK) {
            c->shrunk_dp[r->index] = r->dp;
            c->shrunk_step_s[r->index] = read_step(f);
            c->nshrunk = r->index + 1;
            fprintf(log, "# costs         shrunk to dp %d: step %.6g s\n", r->dp,
                    c->shrunk_step_s[r->index]);
        } else {
            c->slow_step_s[r->index] = read_step(f);
            fprintf(log, "# costs         %s (one GPU %gx slower): step %.6g s\n",
                    sc->camp.causes[r->index].name, sc->camp.causes[r->index].slow_factor,
                    c->slow_step_s[r->index]);
        }
    }
    return 0;
}

static void remove_dir(const char *dir, const struct probe_run *runs, int n)
{
    static const char *const ext[] = {".xml", ".csv", ".json", ".err"};
    char f[PATH_MAX + 8];
    for (int i = 0; i < n; i++)
        for (size_t e = 0; e < sizeof ext / sizeof *ext; e++) {
            snprintf(f, sizeof f, "%.4000s%s", runs[i].base, ext[e]);
            unlink(f);
        }
    rmdir(dir);
}

/* The runs' folder: --keep-runs (made if missing), else a new $TMPDIR/dmlsim-WHAT-XXXXXX. */
static int open_dir(const struct camp_probe_opts *o, const char *what, char *dir, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    if (o->keep) {
        snprintf(dir, len, "%s", o->keep);
        if (mkdir(dir, 0755) == 0 || errno == EEXIST) return 0;
        fprintf(stderr, "%s:0: cannot create the folder: %s; expected a path that can be written\n",
                dir, strerror(errno));
        return 1;
    }
    snprintf(dir, len, "%s/dmlsim-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
    if (mkdtemp(dir) != NULL) return 0;
    fprintf(stderr, "%s:0: cannot create a temporary folder: %s\n", dir, strerror(errno));
    return 1;
}

/* The runs' CPU seconds into *cpu_s; 0, or 1 with the first failed run's message printed. */
static int check_runs(const struct probe_run *runs, int n, double *cpu_s)
{
    *cpu_s = 0;
    for (int i = 0; i < n; i++) {
        *cpu_s += runs[i].cpu_s;
        if (runs[i].status != 0) {
            say_failed(&runs[i]);
            return 1;
        }
    }
    return 0;
}

int campaign_probe(const struct camp_probe_opts *o, const struct scenario *sc,
                   struct camp_costs *costs, double *cpu_s, FILE *log)
{
    char dir[PATH_MAX];
    if (open_dir(o, "campaign", dir, sizeof dir) != 0) return 1;
    struct probe_run *runs = xbt_new0(struct probe_run, MAX_RUNS);
    int n = plan_runs(sc, dir, runs), st = 0;
    memset(costs, 0, sizeof *costs);
    for (int i = 0; i < n && st == 0; i++)
        st = write_doc(o, sc, &runs[i]);
    if (st == 0) run_all(o, runs, n);
    if (st == 0) st = check_runs(runs, n, cpu_s);
    if (st == 0) st = read_runs(sc, runs, n, costs, log);
    if (o->keep == NULL) remove_dir(dir, runs, n);
    free(runs);
    return st;
}

int campaign_probe_zoom(const struct camp_probe_opts *o, const struct scenario *sc, int steps,
                        int crash_step, double *cost_s, double *cpu_s)
{
    char dir[PATH_MAX];
    if (open_dir(o, "zoom", dir, sizeof dir) != 0) return 1;
    struct probe_run runs[2] = {{.kind = RUN_ZOOM, .steps = steps, .crash_step = crash_step},
                                {.kind = RUN_BASE, .steps = steps}};
    snprintf(runs[0].base, sizeof runs[0].base, "%.3900s/zoom", dir);
    snprintf(runs[1].base, sizeof runs[1].base, "%.3900s/base", dir);
    int st = write_doc(o, sc, &runs[0]) || write_doc(o, sc, &runs[1]);
    if (st == 0) run_all(o, runs, 2);
    if (st == 0) st = check_runs(runs, 2, cpu_s);
    char f[PATH_MAX + 8];
    double t[2] = {0, 0};
    for (int i = 0; i < 2 && st == 0; i++) {
        snprintf(f, sizeof f, "%s.json", runs[i].base);
        t[i] = read_json(f, "time_s");
    }
    *cost_s = t[0] - t[1];
    if (o->keep == NULL) remove_dir(dir, runs, 2);
    return st;
}
