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

int validate_main(int argc, char **argv);
int validate_calib_main(int argc, char **argv);
int validate_shapes_main(int argc, char **argv);

#endif
