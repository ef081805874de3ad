/* import_megatron.h - a Megatron-LM command line (pretrain_gpt.py's arguments, with torchrun's
 * --nnodes and --nproc-per-node) read into an import_model and import_job (import_scen.h). The
 * arguments that set the model, the layout, the batch, the precision, recomputation and the
 * distributed optimizer are read with Megatron-LM's defaults (megatron/training/arguments.py);
 * every other one is returned, for one line on stderr. */
#ifndef DMLSIM_IMPORT_MEGATRON_H
#define DMLSIM_IMPORT_MEGATRON_H

#include "import_scen.h"

#include <stddef.h>

/* Reads argv[0 .. argc-1] into *m and *j (with o's cluster), a sentence per departure from
 * Megatron-LM's model into notes, the arguments not read into ignored (space-separated). Returns
 * 0, or -1 with a one-line message in err. */
int import_megatron(int argc, char *const *argv, const struct import_opts *o,
                    struct import_model *m, struct import_job *j, char *notes, size_t nlen,
                    char *ignored, size_t ilen, char *err, size_t elen);

#endif
