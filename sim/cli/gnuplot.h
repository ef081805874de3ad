/* gnuplot.h - drawing a plot: gnuplot -e "VARS" SCRIPT, with the script found among dmlsim's data
 * (datadir.h), for the commands that write plots (plan, campaign). */
#ifndef DMLSIM_GNUPLOT_H
#define DMLSIM_GNUPLOT_H

enum gnuplot_status {
    GNUPLOT_OK,        /* drawn */
    GNUPLOT_NO_SCRIPT, /* the script is not among dmlsim's data */
    GNUPLOT_FAILED,    /* gnuplot is not installed, or failed */
};

/* Runs gnuplot on `script` (such as "plots/plan.gp") with `vars` set first; waits for it. */
enum gnuplot_status gnuplot_draw(const char *script, const char *vars);

#endif
