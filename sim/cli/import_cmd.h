/* import_cmd.h - `dmlsim import megatron [OPTIONS] -- ARGS...` and `dmlsim import hf [OPTIONS]
 * config.json`: a scenario (stdout, or -o FILE) from a Megatron-LM command line
 * (import_megatron.h) or a Hugging Face config (import_hf.h), its model matched to the presets
 * (import_scen.h). The scenario is one `dmlsim run`, `run --memory-only` and `plan` read. */
#ifndef DMLSIM_IMPORT_CMD_H
#define DMLSIM_IMPORT_CMD_H

#include "cmdline.h"

/* Runs the command; returns the exit status (0, or 1 with one line on stderr). */
int import_main(const struct cli_args *a);

#endif
