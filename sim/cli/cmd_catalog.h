/* cmd_catalog.h - `dmlsim catalog`: the built-in catalog printed, with each value's source.
 *
 * Link classes (effective per-direction bandwidth, hop latency), GPUs (dense peaks per dtype,
 * memory, links), the GEMM model's SMs and ceilings, the CPU host and switch constants, and the
 * parameter server's transports: what a scenario can name (catalog.h), in nccl-tests-style
 * tables, so a user can check a number against its cited source. `dmlsim catalog stores`: the
 * storage presets (storage.h) instead.
 */
#ifndef DMLSIM_CMD_CATALOG_H
#define DMLSIM_CMD_CATALOG_H

#include "cmdline.h"

/* Prints the catalog (a's argument "stores": the storage presets) on stdout; returns 0, or 1 for
 * an unknown table. */
int cmd_catalog_main(const struct cli_args *a);

#endif
