/* import_hf.h - a Hugging Face transformers config.json (LlamaForCausalLM, MistralForCausalLM,
 * MixtralForCausalLM, GPT2LMHeadModel) read into an import_model and import_job
 * (import_scen.h). A config describes the model only: the job is import's options (--gpus, ...),
 * data parallelism over every GPU with ZeRO-1 and full recomputation, for `dmlsim plan` to lay
 * out. */
#ifndef DMLSIM_IMPORT_HF_H
#define DMLSIM_IMPORT_HF_H

#include "import_scen.h"

#include <stddef.h>

/* Reads the config at path into *m and *j, notes as import_megatron's, the keys not read into
 * ignored. Returns 0, or -1 with one line, "PATH:LINE: ...", in err. */
int import_hf(const char *path, const struct import_opts *o, struct import_model *m,
              struct import_job *j, char *notes, size_t nlen, char *ignored, size_t ilen, char *err,
              size_t elen);

#endif
