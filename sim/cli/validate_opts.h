/* validate_opts.h - `dmlsim validate`'s options: the machine to simulate on and what the user
 * states about the log (internal to validate*.c).
 *
 * --algo names NCCL's algorithms as NCCL_ALGO does (the measured run could have forced them), and
 * the textbook ones by their scenario names, with ring and tree as textbook-ring and
 * textbook-tree; --proto and --channels are NCCL_PROTO and NCCL_MAX_NCHANNELS, NCCL's alone.
 * --op, --nranks and --nodes are statements about the log that calib.h checks against it. The
 * environment variable DMLSIM_VALIDATE_LEVEL (message or flow) runs every size at one level, for
 * tests.
 */
#ifndef DMLSIM_VALIDATE_OPTS_H
#define DMLSIM_VALIDATE_OPTS_H

#include "cmdline.h"
#include "validate_sim.h"

#include <stddef.h>

/* validate's options: the machine (all but the GPU, which the profile may name) and what the
 * user states about the log; 0, or 1 with the message printed. */
int validate_opts_parse(const struct cli_args *a, struct validate_machine *mc,
                        struct calib_opts *o);

/* "nccl: NCCL's own choice per size" or "nccl with NCCL_ALGO=ring NCCL_PROTO=Simple
 * NCCL_MAX_NCHANNELS=8 (--algo, --proto, --channels)" or "the textbook ring (not calibrated)". */
const char *validate_opts_describe_algo(const struct validate_machine *mc, char *buf, size_t len);

#endif
