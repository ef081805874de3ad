/* scen_cluster.h - reads <cluster>, <platform> and <benchmark>, and a collective's attributes.
 *
 * What the simulated machines are (a generated cluster or a platform file) and what a benchmark
 * measures on them. The collective attributes (algo, nccl-algo, proto, channels, level, gpus,
 * chunks) are shared by <benchmark kind="collective"> and <training>.
 */
#ifndef DMLSIM_SCEN_CLUSTER_H
#define DMLSIM_SCEN_CLUSTER_H

#include "attr.h"

/* <cluster> into *c: its node (gpu, intra, pcie), network and topology. */
enum dmlsim_err scen_cluster_read(struct reader *r, xmlNodePtr n, struct cluster_spec *c);

/* <platform file>: sc->platform_file, resolved against the scenario's folder. */
enum dmlsim_err scen_cluster_read_platform(struct reader *r, xmlNodePtr n, struct scenario *sc);

/* <benchmark> into sc->bench; needs the <cluster> or <platform> read before it. */
enum dmlsim_err scen_cluster_read_benchmark(struct reader *r, xmlNodePtr n, struct scenario *sc);

/* algo, nccl-algo, proto, channels, level, gpus, chunks of n, for collective `op`. */
enum dmlsim_err scen_cluster_coll_attrs(struct reader *r, xmlNodePtr n, enum coll_op op,
                                        enum coll_algo_id *algo, struct nccl_opts *nccl,
                                        enum coll_level *level, int *gpus, int *chunks);

#endif
