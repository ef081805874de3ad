/* gnuplot.c - one gnuplot run (gnuplot.h). */
#include "gnuplot.h"

#include "datadir.h"

#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

extern char **environ;

enum gnuplot_status gnuplot_draw(const char *script, const char *vars)
{
    char gp[PATH_MAX];
    if (datadir_find(script, gp, sizeof gp) == NULL) return GNUPLOT_NO_SCRIPT;
    char *argv[] = {"gnuplot", "-e", (char *)vars, gp, NULL};
    pid_t pid;
    int wst = 0;
    fflush(NULL);
    if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0 ||
        waitpid(pid, &wst, 0) < 0 || !WIFEXITED(wst) || WEXITSTATUS(wst) != 0)
        return GNUPLOT_FAILED;
    return GNUPLOT_OK;
}
