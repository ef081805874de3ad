/* sweep_grid.h - a sweep's grid and options: its axes (--set, --zip), its points, and the
 * state the rest of the sweep shares (internal to sweep*.c).
 *
 * Each --set ELEM.ATTR=V1,V2,... is one axis ("\\," a comma inside a value, "\\\\" a backslash);
 * the --zip axes, all of one length, are one dimension together, standing where the first of them
 * stands; the grid is the product of the dimensions, the first slowest, so point p's value on
 * an axis is one division and one modulo by its stride. The count is made in 64 bits and
 * refused above SWEEP_MAX_POINTS before anything runs. struct sweep also holds what running the
 * points needs (sweep.c: the children's pids and folder), as one struct the interrupt handler
 * can reach.
 */
#ifndef DMLSIM_SWEEP_GRID_H
#define DMLSIM_SWEEP_GRID_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cli_args;

/* The most points one sweep runs: 10,000 runs is hours of a 2-core machine for the shipped
 * scenarios (their points take 0.1 to a few seconds each); a larger study is several sweeps. */
#define SWEEP_MAX_POINTS 10000

#define SWEEP_MAX_AXES  16  /* axes (--set and --zip) in one sweep (dmlsim plan uses 12) */
#define SWEEP_MAX_EXTRA 128 /* option and value pairs passed to every point, 2 entries each */

/* What became of a point: its row's status column (sweep_status_name), in the order of the
 * sweep's exit status (the worst point's: sweep_exit_status). */
enum sweep_status {
    SWEEP_OK,            /* its summary row */
    SWEEP_JOB_FAILED,    /* its summary row; the simulated job failed (run's exit 4): a result */
    SWEEP_EXPECT_FAILED, /* its summary row; an <expect> failed (run's exit 3) */
    SWEEP_REFUSED,       /* the run refused its input (run's exit 1): no summary */
    SWEEP_ERROR,         /* anything else (a signal, no summary written, a CPU limit): none */
};

struct sweep_axis {
    char path[128]; /* ELEM.ATTR */
    char **values;  /* the values */
    int nvalues;    /* how many */
    bool zip;       /* a --zip axis: one dimension with the other --zip axes */
    int stride;     /* grid points per step of its dimension (sweep_grid_count) */
};

struct sweep {
    const char *file;                       /* scenario */
    struct sweep_axis axes[SWEEP_MAX_AXES]; /* the grid */
    int naxes;                              /* how many axes */
    int jobs;                               /* children at a time */
    const char *out;           /* merged table file (with --point: the point's), or NULL */
    const char *csv;           /* --csv: the merged table as CSV (not with --point), or NULL */
    const char *json;          /* --json: the merged table as JSON (not with --point), or NULL */
    const char **extra;        /* what every point's `dmlsim run` gets besides its --set */
    int nextra;                /* how many */
    int point;                 /* --point K: only point K - 1; else 0 */
    bool list;                 /* --list: print the points' command lines */
    int files;                 /* the points' own --csv, --json, --trace (only with --point) */
    char dir[PATH_MAX];        /* temporary folder for the children's files, "" while none */
    int npoints;               /* product of the axes' sizes, at most SWEEP_MAX_POINTS */
    pid_t *pids;               /* per point: its child process while unreaped, else 0 */
    enum sweep_status *status; /* per point: what became of it (SWEEP_OK until it ran) */
    char **msg;                /* per point: its one-line message, or NULL (owned: freed) */
    int nspawned;              /* points started so far (0 .. nspawned-1 may have files) */
    double cpu_limit_s; /* each point's CPU seconds at most (RLIMIT_CPU), 0: none (dmlsim plan) */
    bool keep_going;    /* a failed point leaves its row NULL, its message printed, and the
                           others go on (dmlsim plan); else it stops the sweep */
};

/* "ok", "job-failed", "expect-failed", "refused" or "error". */
const char *sweep_status_name(enum sweep_status s);

/* The sweep's exit status for its points' statuses: 0 when every point gave its row as a
 * result (ok, job-failed), 3 when the worst is a failed <expect>, 1 when a point was refused
 * or failed otherwise (as `dmlsim run`'s: error.h). */
int sweep_exit_status(const struct sweep *sw);

/* Value of axis a at grid point p (first dimension slowest; the --zip axes are one dimension,
 * where the first of them stands). */
const char *sweep_grid_value(const struct sweep *sw, int p, int a);

/* Adds the axis ELEM.ATTR=V1,V2,... (a --zip axis if zip); false with why it is refused. */
bool sweep_grid_add_axis(struct sweep *sw, const char *spec, bool zip, char *why, size_t len);

/* The number of grid points, counted in 64 bits (no product before the check exceeds
 * SWEEP_MAX_POINTS, so none overflows), and each axis's stride (its dimension's: the --zip axes
 * are one, the last dimension fastest); false with why above SWEEP_MAX_POINTS. */
bool sweep_grid_count(struct sweep *sw, char *why, size_t len);

/* Whether a passed option names a file that one point writes. */
bool sweep_grid_is_file_option(const char *opt);

/* `dmlsim sweep`'s command line a into sw (zeroed first; its arrays are then sw's: free them
 * with sweep_grid_release, whatever the outcome): the axes, the grid's points, -j, -o, --point,
 * --list, and the options passed to every point. 0, or 1 with the message printed (cli_error). */
int sweep_grid_parse(struct sweep *sw, const struct cli_args *a);

/* Frees what sweep_grid_parse or sweep_grid_count allocated in sw (not sw itself). */
void sweep_grid_release(struct sweep *sw);

#endif
