/* scen_store.h - reads <storage> (a named store: a preset and the attributes over it) and the
 * store="NAME" references of <data> and <checkpoint>. */
#ifndef DMLSIM_SCEN_STORE_H
#define DMLSIM_SCEN_STORE_H

#include "attr.h"

/* <storage> into sc->stores. */
enum dmlsim_err scen_store_read(struct reader *r, xmlNodePtr n, struct scenario *sc);

/* n's store="NAME" (element `elem` for the messages): *id = 1 + the store's index, or 0 when
 * absent. An unknown name, or a second local store (a node has one NVMe), is an error. The DTD
 * puts <storage> before <training> and <checkpoint>, so every store is known here. */
enum dmlsim_err scen_store_ref(struct reader *r, xmlNodePtr n, const struct scenario *sc,
                               const char *elem, int *id);

#endif
