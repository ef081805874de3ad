/* validate_job.c - a log's measurements grouped into jobs (see validate_job.h). */
#include "validate_job.h"

#include "nccl_tune.h"

#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double validate_job_measured_time(const struct validate_job *j, double t)
{
    return j->coll ? fmax(t, nccl_launch_floor_s(j->gpus_per_thread)) : t;
}

static void add_point(struct validate_job *j, double size, double t)
{
    j->sizes = xbt_realloc(j->sizes, (j->n + 1) * sizeof *j->sizes);
    j->measured = xbt_realloc(j->measured, (j->n + 1) * sizeof *j->measured);
    j->sizes[j->n] = size;
    j->measured[j->n++] = t;
}

/* The most GPUs one node of the catalog's systems has (HGX and DGX boards of 8): a run whose
 * log names no hosts is taken as one node up to this many ranks, and refused above. */
#define VALIDATE_NODE_GPUS 8

enum dmlsim_err validate_job_check_runs(const struct calib *c, const char *path,
                                        struct dmlsim_error *err)
{
    for (size_t i = 0; i < c->nrun; i++) {
        const struct calib_run *u = &c->run[i];
        if (u->n == 0 || u->nranks < 2) continue;
        if (u->nodes == 0 && u->nranks > VALIDATE_NODE_GPUS)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: cannot tell how many nodes the %d ranks of this run "
                               "spanned (the log names no hosts); expected --nodes N or a \"# "
                               "dmlsim-nodes N\" line",
                               path, u->line, u->nranks);
        if (u->nodes > 0 && u->nranks % u->nodes != 0)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: %d ranks on %d nodes; expected the same number of GPUs "
                               "on every node (a multiple of the node count)",
                               path, u->line, u->nranks, u->nodes);
    }
    return DMLSIM_OK;
}

size_t validate_job_make(const struct calib *c, bool copies, struct validate_job *jobs)
{
    size_t njobs = 0;
    for (size_t i = 0; i < c->ncoll; i++) {
        const struct calib_coll *r = &c->coll[i];
        int nodes = r->nodes > 1 ? r->nodes : 1;
        size_t k = 0;
        while (k < njobs &&
               !(jobs[k].coll && jobs[k].op == r->op && jobs[k].nranks == r->nranks &&
                 jobs[k].nodes == nodes && jobs[k].gpus_per_thread == r->gpus_per_thread))
            k++;
        if (k == njobs && njobs < VALIDATE_MAX_JOBS && r->nranks >= 2 && r->nranks % nodes == 0)
            jobs[njobs++] = (struct validate_job){.coll = true,
                                                  .op = r->op,
                                                  .nranks = r->nranks,
                                                  .nodes = nodes,
                                                  .gpus_per_thread = r->gpus_per_thread};
        if (k < njobs) add_point(&jobs[k], r->bytes, r->time_s);
    }
    for (size_t i = 0; copies && i < c->ncopy; i++) {
        if (strcmp(c->copy[i].kind, "d2d") == 0) continue; /* HBM is not a link: not simulated */
        size_t k = 0;
        while (k < njobs && (jobs[k].coll || strcmp(jobs[k].kind, c->copy[i].kind) != 0))
            k++;
        if (k == njobs && njobs < VALIDATE_MAX_JOBS) {
            jobs[njobs] = (struct validate_job){.coll = false};
            snprintf(jobs[njobs++].kind, sizeof jobs[0].kind, "%s", c->copy[i].kind);
        }
        if (k < njobs) add_point(&jobs[k], c->copy[i].bytes, c->copy[i].bytes / c->copy[i].Bps);
    }
    return njobs;
}

void validate_job_free(struct validate_job *jobs, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        free(jobs[k].sizes);
        free(jobs[k].measured);
    }
}
