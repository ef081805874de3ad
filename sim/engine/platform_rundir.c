/* platform_rundir.c - the run's temporary folder (see platform_rundir.h). */
#include "platform_rundir.h"

#include "platform.h"

#include <xbt/misc.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The rewritten platform and its profiles live in $TMPDIR/dmlsim-run-PID-XXXXXX from
 * platform_open to platform_close. An interrupt (SIGINT, SIGTERM) may come at any moment of a
 * set-up that takes minutes on a large platform, so signals are held only around the folder's
 * creation and registration; the CLI's handler removes it (platform_interrupt). A run killed
 * outright (SIGKILL, the OOM killer) cannot: the next run removes every dmlsim-run-PID-* folder
 * of this user whose process is gone. */
static char live_dir[512];                 /* the folder to remove on an interrupt */
static volatile sig_atomic_t live_dir_set; /* whether live_dir names one */

static void hold_interrupts(sigset_t *old)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, old);
}

/* Removes the files of folder `dir` and the folder (the run's folders hold plain files only).
 * Async-signal-safe: open, getdents64, unlinkat, rmdir. */
static void remove_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    long long buf[1024]; /* aligned for the records */
    long n;
    while (fd >= 0 && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
        for (long off = 0; off < n;) {
            const char *rec = (const char *)buf + off;
            unsigned short len;
            memcpy(&len, rec + 16, sizeof len); /* d_ino 8, d_off 8, d_reclen 2, d_type 1 */
            const char *name = rec + 19;
            if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) unlinkat(fd, name, 0);
            off += len;
        }
    if (fd >= 0) close(fd);
    rmdir(dir);
}

void platform_interrupt(void)
{
    if (live_dir_set) remove_dir(live_dir);
}

/* Removes the run folders in tmpdir left by dmlsim processes that no longer exist (this user's
 * only; a folder of a live process, or of another user, is left alone). */
static void remove_stale_dirs(const char *tmpdir)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        long pid;
        int end = 0;
        if (sscanf(e->d_name, "dmlsim-run-%ld-%n", &pid, &end) != 1 || end == 0 ||
            strlen(e->d_name + end) != 6 || pid <= 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours */
        char *path = bprintf("%s/%s", tmpdir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
            remove_dir(path);
        free(path);
    }
    if (d) closedir(d);
}

/* Creates the run's folder in $TMPDIR (else /tmp) into dir, registered for platform_interrupt;
 * removes stale ones first. */
enum dmlsim_err platform_rundir_make(const struct scenario *sc, char *dir, size_t len,
                                     struct dmlsim_error *err)
{
    const char *tmpdir = getenv("TMPDIR"); /* as the sweep's folder */
    if (tmpdir == NULL || tmpdir[0] == '\0') tmpdir = "/tmp";
    int n = snprintf(dir, len, "%s/dmlsim-run-%ld-XXXXXX", tmpdir, (long)getpid());
    if (n < 0 || (size_t)n >= len) {
        tmpdir = "/tmp";
        snprintf(dir, len, "/tmp/dmlsim-run-%ld-XXXXXX", (long)getpid());
    }
    remove_stale_dirs(tmpdir);
    sigset_t old;
    hold_interrupts(&old);
    bool made = mkdtemp(dir) != NULL;
    if (made && strlen(dir) < sizeof live_dir) {
        memcpy(live_dir, dir, strlen(dir) + 1);
        live_dir_set = 1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (made) return DMLSIM_OK;
    dir[0] = '\0';
    return dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot create a temporary folder", sc->path);
}

void platform_rundir_release(const char *dir)
{
    if (dir[0]) remove_dir(dir);
    live_dir_set = 0;
}
