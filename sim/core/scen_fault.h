/* scen_fault.h - reads <checkpoint>, <recovery>, the children of <faults>, and <expect>.
 *
 * What goes wrong in a run and how it recovers, and the ranges its metrics must fall in. A fault
 * child is checked against the <training> read before it (its steps, its <data> for pipeline
 * faults); it is kept in sc->faults only (the fault plan, fault.h, is what a run plays).
 */
#ifndef DMLSIM_SCEN_FAULT_H
#define DMLSIM_SCEN_FAULT_H

#include "attr.h"

/* <checkpoint> into sc->ckpt. */
enum dmlsim_err scen_fault_read_checkpoint(struct reader *r, xmlNodePtr n, struct scenario *sc);

/* <recovery> into sc->rec. */
enum dmlsim_err scen_fault_read_recovery(struct reader *r, xmlNodePtr n, struct scenario *sc);

/* One child of <faults>, appended to sc->faults. */
enum dmlsim_err scen_fault_read(struct reader *r, xmlNodePtr n, struct scenario *sc);

/* <expect>, appended to sc->expects. */
enum dmlsim_err scen_fault_read_expect(struct reader *r, xmlNodePtr n, struct scenario *sc);

#endif
