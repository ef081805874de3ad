/* outfile.h - the CLI's output files, written as one set: all of them replaced, or none.
 *
 * Every output file the CLI names (run's --csv, --json, --summary and --trace, sweep -o,
 * platform -o) is written by outfile_write, as one set:
 *   - a path that exists and is not a regular file (a character device such as /dev/null or
 *     /dev/full, a FIFO) is opened and written in place;
 *   - a regular file, or a path that does not exist yet, gets its content in a temporary file
 *     beside it (PATH.tmp.XXXXXX) that is renamed onto it once every output of the set is
 *     complete; a symlink is followed to the end of its chain: the link stays a link and its
 *     target is replaced (an existing target keeps its permissions, a new one gets 0644);
 *   - a write error (ENOSPC on /dev/full, EIO, ...) is a "PATH:0: cannot write: ..." error and
 *     no regular file of the set is replaced.
 * So a set is replaced all together or not at all (short of a failed rename). The temporary
 * files of the set being written are kept in a registry that outfile_discard empties
 * from a signal handler; SIGINT and SIGTERM are held while the registry changes and while the
 * set is renamed into place, so an interrupt leaves all of the set's files or none of them.
 * Rejected: writing in place everywhere (a failure or a reader would see half a file), and
 * renaming onto every path (as root, `--csv /dev/null` replaced the device by a regular file;
 * a FIFO was replaced unread; a symlink became a copy).
 */
#ifndef DMLSIM_OUTFILE_H
#define DMLSIM_OUTFILE_H

#include "error.h"

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#define OUTFILE_MAX 8 /* outputs in one set */

/* Writes one output's content to `out`; outfile_write checks the stream's errors. */
typedef void (*outfile_write_fn)(const void *ctx, FILE *out);

struct outfile {
    const char *option;     /* the option that named it, for messages ("--csv") */
    const char *path;       /* the path as given, or NULL: this output is not wanted */
    outfile_write_fn write; /* what writes its content */
    const void *ctx;        /* passed to write */
};

/* A file the command reads, which no output may overwrite. */
struct outfile_input {
    const char *what; /* for messages: "scenario file", "calibration file", ... */
    const char *path; /* the path, or NULL: none */
};

/* Fails (DMLSIM_EUSAGE, "PATH:0: OPTION names the WHAT INPUT; expected ...") when an output is
 * the same file (device and inode, through links) as one of the inputs; call it before
 * anything is printed or simulated. */
enum dmlsim_err outfile_check(const struct outfile *outs, size_t nouts,
                              const struct outfile_input *ins, size_t nins,
                              struct dmlsim_error *err);

/* Writes the set `outs` (at most OUTFILE_MAX; entries without a path are skipped) as the
 * design note above says. On failure (DMLSIM_EIO) no temporary file is left and no regular file of
 * the set was replaced. One set at a time. */
enum dmlsim_err outfile_write(const struct outfile *outs, size_t nouts, struct dmlsim_error *err);

/* Holds SIGINT and SIGTERM (the old mask in *old) while records an interrupt handler reads
 * change, and puts the mask back. */
void outfile_hold_interrupts(sigset_t *old);
void outfile_release_interrupts(const sigset_t *old);

/* Removes the temporary files of the set being written, if any. Async-signal-safe: for a
 * SIGINT/SIGTERM handler that then calls _exit. */
void outfile_discard(void);

#endif
