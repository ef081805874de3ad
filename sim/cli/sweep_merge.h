/* sweep_merge.h - a sweep's points as files: one point's file (`dmlsim sweep --point K`) and
 * their merge into the sweep's table (`dmlsim merge`), so that a grid's points can run on other
 * machines (GNU parallel, tools/sweep-slurm.sh).
 *
 * A point's file holds "# dmlsim sweep point K of N", the scenario, each axis as given (values
 * re-escaped), each option passed to every point ("# pass --calib FILE"), then the summary's two
 * lines. The merge reads the grid back from the first file and requires every other line but
 * the values to be the same in every file, each point once and none missing, so points of sweeps
 * run with other options are never joined; the table is the one the whole sweep prints
 * (sweep_table.h). Declared for main.c through sweep.h.
 */
#ifndef DMLSIM_SWEEP_MERGE_H
#define DMLSIM_SWEEP_MERGE_H

struct cli_args;
struct sweep;

#define SWEEP_POINT_LINES \
    128 /* the most lines of a point file (its header, axes, passed options \
           and summary) */

/* --point K: the point's file, to sw->out (an output file, report.h), else to stdout; 0, or 1
 * with the message printed. */
int sweep_merge_write_point(const struct sweep *sw, const char *row, const char *header);

/* dmlsim merge POINT.sum... [-o OUT]: the table of the sweep whose every point is given once. */
int sweep_merge_main(const struct cli_args *a);

#endif
