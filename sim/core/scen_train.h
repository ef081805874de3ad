/* scen_train.h - reads <model> and <training> with its <ps> and <parallel> children.
 *
 * What is trained and how: the model (a preset or explicit layers), the strategy, batch, steps,
 * dtype, optimizer, framework costs, the parameter-server layout and the parallel dimensions.
 * <training>'s <data> and <numerics> children are read by scen_data.h.
 */
#ifndef DMLSIM_SCEN_TRAIN_H
#define DMLSIM_SCEN_TRAIN_H

#include "attr.h"

/* <model> into sc->model. */
enum dmlsim_err scen_train_read_model(struct reader *r, xmlNodePtr n, struct scenario *sc);

/* <training> and its children into sc->train; needs the <model> read before it, if any. */
enum dmlsim_err scen_train_read(struct reader *r, xmlNodePtr n, struct scenario *sc);

#endif
