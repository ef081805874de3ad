/* hybrid_desc.h - the hybrid strategy's configuration lines: its layout, its options and the
 * memory a GPU needs (`# training` and `# memory/gpu`), printed before the run. */
#ifndef DMLSIM_HYBRID_DESC_H
#define DMLSIM_HYBRID_DESC_H

#include "job.h"

#include <stdio.h>

/* The strategy table's describe (strategy.h) for strategy="hybrid". */
void hybrid_describe(const struct job *j, FILE *out);

#endif
