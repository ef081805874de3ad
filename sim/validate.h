/* validate.h - the calibration side of the command line: `dmlsim calib` (summarise a profile,
 * write a spec profile), `dmlsim shapes` (the presets' GEMM shapes, for the calibrator) and
 * `dmlsim validate` (simulate every measured collective and copy on a platform describing the
 * measured machine, and compare).
 *
 * validate builds a one-node platform of the profile's GPU count and model (the catalog model
 * named in the profile, or --gpu), GPU-to-GPU over the model's NVLink class (or --intra), runs
 * each measured operation's sizes in a child process (SimGrid allows one engine per process), and
 * prints measured vs simulated time per size with the relative error, then the geometric mean of
 * the errors per operation: the table ASTRA-sim publishes for its NCCL validation. The simulated
 * all-reduce is the ring (NCCL's algorithm for large messages on one node); host copies are p2p
 * transfers between the node's CPU host and a GPU over PCIe; device-to-device copies are not
 * simulated (HBM is not a link). The fitted link latency and bandwidth (calib.h) are printed next
 * to the catalog values they would replace. */
#ifndef DMLSIM_VALIDATE_H
#define DMLSIM_VALIDATE_H

#include "calib.h"
#include "error.h"

int validate_main(int argc, char **argv);

/* Fits c's network calibration (c->netcal, netcal.h) from its measured collectives (read from
 * `path`, which errors name), each
 * simulated on the machine it was measured on (the catalog GPU `gpu` or the profile's, its
 * intra-node class, the NIC class `nic` or the default for the GPU) in child processes; call
 * before simgrid_init. Does nothing without collectives. c->netcal is then owned by the caller
 * (netcal_release and free). */
enum dmlsim_err validate_fit_network(struct calib *c, const char *path, const char *gpu,
                                     const char *nic, struct dmlsim_error *err);
int validate_calib_main(int argc, char **argv);
int validate_shapes_main(int argc, char **argv);

#endif
