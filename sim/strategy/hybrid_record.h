/* hybrid_record.h - the hybrid strategy's figures into its run record once the simulation ended: a
 * rank's mean step breakdown, MFU, tokens/s, the bytes of each group on each link class and the
 * memory per GPU (internal to hybrid.c). */
#ifndef DMLSIM_HYBRID_RECORD_H
#define DMLSIM_HYBRID_RECORD_H

#include "hybrid_state.h"

/* c's per-step figures into rec's hybrid part; `full` is the whole model (the MFU's FLOPs). */
void hybrid_record(struct hy_ctx *c, struct run_record *rec, const struct model *full);

#endif
