/* plan_out.h - what `dmlsim plan` reads from its command line and writes: its options, the
 * header of what was set aside, the ranked table, each layout's scenario file, the plot (internal
 * to plan*.c; plan.h says what each file holds). */
#ifndef DMLSIM_PLAN_OUT_H
#define DMLSIM_PLAN_OUT_H

#include "plan_space.h"
#include "scenario.h"

#include <stdbool.h>
#include <stdio.h>

struct cli_args;

struct plan_opts {
    const char *file;      /* the scenario */
    int top;               /* layouts simulated (--top, default 8) */
    int jobs;              /* simulations at a time (-j, default: the online cores) */
    char out[1024];        /* the folder of the files (-o, default plan-NAME) */
    const char *calib;     /* --calib, passed to every simulation, or NULL */
    const char *under;     /* --under FILE: a <faults> element, or NULL */
    bool estimate_only;    /* --estimate-only: rank by the estimate, simulate nothing */
    double limit_s;        /* --sim-limit: CPU seconds a simulation may take (default 30) */
    unsigned fixed;        /* --fix: enum plan_fix bits */
    const char *fix_names; /* --fix as given */
    const char **sets;     /* --set ELEM.ATTR=VALUE overrides, in order (the scenario's, then the
                              layout's on top) */
    int nsets;
    struct scenario_override *ov; /* the same as overrides (keys its ELEM.ATTR parts), loaded
                                     and written as `dmlsim run` applies them */
    char **keys;
};

/* One simulation of a layout. */
struct plan_sim {
    bool done, failed;
    double step_s, tokens_s, mfu, bubble, exposed_s;
};

/* A layout of the best K: its simulations, fault-free and (--under) with the faults. */
struct plan_result {
    const struct plan_cand *c;
    struct plan_sim sim[2];
    double key; /* what it is ranked by (plan_out_write) */
};

/* The axes of a layout, as --set paths and values (plan.c): path a (NULL past the last), and
 * candidate c's value on it (free it); at most PLAN_AXES_MAX (a sweep's SWEEP_MAX_AXES). */
#define PLAN_AXES_MAX 16
const char *plan_axis_path(int a);
char *plan_axis_value(const struct plan_cand *c, int a);

/* The command line into o (plan_out_release it, whatever the outcome); 0, or the exit status
 * with the message printed. */
int plan_out_parse(const struct cli_args *a, struct plan_opts *o);

void plan_out_release(struct plan_opts *o);

/* The `#` lines: the scenario, the global batch, the layouts considered, kept and set aside (by
 * reason, each with an example), and the CPU seconds of the enumeration and estimates. */
void plan_out_header(FILE *out, const struct plan_opts *o, const struct scenario *sc,
                     const struct plan_space *sp, double cpu_s);

/* The scenario with o->under's <faults> instead of its own (and no <expect>: they were written
 * for it fault-free) written as o->out/under.xml, whose path goes into path; 0, or 1 with the
 * message printed. */
int plan_out_under_file(const struct plan_opts *o, const struct scenario *sc, char *path,
                        size_t len);

/* The K results ranked (by the simulated step, under the faults with --under, or by the
 * estimate with --estimate-only) printed, and the files written; 0, or 1 with why. */
int plan_out_write(const struct plan_opts *o, const struct scenario *sc, struct plan_result *res,
                   int k);

#endif
