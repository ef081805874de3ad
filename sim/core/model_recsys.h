/* model_recsys.h - recommendation-model presets: embedding tables and the dense layers over them.
 *
 * "dlrm-dcnv2" is MLPerf Training's recommendation benchmark (DLRM with a DCN-v2 interaction, on
 * Criteo 1TB with multi-hot features); "two-tower" a small retrieval model of the seeds'
 * user-restaurant example (a user tower and a restaurant tower over their ID embeddings, scored by
 * a dot product). Their dense layers are built as model.c builds every preset (a GEMM a layer, its
 * activations' memory-bound kernels); their tables are model_add_table's. Sources beside each
 * number in model_recsys.c.
 */
#ifndef DMLSIM_MODEL_RECSYS_H
#define DMLSIM_MODEL_RECSYS_H

#include "model.h"

#include <stdbool.h>

/* Builds preset `name` into m (initialised here) for activations of elem_B bytes, its tables'
 * IDs drawn from `dist` (zipf_s: the exponent for EMB_ZIPF); false when name is not a
 * recommendation preset (m untouched). */
bool model_recsys_preset(const char *name, double elem_B, enum emb_dist dist, double zipf_s,
                         struct model *m);

/* Builds any preset: a recommendation preset (its tables' IDs as g->ids and g->zipf say), else
 * model_preset's. Returns 0, or -1 for an unknown name. */
int model_preset_any(const char *name, const struct gpt_config *g, enum gpu_dtype dtype,
                     struct model *m);

/* Is `name` a recommendation preset? */
bool model_recsys_is(const char *name);

#endif
