/* validate.c - dmlsim validate and the network fit behind --calib (see validate.h). */
#include "validate.h"

#include "cmdline.h"
#include "validate_fit.h"
#include "validate_job.h"
#include "validate_opts.h"
#include "validate_sim.h"
#include "validate_table.h"

#include <xbt/sysdep.h>

#include <stdio.h>
#include <stdlib.h>

enum dmlsim_err validate_fit_network(struct calib *c, const char *path, const char *gpu,
                                     const char *nic, struct dmlsim_error *err)
{
    if (c->ncoll == 0) return DMLSIM_OK;
    const struct gpu_model *g = gpu ? catalog_gpu(gpu) : calib_gpu(c);
    if (g == NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:0: cannot tell which catalog GPU the collectives were measured on "
                           "(\"%s\"); expected rank lines, a \"gpu NAME\" record or a \"# "
                           "dmlsim-gpu NAME\" line naming a catalog GPU",
                           path, c->gpu_name);
    struct validate_machine mc = {.gpu = g,
                                  .intra = g->intra,
                                  .nic = validate_sim_default_nic(c, g, nic),
                                  .algo = COLL_ALGO_DEFAULT,
                                  .nccl = {.algo = -1, .proto = -1, .max_channels = 0},
                                  .level = -1};
    struct validate_job jobs[VALIDATE_MAX_JOBS];
    enum dmlsim_err rc = validate_job_check_runs(c, path, err);
    if (rc != DMLSIM_OK) return rc;
    size_t njobs = validate_job_make(c, false, jobs);
    struct netcal *nc = xbt_new0(struct netcal, 1);
    rc = validate_fit_check_rows(jobs, njobs, path, err);
    for (size_t k = 0; k < njobs && rc == DMLSIM_OK; k++)
        if (jobs[k].op != COLL_ALLTOALL &&
            !validate_fit_job(&jobs[k], &mc, NULL, NULL, c, nc, NULL))
            rc = dmlsim_fail(err, DMLSIM_EVALUE,
                             "%s:0: simulating the measured %s on %d GPU(s) failed; expected a "
                             "configuration the catalog can build",
                             path, collective_op_name(jobs[k].op), jobs[k].nranks);
    validate_job_free(jobs, njobs);
    if (rc != DMLSIM_OK) {
        netcal_release(nc);
        free(nc);
        return rc;
    }
    c->netcal = nc;
    return DMLSIM_OK;
}

int validate_main(const struct cli_args *a)
{
    const char *path = a->args[0], *gpu_name = cli_value(a, CLI_GPU);
    struct validate_machine mc = {0};
    struct calib_opts o = {0};
    if (validate_opts_parse(a, &mc, &o) != 0) return 1;
    struct calib c;
    struct dmlsim_error err = {0};
    if (calib_load_opts(path, &o, &c, &err) != DMLSIM_OK) return cli_fail(&err);
    mc.gpu = gpu_name ? catalog_gpu(gpu_name) : calib_gpu(&c);
    if (mc.gpu == NULL) {
        char names[512];
        fprintf(stderr,
                "%s:0: cannot tell which catalog GPU this profile was measured on (\"%s\"); "
                "expected --gpu with one of: %s\n",
                path, c.gpu_name, catalog_gpu_names(names, sizeof names));
        calib_release(&c);
        return 1;
    }
    if (mc.intra == NULL) mc.intra = mc.gpu->intra;
    mc.nic = validate_sim_default_nic(&c, mc.gpu, mc.nic);
    const struct link_class *lc = catalog_link(mc.intra), *nl = catalog_link(mc.nic);
    if (lc == NULL || (lc->kind != LINK_NVLINK && lc->kind != LINK_PCIE) || nl == NULL ||
        !catalog_link_is_network(nl)) {
        fprintf(stderr,
                "dmlsim: validate: --intra \"%s\" / --nic \"%s\": expected an nvlink or pcie "
                "class and a network class (dmlsim catalog)\n",
                mc.intra, mc.nic);
        calib_release(&c);
        return 1;
    }
    struct validate_job jobs[VALIDATE_MAX_JOBS];
    size_t njobs = 0;
    if (validate_job_check_runs(&c, path, &err) != DMLSIM_OK ||
        (njobs = validate_job_make(&c, true, jobs),
         validate_fit_check_rows(jobs, njobs, path, &err)) != DMLSIM_OK) {
        validate_job_free(jobs, njobs);
        calib_release(&c);
        return cli_fail(&err);
    }
    validate_table_header(path, &c, &mc);
    int status = 0;
    for (size_t k = 0; k < njobs; k++)
        status |= jobs[k].coll ? validate_table_coll(&jobs[k], &mc, &c)
                               : validate_table_copy(&jobs[k], &mc);
    validate_job_free(jobs, njobs);
    calib_release(&c);
    return status;
}
