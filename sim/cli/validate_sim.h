/* validate_sim.h - a job simulated on the machine it was measured on, in child processes
 * (internal to validate*.c).
 *
 * The machine is a one-cluster scenario built from the catalog: the job's nodes, its GPUs per
 * node, one NIC per GPU unless told otherwise; a copy job runs on one node of two GPUs, between
 * the host and a GPU over PCIe (or between the two GPUs for peer copies). SimGrid allows one engine
 * per process, so every simulation runs in a child (fork) that writes its results to a pipe; the
 * message-level sizes of a job and its flow-level ones (validate_level in validate_sim.c: from
 * 256 MiB on 4 nodes or more) run in two children at once. A failed child fails the simulation.
 */
#ifndef DMLSIM_VALIDATE_SIM_H
#define DMLSIM_VALIDATE_SIM_H

#include "nccl_tune.h"
#include "validate_job.h"

#include <stdbool.h>

/* The machine a measurement is simulated on: GPU model, its intra-node class, the NIC class, and
 * how its collectives run. */
struct validate_machine {
    const struct gpu_model *gpu; /* the catalog GPU */
    const char *intra;           /* its intra-node link class (a catalog name) */
    const char *nic;             /* the NIC class between nodes (a catalog name) */
    int nics;                    /* NICs per node; 0: one per GPU */
    enum coll_algo_id algo;      /* the collectives' algorithm: nccl, or a textbook one (--algo) */
    struct nccl_opts nccl;       /* NCCL_ALGO, NCCL_PROTO, NCCL_MAX_NCHANNELS (--algo, --proto,
                                    --channels); -1, -1, 0: NCCL's own choice */
    bool sharp;                  /* the switches reduce (--sharp) */
    int level;                   /* -1: each size at the level validate_level picks; else every size
                                    at this enum coll_level (DMLSIM_VALIDATE_LEVEL, for tests) */
};

#define VALIDATE_SIM_CHOICE_LEN 48 /* struct coll_row's choice */

/* What one simulation of a job gives back per size: the time and NCCL's plan. */
struct validate_sim_out {
    double time_s;                        /* the simulated time of one call (s) */
    char choice[VALIDATE_SIM_CHOICE_LEN]; /* NCCL's plan, "algorithm/protocol/channels" */
};

/* The NIC class for a multi-node log: the option, else InfiniBand of the GPU's generation (DGX
 * systems: V100 EDR, A100 HDR, H100 and later NDR), TCP when the log says NCCL used sockets. */
const char *validate_sim_default_nic(const struct calib *c, const struct gpu_model *g,
                                     const char *opt);

/* The level size `size` of job j is simulated at (validate_level). */
enum coll_level validate_sim_level(const struct validate_job *j, const struct validate_machine *mc,
                                   double size);

/* Simulates the sizes of job j selected by `use` (NULL: all), each at its level (message-level
 * sizes in one child, flow-level ones in another, both at once), into out[i] for the selected
 * i; false if a simulation failed. */
bool validate_sim_run_some(const struct validate_job *j, const struct validate_machine *mc,
                           const struct netcal *nc, const bool *use, struct validate_sim_out *out);

/* Every size of job j: times into sim, and NCCL's plans into plan (when not NULL). */
bool validate_sim_run(const struct validate_job *j, const struct validate_machine *mc,
                      const struct netcal *nc, double *sim, struct validate_sim_out *plan);

#endif
