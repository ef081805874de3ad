/* datadir.c - shipped files relative to the binary (see datadir.h). */
#include "datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The folder of the running binary into dir; false when /proc/self/exe cannot be read. */
static int exe_dir(char *dir, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", dir, len - 1);
    if (n <= 0) return 0;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash == NULL) return 0;
    *slash = '\0';
    return 1;
}

const char *datadir_find(const char *rel, char *buf, size_t len)
{
    static const char *const roots[] = {"/../share/dmlsim/", "/../"};
    char dir[PATH_MAX], tree[PATH_MAX];
    if (!exe_dir(dir, sizeof dir)) return NULL;
    /* the source tree only when BIN/.. is one (BIN its build folder), not any parent folder */
    int t = snprintf(tree, sizeof tree, "%s/../CMakeLists.txt", dir);
    size_t nroots = t > 0 && (size_t)t < sizeof tree && access(tree, R_OK) == 0 ? 2 : 1;
    for (size_t i = 0; i < nroots; i++) {
        char path[PATH_MAX];
        int n = snprintf(path, sizeof path, "%s%s%s", dir, roots[i], rel);
        if (n <= 0 || (size_t)n >= sizeof path || access(path, R_OK) != 0) continue;
        char real[PATH_MAX];
        if (realpath(path, real) == NULL || strlen(real) >= len) continue;
        return strcpy(buf, real);
    }
    return NULL;
}

const char *datadir_calib(const char *arg, char *buf, size_t len)
{
    char rel[256];
    if (access(arg, F_OK) == 0 || strchr(arg, '/') != NULL ||
        snprintf(rel, sizeof rel, "platforms/calib/%s.calib", arg) >= (int)sizeof rel)
        return arg;
    const char *found = datadir_find(rel, buf, len);
    return found ? found : arg;
}
