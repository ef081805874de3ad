/* platform_gen.h - what the platform generator shares with the memory estimate (internal to the
 * platform module; platform_write and the rest of the generator's API are in platform.h).
 *
 * A generated cluster is zones: worker nodes, then parameter-server machines, then the store,
 * then the SHARP switch; between them either every pair is routed explicitly (a Full zone) or,
 * above 256 machines of a plain star, SimGrid routes a star itself (Dijkstra). The memory
 * estimate (platform_mem.h) counts the same zones and routes without writing anything.
 */
#ifndef DMLSIM_PLATFORM_GEN_H
#define DMLSIM_PLATFORM_GEN_H

#include "scenario.h"

#include <stdbool.h>

/* The cluster's machines as zones: nodes, parameter servers, storage (with a network), SHARP. */
int platform_gen_zone_count(const struct cluster_spec *c);

/* Whether the machines of cluster c, with np partitions, are joined by a Dijkstra-routed star. */
bool platform_gen_star_routed(const struct cluster_spec *c, int np);

#endif
