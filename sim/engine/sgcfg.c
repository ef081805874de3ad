/* sgcfg.c - SimGrid configuration from the command line (see sgcfg.h). */
#include "sgcfg.h"

#include <simgrid/engine.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_OPTS 64 /* more --cfg options than any use needs; the rest are refused */

static const char *const *user_opts;
static int user_n;

/* argv for simgrid_init: "dmlsim", "--cfg=OPT"..., NULL (malloc'd; free with free_argv). */
static char **cfg_argv(const char *const *opts, int n, int *argc)
{
    char **argv = calloc((size_t)n + 2, sizeof *argv);
    argv[0] = strdup("dmlsim");
    for (int i = 0; i < n; i++) {
        size_t len = strlen(opts[i]) + 7;
        argv[i + 1] = malloc(len);
        snprintf(argv[i + 1], len, "--cfg=%s", opts[i]);
    }
    *argc = n + 1;
    return argv;
}

/* Frees cfg_argv's n + 1 strings and the array; keep is the array as built (simgrid_init drops
 * the options it consumed from argv). */
static void free_argv(char **argv, char **keep, int n)
{
    for (int i = 0; i <= n; i++)
        free(keep[i]);
    free(keep);
    free(argv);
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
    char **keep = malloc(((size_t)n + 1) * sizeof *keep);
    memcpy(keep, argv, ((size_t)n + 1) * sizeof *keep);
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
