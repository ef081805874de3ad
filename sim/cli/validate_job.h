/* validate_job.h - a log's measurements grouped into jobs, the unit that validate simulates and
 * the network fit fits (internal to validate*.c).
 *
 * A job is one curve: the sizes of one collective on one machine shape (operation, ranks, nodes
 * and GPUs per thread of the test) or of one copy kind, with their measured times in the log's
 * order. Every job is simulated on its own machine (validate_sim.c), so the checks here refuse a
 * run that cannot be built (its node count unknown above one node, or GPUs spread unevenly)
 * before anything is simulated. Device-to-device copies make no job: HBM is not a link.
 */
#ifndef DMLSIM_VALIDATE_JOB_H
#define DMLSIM_VALIDATE_JOB_H

#include "calib.h"
#include "error.h"

#include <stdbool.h>
#include <stddef.h>

#define VALIDATE_MAX_JOBS 64 /* jobs one log makes; measurements of further ones are not used */

struct validate_job {
    bool coll;           /* a collective (else a copy) */
    enum coll_op op;     /* collective */
    int nranks;          /* GPUs */
    int nodes;           /* nodes they spanned */
    int gpus_per_thread; /* GPUs one thread of the test drove (0 unknown): the host's launch
                            floor of a call, nccl_launch_floor_s */
    char kind[64];       /* copy kind */
    double *sizes;       /* sizes */
    double *measured;    /* measured times */
    size_t n;            /* number of sizes */
};

/* Checks that every run of the log can be built: its node count known (or one node of at most
 * VALIDATE_NODE_GPUS ranks), the same GPUs on every node. */
enum dmlsim_err validate_job_check_runs(const struct calib *c, const char *path,
                                        struct dmlsim_error *err);

/* Groups the measurements into jobs: one per (op, ranks, nodes) and per copy kind (copies only
 * when `copies`), into jobs[0 .. VALIDATE_MAX_JOBS); returns their number. The jobs own their
 * sizes and measured times: free them with validate_job_free. */
size_t validate_job_make(const struct calib *c, bool copies, struct validate_job *jobs);

/* Frees the arrays of jobs[0 .. n) (not the jobs themselves). */
void validate_job_free(struct validate_job *jobs, size_t n);

/* The time a call of job j measures when the GPUs take t: no less than the host's launch floor
 * of a thread that drives several GPUs (nccl_tune.h). The fit calibrates the GPUs' time, so
 * only what is reported passes here. */
double validate_job_measured_time(const struct validate_job *j, double t);

#endif
