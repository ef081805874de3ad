/* sweep.h - `dmlsim sweep`: one simulation per point of a parameter grid, as separate processes.
 *
 * Each --set ELEM.ATTR=V1,V2,... is one axis (an ELEM.ATTR given twice is an error; "\," is a
 * comma inside a value, "\\" a backslash); the --zip axes, all of one length, are one dimension
 * together; the grid is the product of the dimensions (the first varies slowest), counted in 64
 * bits and refused above SWEEP_MAX_POINTS before anything runs. --calib, --cfg and --unset pass
 * to every point. --list prints the points as `dmlsim run` command lines; --point K runs only
 * point K and writes its summary and the grid's description to -o (or stdout), and
 * sweep_merge_main (dmlsim merge) joins such files into the table the whole sweep prints.
 * Every point runs `dmlsim run FILE --set ... --summary TMP` in a child process (SimGrid allows
 * one engine per process), at most -j at a time (default: the online cores), with its files in
 * a folder $TMPDIR/dmlsim-sweep-XXXXXX (/tmp without TMPDIR); the merged table has
 * one row per point, in grid order whatever order the children finish in, so the output is
 * deterministic. A progress bar goes to stderr when it is a terminal. A point that fails keeps
 * its row, with its status and one-line message (sweep_grid.h's enum sweep_status: a failed
 * <expect> keeps its values, a refused value or an error has none; the message is the first
 * failed <expect> line of its standard output, else the last line of its standard error, also
 * printed to stderr as it is collected); the others keep theirs, the whole table is printed and
 * written, and the sweep then exits with sweep_exit_status: 0 when every point is a result (ok,
 * job-failed), 3 when the worst is a failed <expect>, 1 when a point was refused or failed
 * otherwise. -o OUT (text), --csv and --json (sweep_export.h) are output files (outfile.h), never
 * the scenario. With --point K, --csv and --json are that point's run's and a failed point
 * writes no point file (exit 1 or 3), so dmlsim merge joins results only.
 *
 * Rejected: stopping at the first failed point (every finished point was lost: a CI scenario
 * with <expect> could not be swept to plan its checkpoint period), and exit 0 with failed points
 * (a script would not notice).
 *
 * Interrupts: sweep_interrupt, called from the SIGINT/SIGTERM handler, sends SIGTERM to every
 * running child, waits for them (each removes its own temporary files), removes the folder and
 * returns; the handler then exits. A child also gets SIGTERM when the sweep dies any other way
 * (PR_SET_PDEATHSIG), so none is left running.
 *
 * Files: sweep.c (the points as child processes, the interrupt, --list), sweep_grid.c (the grid
 * and the options), sweep_table.c (the merged table), sweep_merge.c (a point's file and dmlsim
 * merge, whose entry point this header includes for main.c).
 */
#ifndef DMLSIM_SWEEP_H
#define DMLSIM_SWEEP_H

#include "sweep_merge.h" /* sweep_merge_main */

struct cli_args;
struct sweep;

/* The sweep command; `self` is argv[0], a its parsed command line. Returns the exit status. */
int sweep_main(const char *self, const struct cli_args *a);

/* Runs sw's points (sw as sweep_grid_parse leaves it: its axes, jobs and extra options filled,
 * its point count made by sweep_grid_count) as a sweep does, and leaves each point's summary row
 * in rows[p] and the columns in *header (free them), each point's status and message in sw; a
 * failed point's message is printed and, with keep_going (dmlsim plan, where a failed <expect>
 * is a failure too), its row left NULL. 0, or 1 when the points' columns differ. For `dmlsim plan`,
 * whose layouts are a sweep's --zip axes. */
int sweep_run_rows(struct sweep *sw, const char *self, char **rows, char **header);

/* Stops the running sweep's children, waits for them and removes its temporary folder; nothing
 * when no sweep runs. Async-signal-safe: for a SIGINT/SIGTERM handler, which then exits. */
void sweep_interrupt(void);

#endif
