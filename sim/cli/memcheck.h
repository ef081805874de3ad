/* memcheck.h - `dmlsim run --memory-only`: every rank group's memory per GPU, no simulation.
 *
 * Reads only the scenario and the catalog: the GPU of <cluster> (its memory), the workers, the
 * model and the layout. Under strategy="hybrid" each pipeline stage is a rank group (every rank
 * of a stage needs the same: par_memory_stages), one "# memory/gpu" line each; under the other
 * strategies every GPU holds the whole model (model_memory), one line. The SimGrid platform is
 * not built, so a <platform> file, whose GPUs only SimGrid knows, is refused.
 */
#ifndef DMLSIM_MEMCHECK_H
#define DMLSIM_MEMCHECK_H

#include "error.h"
#include "scenario.h"

/* Prints sc's memory lines on stdout. DMLSIM_OK when it fits; else the out-of-memory error
 * (the strategy's own FILE:LINE message, with the smallest set of changes that fits), or a
 * FILE:LINE error for what the check cannot read, in err. */
enum dmlsim_err memcheck_run(const struct scenario *sc, struct dmlsim_error *err);

/* The "# tables" line: the embedding tables, their memory, and where they are (on every GPU,
 * or on the parameter server's shards), for `need` (model_memory_placed's). */
void memcheck_print_tables(const struct scenario *sc, const struct model *m,
                           const struct memory_need *need);

#endif
