/* outfile.c - the CLI's output files, written as one set (see outfile.h). */
#include "outfile.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary files of the set being written; changed only with SIGINT and SIGTERM held, so
 * that outfile_discard, called from their handler, sees whole entries. */
static char pending[OUTFILE_MAX][PATH_MAX];
static volatile sig_atomic_t npending;

/* One output of the set being written. */
struct staged {
    const struct outfile *o; /* the output */
    bool in_place;           /* an existing non-regular file: written where it is */
    char target[PATH_MAX];   /* the end of o->path's symlink chain, which gets renamed onto */
    int slot;                /* its temporary file's index in pending, or -1 */
};

void outfile_hold_interrupts(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigprocmask(SIG_BLOCK, &s, old);
}

void outfile_release_interrupts(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

void outfile_discard(void)
{
    for (sig_atomic_t i = 0; i < npending; i++)
        unlink(pending[i]);
    npending = 0;
}

static void discard_pending(void)
{
    sigset_t old;
    outfile_hold_interrupts(&old);
    outfile_discard();
    outfile_release_interrupts(&old);
}

static enum dmlsim_err cannot_write(const struct outfile *o, int e, struct dmlsim_error *err)
{
    return dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot write: %s", o->path, strerror(e));
}

/* Follows the symlinks of s->o->path to the name the content goes to (which need not exist). */
static enum dmlsim_err find_target(struct staged *s, struct dmlsim_error *err)
{
    char link[PATH_MAX], next[PATH_MAX];
    int n = snprintf(s->target, sizeof s->target, "%s", s->o->path);
    for (int hop = 0; n >= 0 && (size_t)n < sizeof s->target && hop < 40; hop++) {
        ssize_t len = readlink(s->target, link, sizeof link - 1);
        if (len < 0) return DMLSIM_OK; /* not a link: the target */
        link[len] = '\0';
        const char *slash = strrchr(s->target, '/');
        if (link[0] == '/' || slash == NULL)
            n = snprintf(next, sizeof next, "%s", link);
        else
            n = snprintf(next, sizeof next, "%.*s/%s", (int)(slash - s->target), s->target, link);
        if (n >= 0 && (size_t)n < sizeof next) memcpy(s->target, next, (size_t)n + 1);
    }
    return cannot_write(s->o, n < 0 || (size_t)n >= sizeof s->target ? ENAMETOOLONG : ELOOP, err);
}

/* Writes the content to `f` and closes it; fails on any error of the stream. */
static enum dmlsim_err write_stream(const struct outfile *o, FILE *f, struct dmlsim_error *err)
{
    int e = 0;
    o->write(o->ctx, f);
    if (fflush(f) != 0)
        e = errno;
    else if (ferror(f))
        e = EIO;
    if (fclose(f) != 0 && e == 0) e = errno;
    return e ? cannot_write(o, e, err) : DMLSIM_OK;
}

/* A new temporary file beside the target, registered in pending; returns its descriptor. */
static int open_temp(struct staged *s)
{
    sigset_t old;
    int fd = -1;
    outfile_hold_interrupts(&old);
    char *tmp = pending[npending];
    int n = snprintf(tmp, PATH_MAX, "%s.tmp.XXXXXX", s->target);
    if (n < 0 || n >= PATH_MAX)
        errno = ENAMETOOLONG;
    else if ((fd = mkstemp(tmp)) >= 0)
        s->slot = npending++;
    outfile_release_interrupts(&old);
    return fd;
}

/* Writes a regular (or new) output's content to its registered temporary file. */
static enum dmlsim_err write_temp(struct staged *s, struct dmlsim_error *err)
{
    enum dmlsim_err rc = find_target(s, err);
    if (rc != DMLSIM_OK) return rc;
    struct stat st;
    mode_t mode = stat(s->target, &st) == 0 ? st.st_mode & 07777 : 0644;
    int fd = open_temp(s);
    FILE *f = fd >= 0 && fchmod(fd, mode) == 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        int e = errno;
        if (fd >= 0) close(fd);
        return cannot_write(s->o, e, err);
    }
    return write_stream(s->o, f, err);
}

/* Writes a non-regular output (a device, a FIFO: opening one waits for its reader) in place. */
static enum dmlsim_err write_in_place(const struct outfile *o, struct dmlsim_error *err)
{
    int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        int e = errno;
        if (fd >= 0) close(fd);
        return cannot_write(o, e, err);
    }
    return write_stream(o, f, err);
}

/* Renames every temporary file onto its target, with interrupts held: all or none of them. */
static enum dmlsim_err commit(const struct staged *s, size_t n, struct dmlsim_error *err)
{
    sigset_t old;
    enum dmlsim_err rc = DMLSIM_OK;
    outfile_hold_interrupts(&old);
    for (size_t i = 0; i < n && rc == DMLSIM_OK; i++)
        if (s[i].slot >= 0 && rename(pending[s[i].slot], s[i].target) != 0)
            rc = cannot_write(s[i].o, errno, err);
    if (rc == DMLSIM_OK) npending = 0;
    outfile_release_interrupts(&old);
    return rc;
}

enum dmlsim_err outfile_write(const struct outfile *outs, size_t nouts, struct dmlsim_error *err)
{
    struct staged s[OUTFILE_MAX];
    size_t n = 0;
    enum dmlsim_err rc = DMLSIM_OK;
    assert(nouts <= OUTFILE_MAX && npending == 0);
    for (size_t i = 0; i < nouts; i++) {
        struct stat st;
        if (outs[i].path == NULL) continue;
        s[n] = (struct staged){.o = &outs[i], .slot = -1};
        s[n++].in_place = stat(outs[i].path, &st) == 0 && !S_ISREG(st.st_mode);
    }
    /* the regular files first, so that a set waiting on a FIFO's reader has replaced nothing */
    for (size_t i = 0; i < n && rc == DMLSIM_OK; i++)
        if (!s[i].in_place) rc = write_temp(&s[i], err);
    for (size_t i = 0; i < n && rc == DMLSIM_OK; i++)
        if (s[i].in_place) rc = write_in_place(s[i].o, err);
    if (rc == DMLSIM_OK) rc = commit(s, n, err);
    if (rc != DMLSIM_OK) discard_pending();
    return rc;
}

/* Whether outputs a and b would write one regular file (a device or FIFO may take several). */
static bool same_output(const char *a, const char *b)
{
    struct stat sa, sb;
    bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return !ea && !eb && strcmp(a, b) == 0;
}

enum dmlsim_err outfile_check(const struct outfile *outs, size_t nouts,
                              const struct outfile_input *ins, size_t nins,
                              struct dmlsim_error *err)
{
    for (size_t i = 0; i < nouts; i++)
        for (size_t j = i + 1; outs[i].path != NULL && j < nouts; j++)
            if (outs[j].path != NULL && same_output(outs[i].path, outs[j].path))
                return dmlsim_fail(err, DMLSIM_EUSAGE,
                                   "%s:0: %s and %s name the same file; expected one file per "
                                   "output",
                                   outs[j].path, outs[i].option, outs[j].option);
    for (size_t i = 0; i < nouts; i++) {
        struct stat out, in;
        if (outs[i].path == NULL || stat(outs[i].path, &out) != 0) continue;
        for (size_t k = 0; k < nins; k++)
            if (ins[k].path != NULL && stat(ins[k].path, &in) == 0 && in.st_dev == out.st_dev &&
                in.st_ino == out.st_ino)
                return dmlsim_fail(err, DMLSIM_EUSAGE,
                                   "%s:0: %s names the %s %s; expected an output path that is "
                                   "not one of the inputs",
                                   outs[i].path, outs[i].option, ins[k].what, ins[k].path);
    }
    return DMLSIM_OK;
}
