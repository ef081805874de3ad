/* par_stages.h - uneven pipeline stages: how many transformer blocks each stage holds, as
 * Megatron-Core splits them (first-stage-layers, last-stage-layers, stage-layers,
 * account-for-embedding, account-for-loss of <parallel>; the rule: par_stages.c).
 */
#ifndef DMLSIM_PAR_STAGES_H
#define DMLSIM_PAR_STAGES_H

#include "scenario.h"

#include <stdbool.h>
#include <stddef.h>

/* Uneven stages (par_stages.c, Megatron-Core's rule): is any of first-stage-layers,
 * last-stage-layers, stage-layers, account-for-embedding or account-for-loss set? */
bool par_uneven(const struct parallel_spec *p);

/* Transformer blocks of virtual stage vs, and of stage s (its chunks together), of a model of
 * `blocks` blocks under p (valid: par_stages_ok). */
int par_vstage_blocks(const struct parallel_spec *p, int blocks, int vs);
int par_stage_blocks(const struct parallel_spec *p, int blocks, int s);

/* Does p's stage split fit `blocks` blocks (evenly divisible, or its uneven first, last or
 * listed stages consistent)? If not, false and, in why (may be NULL), what is wrong. */
bool par_stages_ok(const struct parallel_spec *p, int blocks, char *why, size_t len);

/* Each stage's blocks, "19,20,21,20", into buf. */
void par_stages_describe(const struct parallel_spec *p, int blocks, char *buf, size_t len);

#endif
