/* sgcfg.c - SimGrid configuration from the command line (see sgcfg.h). */
#include "sgcfg.h"

#include <simgrid/engine.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_OPTS 64 /* more --cfg options than any use needs; the rest are refused */

static const char *const *user_opts;
static int user_n;

/* SimGrid logs every configuration change at INFO ("Configuration change: Set ..."); the header
 * lists the --cfg options instead, so stderr keeps dmlsim's own lines only. */
#define QUIET_CFG "--log=xbt_cfg.thres:warning"

/* argv for simgrid_init: "dmlsim", QUIET_CFG, "--cfg=OPT"..., NULL (malloc'd; free with
 * free_argv). */
static char **cfg_argv(const char *const *opts, int n, int *argc)
{
    char **argv = calloc((size_t)n + 3, sizeof *argv);
    argv[0] = strdup("dmlsim");
    argv[1] = strdup(QUIET_CFG);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(opts[i]) + 7;
        argv[i + 2] = malloc(len);
        snprintf(argv[i + 2], len, "--cfg=%s", opts[i]);
    }
    *argc = n + 2;
    return argv;
}

/* Frees cfg_argv's n + 2 strings and the array; keep is the array as built (simgrid_init drops
 * the options it consumed from argv). */
static void free_argv(char **argv, char **keep, int n)
{
    for (int i = 0; i < n + 2; i++)
        free(keep[i]);
    free(keep);
    free(argv);
}

/* Values SimGrid accepts and then crashes on, after dmlsim has printed its header: a stack too
 * small for an actor (contexts/stack-size 0 or 1 KiB: SIGSEGV; -1: SIGSEGV), a negative guard
 * (mprotect fails: "Failed to protect stack", abort). The bounds are sane sizes, not SimGrid's:
 * a dmlsim actor needs more than 8 KiB of stack (16 KiB is the floor here; SimGrid's default is
 * 8192 KiB), and 1 GiB is a thousand times what an actor uses. */
static const struct cfg_bound {
    const char *key;  /* the SimGrid key */
    long lo, hi;      /* accepted integers */
    const char *what; /* what is expected */
} cfg_bounds[] = {
        {"contexts/stack-size", 16, 1048576,
         "an actor's stack size in KiB, an integer from 16 to 1048576 (SimGrid's default 8192)"},
        {"contexts/guard-size", 0, 1024,
         "guard pages below each actor's stack, an integer from 0 to 1024 (SimGrid's default 1)"},
};

/* An option whose key has bounds (cfg_bounds) and whose value is outside them: the message. */
static enum dmlsim_err check_bounds(const char *opt, struct dmlsim_error *err)
{
    const char *colon = strchr(opt, ':');
    for (size_t i = 0; i < sizeof cfg_bounds / sizeof cfg_bounds[0]; i++) {
        const struct cfg_bound *b = &cfg_bounds[i];
        size_t len = strlen(b->key);
        if ((size_t)(colon - opt) != len || strncmp(opt, b->key, len) != 0) continue;
        char *end;
        errno = 0;
        long v = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end != '\0' || errno != 0 || v < b->lo || v > b->hi)
            return dmlsim_fail(err, DMLSIM_EUSAGE, "--cfg=%s: out of bounds; expected %s", opt,
                               b->what);
    }
    return DMLSIM_OK;
}

/* SimGrid's reason, from the child's stderr: the text after "Uncaught exception ...: " on the
 * first line that has it, up to the end of that line. */
static void reason(const char *log, char *why, size_t len)
{
    const char *p = strstr(log, "Uncaught exception");
    p = p ? strstr(p, ": ") : NULL;
    if (p == NULL) {
        snprintf(why, len, "SimGrid refused it");
        return;
    }
    p += 2;
    size_t n = strcspn(p, "\n");
    snprintf(why, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

/* Runs simgrid_init with the options in a child; returns 0 when it accepted them, or fills why. */
static int try_in_child(const char *const *opts, int n, char *why, size_t len)
{
    int fd[2];
    if (pipe(fd) != 0) return 0; /* cannot check: SimGrid itself will say */
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return 0;
    }
    if (pid == 0) {
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        int argc;
        char **argv = cfg_argv(opts, n, &argc);
        simgrid_init(&argc, argv);
        _exit(0);
    }
    close(fd[1]);
    char log[4096];
    size_t got = 0;
    ssize_t k;
    while ((k = read(fd[0], log + got, sizeof log - 1 - got)) > 0)
        got += (size_t)k;
    log[got] = '\0';
    char rest[512];
    while (read(fd[0], rest, sizeof rest) > 0) { /* drain the rest, so the child can exit */
    }
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    reason(log, why, len);
    return -1;
}

enum dmlsim_err sgcfg_check(const char *const *opts, int n, struct dmlsim_error *err)
{
    if (n > MAX_OPTS)
        return dmlsim_fail(err, DMLSIM_EUSAGE, "--cfg given %d times; expected at most %d", n,
                           MAX_OPTS);
    for (int i = 0; i < n; i++) {
        const char *colon = strchr(opts[i], ':');
        if (colon == NULL || colon == opts[i] || colon[1] == '\0')
            return dmlsim_fail(err, DMLSIM_EUSAGE,
                               "--cfg=%s: expected KEY:VALUE, a SimGrid configuration key and its "
                               "value (e.g. --cfg=network/model:LV08)",
                               opts[i]);
        enum dmlsim_err rc = check_bounds(opts[i], err);
        if (rc != DMLSIM_OK) return rc;
        char why[256];
        if (try_in_child(opts + i, 1, why, sizeof why) != 0)
            return dmlsim_fail(err, DMLSIM_EUSAGE,
                               "--cfg=%s: %s; expected a key and value of SimGrid's configuration "
                               "(SimGrid's \"Configuring SimGrid\" page)",
                               opts[i], why);
    }
    return DMLSIM_OK;
}

void sgcfg_init(const char *const *opts, int n)
{
    int argc;
    char **argv = cfg_argv(opts, n, &argc);
    char **keep = malloc(((size_t)n + 2) * sizeof *keep);
    memcpy(keep, argv, ((size_t)n + 2) * sizeof *keep);
    user_opts = opts;
    user_n = n;
    simgrid_init(&argc, argv); /* SimGrid copies what it keeps of argv */
    free_argv(argv, keep, n);
}

bool sgcfg_user_set(const char *key)
{
    size_t len = strlen(key);
    for (int i = 0; i < user_n; i++)
        if (strncmp(user_opts[i], key, len) == 0 && user_opts[i][len] == ':') return true;
    return false;
}

const char *sgcfg_option(int i)
{
    return i >= 0 && i < user_n ? user_opts[i] : NULL;
}
