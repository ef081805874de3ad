/* validate.h - the calibration side of the command line: `dmlsim calib` (summarise a profile,
 * write a spec profile), `dmlsim shapes` (the presets' GEMM shapes, for the calibrator),
 * `dmlsim validate` (simulate every measured collective and copy on a platform describing the
 * measured machine, and compare) and the network fit behind `--calib`.
 *
 * validate first prints what it read of each nccl-tests run (calib.h: the operation, ranks and
 * nodes, and where each came from; --op, --nranks, --nodes are sources like the log's, checked
 * against them). It builds the measured machine: the catalog GPU named in the profile (or
 * --gpu), its intra-node class (or --intra), as many nodes as the measurement spanned (one node
 * where the log does not tell, up to 8 GPUs; above, it asks for --nodes) with one NIC per GPU
 * (or --nics) of the class --nic (default: InfiniBand of the GPU's generation, TCP when NCCL
 * used sockets). Collectives run with algo nccl, NCCL's own choice per size; --algo, --proto
 * and --channels force NCCL's algorithm, protocol and channel count as NCCL_ALGO, NCCL_PROTO and
 * NCCL_MAX_NCHANNELS did in the measured run (ring, tree, nvls, nvlstree, collnet); the textbook
 * algorithms are textbook-ring, textbook-tree, naive, halving-doubling and hierarchical, and are
 * not calibrated (nor is all-to-all: the calibration dilates NCCL's calls). Each size runs at
 * message level, except from 256 MiB on 4 nodes or more, at flow level (validate_level: where
 * the two agree, and message level costs minutes), in child processes (SimGrid allows one
 * engine per process; message- and flow-level sizes at once), and the table gives, per size,
 * measured and simulated time with the error, then the time calibrated by a curve fitted on
 * every other size (netcal.h) and its error, so the other sizes are out of sample; then the
 * geometric means (the table ASTRA-sim publishes for its NCCL validation), NCCL's plan per size
 * range and the levels. Host copies are p2p transfers between the node's CPU host and a GPU
 * over PCIe; device-to-device copies are not simulated (HBM is not a link). The fit: per size,
 * the dilation factor whose calibrated simulation comes closest to the measured time
 * (secant steps on repeated simulations).
 *
 * This header is the whole API main.c uses. Behind it, one concept per file: validate.c (the
 * two entry points below), validate_opts.c (validate's options), validate_job.c (a log's rows
 * grouped into jobs), validate_sim.c (a job simulated on its machine, in child processes),
 * validate_fit.c (the fit), validate_table.c (the tables); `dmlsim shapes` and `dmlsim calib`
 * are validate_shapes.h and validate_calib.h, included here. */
#ifndef DMLSIM_VALIDATE_H
#define DMLSIM_VALIDATE_H

#include "calib.h"
#include "error.h"
#include "validate_calib.h"  /* validate_calib_main */
#include "validate_shapes.h" /* validate_shapes_main */

struct cli_args;

int validate_main(const struct cli_args *a);

/* Fits c's network calibration (c->netcal, netcal.h) from its measured collectives (read from
 * `path`, which errors name), each simulated on the machine it was measured on (the catalog GPU
 * `gpu` or the profile's, its intra-node class, the NIC class `nic` or the default for the GPU)
 * in child processes; call
 * before simgrid_init. Does nothing without collectives. c->netcal is then owned by the caller
 * (netcal_release and free). */
enum dmlsim_err validate_fit_network(struct calib *c, const char *path, const char *gpu,
                                     const char *nic, struct dmlsim_error *err);

#endif
