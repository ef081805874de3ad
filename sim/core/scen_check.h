/* scen_check.h - a scenario's structure against the DTD: unknown elements and attributes, by name.
 *
 * Runs before libxml2's validator so that a message can list what is allowed where the unknown
 * name stands; also refuses control characters in attribute values and a DOCTYPE's internal
 * subset (whose declarations would change defaults or define entities).
 */
#ifndef DMLSIM_SCEN_CHECK_H
#define DMLSIM_SCEN_CHECK_H

#include "attr.h"

/* A DOCTYPE with declarations inside it is refused (DMLSIM_ESCHEMA); none, or one naming the DTD,
 * passes. */
enum dmlsim_err scen_check_doctype(struct reader *r, xmlDocPtr doc);

/* Every element below `parent` and every attribute on them is declared in r->dtd, and every
 * attribute value is printable; else DMLSIM_ESCHEMA with what is allowed there. */
enum dmlsim_err scen_check_names(struct reader *r, xmlNodePtr parent);

#endif
