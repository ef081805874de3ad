/* scenario_doc.h - the manual page dmlsim-scenario(5), generated from the scenario DTD that dmlsim
 * compiles in (scenarios/scenario.dtd): every element in declaration order with its content
 * model and the comment written above it, and every attribute with its values, whether it is
 * required and its default. Made from the same bytes that validate scenarios, so the page cannot
 * drift from the format. */
#ifndef DMLSIM_SCENARIO_DOC_H
#define DMLSIM_SCENARIO_DOC_H

#include <stdio.h>

/* The compiled-in DTD, parsed (libxml2's xmlDtdPtr; the caller frees it with xmlFreeDtd), or NULL
 * when out of memory. scenario.c validates with it. */
struct _xmlDtd *scenario_dtd_parse(void);

void scenario_doc_write_man(FILE *out, const char *version);

#endif
