/* scen_data.h - reads <data> (the input pipeline) and <numerics> (the real network trained).
 *
 * <data>: the dataset, its format's shards, where it lives, its cache tier and the loader.
 * <numerics>: the MLP trained on real samples, whose gradients the collectives carry.
 */
#ifndef DMLSIM_SCEN_DATA_H
#define DMLSIM_SCEN_DATA_H

#include "attr.h"

/* <numerics> into *nm. */
enum dmlsim_err scen_data_read_numerics(struct reader *r, xmlNodePtr n, struct numerics_spec *nm);

/* <data> into sc->train.data, seeded with sc->seed. */
enum dmlsim_err scen_data_read(struct reader *r, xmlNodePtr n, struct scenario *sc);

#endif
