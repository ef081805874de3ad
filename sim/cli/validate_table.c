/* validate_table.c - validate's tables (see validate_table.h). */
#include "validate_table.h"

#include "validate_fit.h"
#include "validate_opts.h"

#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double geo_mean(const double *e, size_t n)
{
    double log_sum = 0;
    for (size_t i = 0; i < n; i++)
        log_sum += log(fmax(fabs(e[i]), 1e-6));
    return n ? exp(log_sum / (double)n) : 0;
}

/* Why job j gets no calibrated column, or NULL: the calibration dilates NCCL's own calls (ring,
 * tree, NVLS, CollNet), not the textbook algorithms (README: for checking, not predicting) nor
 * the all-to-all's pairwise sends. */
static const char *uncalibrated_why(const struct validate_job *j, const struct validate_machine *mc)
{
    if (mc->algo != COLL_ALGO_NCCL)
        return "textbook algorithms are not calibrated (the calibration dilates NCCL's calls)";
    if (j->op == COLL_ALLTOALL)
        return "all-to-all is pairwise sends, which the calibration (of NCCL's ring, tree, NVLS "
               "and CollNet calls) does not dilate";
    return NULL;
}

/* "# nccl plans   tree/LL/2 8..4096 B, ring/Simple/16 8192..17179869184 B; message level 8..
 * 134217728 B, flow 268435456..17179869184 B": what NCCL's model chose for each size and the
 * level each was simulated at, as ranges of consecutive sizes. */
static void print_plans(const struct validate_job *j, const struct validate_machine *mc,
                        const struct validate_sim_out *plan)
{
    if (j->op == COLL_ALLTOALL || mc->algo != COLL_ALGO_NCCL) return;
    printf("# nccl plans   ");
    for (size_t i = 0, k; i < j->n; i = k) {
        for (k = i + 1; k < j->n && strcmp(plan[k].choice, plan[i].choice) == 0; k++)
            ;
        printf("%s%s %.0f..%.0f B", i ? ", " : "", plan[i].choice, j->sizes[i], j->sizes[k - 1]);
    }
    if (mc->nccl.algo >= 0)
        for (size_t i = 0; i < j->n; i++)
            if (strncmp(plan[i].choice, nccl_algo_name((enum nccl_algo)mc->nccl.algo),
                        strcspn(plan[i].choice, "/")) != 0) {
                printf(" (--algo %s cannot run at every size here: NCCL's choice among the rest "
                       "ran there)",
                       nccl_algo_name((enum nccl_algo)mc->nccl.algo));
                break;
            }
    printf("\n# levels       ");
    for (size_t i = 0, k; i < j->n; i = k) {
        enum coll_level lv = validate_sim_level(j, mc, j->sizes[i]);
        for (k = i + 1; k < j->n && validate_sim_level(j, mc, j->sizes[k]) == lv; k++)
            ;
        printf("%s%s %.0f..%.0f B", i ? ", " : "", lv == COLL_FLOW ? "flow" : "message",
               j->sizes[i], j->sizes[k - 1]);
    }
    printf("\n");
}

/* "# launch floor 8 GPUs per thread: 39.2 us a call (nccl_tune.h), 12 of 25 sizes at it": the
 * host's pace, when one thread of the test drove several GPUs. */
static void print_floor(const struct validate_job *j, const double *sim)
{
    double floor_s = nccl_launch_floor_s(j->gpus_per_thread);
    if (floor_s <= 0) return;
    size_t at = 0;
    for (size_t i = 0; i < j->n; i++)
        at += sim[i] <= floor_s;
    printf("# launch floor %d GPUs per thread (nGpus %d): %.1f us a call, %d launches of %.2f us "
           "one after the other; %zu of %zu sizes at it\n",
           j->gpus_per_thread, j->gpus_per_thread, floor_s * 1e6, j->gpus_per_thread,
           NCCL_LAUNCH_S * 1e6, at, j->n);
}

int validate_table_coll(const struct validate_job *j, const struct validate_machine *mc,
                        const struct calib *c)
{
    double *sim = xbt_new0(double, j->n), *cal = xbt_new0(double, j->n);
    double *e0 = xbt_new0(double, j->n), *e1 = xbt_new0(double, j->n);
    struct validate_sim_out *plan = xbt_new0(struct validate_sim_out, j->n);
    bool *use = xbt_new0(bool, j->n);
    const char *name = collective_op_name(j->op), *why = uncalibrated_why(j, mc);
    struct netcal nc = {0};
    int status = 0;
    bool *held = xbt_new0(bool, j->n);
    struct validate_sim_out *out = xbt_new0(struct validate_sim_out, j->n);
    for (size_t i = 0; i < j->n; i++)
        use[i] = i % 2 == 0, held[i] = !use[i];
    /* the fitted sizes' calibrated times are the fit's own best simulations (a size's depends
     * on its own factor only); the held-out ones are simulated with the fitted curve */
    bool ok = validate_sim_run(j, mc, NULL, sim, plan) &&
              (why || (validate_fit_job(j, mc, use, sim, c, &nc, cal) &&
                       validate_sim_run_some(j, mc, &nc, held, out)));
    for (size_t i = 0; ok && !why && i < j->n; i++)
        if (held[i]) cal[i] = out[i].time_s;
    for (size_t i = 0; ok && i < j->n; i++) /* the GPUs' times, then what a call measures */
        sim[i] = validate_job_measured_time(j, sim[i]),
        cal[i] = validate_job_measured_time(j, cal[i]);
    if (!ok) {
        printf("# %s on %d GPU(s): the simulation failed\n", name, j->nranks);
        status = 1;
    }
    size_t nheld = 0;
    for (size_t i = 0; ok && i < j->n; i++) {
        e0[i] = (sim[i] - j->measured[i]) / j->measured[i];
        double e = (cal[i] - j->measured[i]) / j->measured[i];
        if (!use[i]) e1[nheld++] = e;
        printf(" %13s %6d %5d %14.0f %12.2f %12.2f %+8.1f", name, j->nranks, j->nodes, j->sizes[i],
               j->measured[i] * 1e6, sim[i] * 1e6, 100 * e0[i]);
        if (why)
            printf(" %12s %8s %s\n", "-", "-", "-");
        else
            printf(" %12.2f %+8.1f %s\n", cal[i] * 1e6, 100 * e, use[i] ? "fit" : "held-out");
    }
    if (ok) {
        printf("# geometric-mean error %s %d GPU(s) %d node(s): uncalibrated %.1f%% over %zu "
               "sizes; ",
               name, j->nranks, j->nodes, 100 * geo_mean(e0, j->n), j->n);
        if (why)
            printf("not calibrated: %s\n", why);
        else
            printf("calibrated %.1f%% over the %zu held-out sizes\n", 100 * geo_mean(e1, nheld),
                   nheld);
        print_plans(j, mc, plan);
        print_floor(j, sim);
        struct calib_fit fit;
        if (j->nodes == 1 && j->op != COLL_ALLTOALL && calib_fit(c, j->op, j->nranks, &fit) == 0)
            printf("# alpha-beta fit latency %.3f us per step, bandwidth %.2f GB/s (largest error "
                   "of the fit %.1f%%)\n",
                   fit.alpha_s * 1e6, fit.bw_Bps / 1e9, 100 * fit.max_rel);
    }
    netcal_release(&nc);
    free(sim);
    free(cal);
    free(e0);
    free(e1);
    free(plan);
    free(use);
    free(held);
    free(out);
    return status;
}

int validate_table_copy(const struct validate_job *j, const struct validate_machine *mc)
{
    double *sim = xbt_new0(double, j->n), *e = xbt_new0(double, j->n);
    int status = 0;
    if (!validate_sim_run(j, mc, NULL, sim, NULL)) {
        printf("# %s: the simulation failed\n", j->kind);
        status = 1;
    } else {
        for (size_t i = 0; i < j->n; i++) {
            e[i] = (sim[i] - j->measured[i]) / j->measured[i];
            printf(" %13s %6d %5d %14.0f %12.2f %12.2f %+8.1f %12s %8s %s\n", j->kind, 1, 1,
                   j->sizes[i], j->measured[i] * 1e6, sim[i] * 1e6, 100 * e[i], "-", "-", "-");
        }
        printf("# geometric-mean error %s: %.1f%% over %zu sizes\n", j->kind,
               100 * geo_mean(e, j->n), j->n);
    }
    free(sim);
    free(e);
    return status;
}

void validate_table_header(const char *path, const struct calib *c,
                           const struct validate_machine *mc)
{
    const struct link_class *lc = catalog_link(mc->intra);
    char per[32] = "one per GPU", how[200];
    if (mc->nics > 0) snprintf(per, sizeof per, "%d per node", mc->nics);
    printf("# dmlsim validate %s\n# profile       %s\n", path, c->source);
    for (size_t i = 0; i < c->nrun; i++) {
        const struct calib_run *u = &c->run[i];
        printf("# read          line %d: %s%s%s\n", u->line, u->read,
               u->n > 0 && u->nodes == 0 ? " (1 node assumed)" : "",
               u->n > 0 && u->nranks < 2 ? " (one rank: nothing to simulate)" : "");
    }
    printf("# simulated on  %s, GPU-to-GPU over %s, %s between nodes (%s%s), host copies over %s; "
           "collectives with %s\n",
           mc->gpu->name, mc->intra, mc->nic, per, mc->sharp ? ", SHARP switches" : "",
           lc->kind == LINK_PCIE ? mc->intra : mc->gpu->pcie,
           validate_opts_describe_algo(mc, how, sizeof how));
    printf("# calibrated    fitted on the sizes marked fit (every other one), reported on the "
           "held-out ones\n");
    if (c->nocoll[0]) printf("# collectives   not measured: %s\n", c->nocoll);
    printf("#\n#%13s %6s %5s %14s %12s %12s %8s %12s %8s\n", "operation", "ranks", "nodes", "size",
           "measured", "simulated", "error", "calibrated", "error");
    printf("#%13s %6s %5s %14s %12s %12s %8s %12s %8s\n", "", "", "", "(B)", "(us)", "(us)", "(%)",
           "(us)", "(%)");
}
