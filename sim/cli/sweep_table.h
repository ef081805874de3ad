/* sweep_table.h - a sweep's merged table: one row per point in grid order, printed and written
 * to -o, and the files it is made from read back whole (internal to sweep*.c).
 *
 * Every point's `dmlsim run --summary` gives two lines, the columns and the values; the table
 * prints the axes with more than one value as leading columns (the others are named once in the
 * header as fixed), then each point's values, its status (sweep_status_name) and, for a point
 * that is not ok, its one-line message; a point without a summary (refused, an error) has "-"
 * for each value. Rows are in grid order whatever order the points finished in, so the output
 * is deterministic. -o (the text), --csv and --json (sweep_export.h) are output files
 * (outfile.h), one set: checked against the scenario before anything runs, written atomically.
 * A file read back is refused when cut short (no final newline) or longer than its kind allows.
 */
#ifndef DMLSIM_SWEEP_TABLE_H
#define DMLSIM_SWEEP_TABLE_H

#include "sweep_export.h" /* struct sweep_table */
#include "sweep_grid.h"

#include <stdio.h>

/* The longest line a summary or point file may have (an axis of 10,000 long values fits). */
#define SWEEP_LINE_MAX (1 << 20)

/* A file's lines, each without its newline. */
struct sweep_text {
    char **line; /* the lines, without their newlines */
    int n;       /* how many */
};

/* Frees t's lines; t is then empty. */
void sweep_table_text_free(struct sweep_text *t);

/* Reads path's lines into t (sweep_table_text_free it); 0, or -1 (t empty) when the file cannot be
 * read, has more than max lines, a line of SWEEP_LINE_MAX bytes or more, or a last line without its
 * newline (a file cut short). */
int sweep_table_read_text(const char *path, int max, struct sweep_text *t);

/* Axes with one value are fixed overrides: named in the header, not given a column. rows[p]
 * NULL: point p has no summary ("-" in each column); header NULL: no point has one. */
void sweep_table_print(const struct sweep *sw, FILE *out, char **rows, const char *header);

/* The merged table's writer for a struct outfile (outfile.h; its ctx a struct sweep_table),
 * also given to outfile_check, which checks the file without writing it. */
void sweep_table_write_to(const void *ctx, FILE *out);

/* -o OUT, --csv and --json (those of them sw names) as one set of output files (outfile.h): in
 * place for a device or FIFO, else renamed onto them; 0, or 1 with the message printed. */
int sweep_table_write(const struct sweep *sw, char **rows, const char *header);

/* -o, --csv and --json must not be the scenario; checked before anything runs. */
int sweep_table_check_path(const struct sweep *sw);

#endif
