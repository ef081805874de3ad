/* report.h - every output of a training run, from its run record (run.h) and the metric table
 * (metric.h): the text report on stdout, the CSV of the events log, the JSON, the one-line
 * summary that sweeps merge, and the Perfetto trace.
 *
 * Text: the per-step table (one row per step row of the log: its time, compute, exposed time and
 * samples/s = its samples / its time), then "# summary" with one line per metric label, then the
 * shard table of a parameter-server run. CSV: the whole events log in time order, steps with
 * their figures and faults, recoveries and checkpoints with their description. JSON: the
 * configuration, the step rows, the events, and "summary" with every metric of the table.
 */
#ifndef DMLSIM_REPORT_H
#define DMLSIM_REPORT_H

#include "error.h"
#include "model.h"
#include "run.h"
#include "scenario.h"

#include <stddef.h>
#include <signal.h>
#include <stdio.h>

void report_text(const struct run_record *rec, FILE *out);
void report_csv(const struct run_record *rec, FILE *out);
void report_json(const struct scenario *sc, const struct model *m, const struct run_record *rec,
                 FILE *out);
void report_summary(const struct run_record *rec, FILE *out);
void report_trace(const struct scenario *sc, const struct run_record *rec, FILE *out);

/* ---- output files -----------------------------------------------------------------------
 *
 * Every output file the CLI names (run's --csv, --json, --summary and --trace, sweep -o,
 * platform -o) is written by report_outputs_write, as one set:
 *   - a path that exists and is not a regular file (a character device such as /dev/null or
 *     /dev/full, a FIFO) is opened and written in place;
 *   - a regular file, or a path that does not exist yet, gets its content in a temporary file
 *     beside it (PATH.tmp.XXXXXX) that is renamed onto it once every output of the set is
 *     complete; a symlink is followed to the end of its chain: the link stays a link and its
 *     target is replaced (an existing target keeps its permissions, a new one gets 0644);
 *   - a write error (ENOSPC on /dev/full, EIO, ...) is a "PATH:0: cannot write: ..." error and
 *     no regular file of the set is replaced.
 * So a set is replaced all together or not at all (short of a failed rename). The temporary
 * files of the set being written are kept in a registry that report_outputs_discard empties
 * from a signal handler; SIGINT and SIGTERM are held while the registry changes and while the
 * set is renamed into place, so an interrupt leaves all of the set's files or none of them.
 * Rejected: writing in place everywhere (a failure or a reader would see half a file), and
 * renaming onto every path (as root, `--csv /dev/null` replaced the device by a regular file;
 * a FIFO was replaced unread; a symlink became a copy). */
#define REPORT_MAX_OUTPUTS 8 /* outputs in one set */

/* Writes one output's content to `out`; report_outputs_write checks the stream's errors. */
typedef void (*report_write_fn)(const void *ctx, FILE *out);

struct report_output {
    const char *option;    /* the option that named it, for messages ("--csv") */
    const char *path;      /* the path as given, or NULL: this output is not wanted */
    report_write_fn write; /* what writes its content */
    const void *ctx;       /* passed to write */
};

/* A file the command reads, which no output may overwrite. */
struct report_input {
    const char *what; /* for messages: "scenario file", "calibration file", ... */
    const char *path; /* the path, or NULL: none */
};

/* Fails (DMLSIM_EUSAGE, "PATH:0: OPTION names the WHAT INPUT; expected ...") when an output is
 * the same file (device and inode, through links) as one of the inputs; call it before
 * anything is printed or simulated. */
enum dmlsim_err report_outputs_check(const struct report_output *outs, size_t nouts,
                                     const struct report_input *ins, size_t nins,
                                     struct dmlsim_error *err);

/* Writes the set `outs` (at most REPORT_MAX_OUTPUTS; entries without a path are skipped) as the
 * section above says. On failure (DMLSIM_EIO) no temporary file is left and no regular file of
 * the set was replaced. One set at a time. */
enum dmlsim_err report_outputs_write(const struct report_output *outs, size_t nouts,
                                     struct dmlsim_error *err);

/* Holds SIGINT and SIGTERM (the old mask in *old) while records an interrupt handler reads
 * change, and puts the mask back. */
void report_hold_interrupts(sigset_t *old);
void report_release_interrupts(const sigset_t *old);

/* Removes the temporary files of the set being written, if any. Async-signal-safe: for a
 * SIGINT/SIGTERM handler that then calls _exit. */
void report_outputs_discard(void);

#endif
