/* scenario_doc.h - the manual page dmlsim-scenario(5), generated from the scenario DTD that dmlsim
 * compiles in (scenarios/scenario.dtd): every element in declaration order with its content
 * model and the comment written above it, and every attribute with its values, whether it is
 * required and its default. Made from the same bytes that validate scenarios, so the page cannot
 * drift from the format. */
#ifndef DMLSIM_SCENARIO_DOC_H
#define DMLSIM_SCENARIO_DOC_H

#include <stdbool.h>
#include <stdio.h>

/* Writes the page; false (nothing written) when the DTD cannot be parsed (out of memory). */
bool scenario_doc_write_man(FILE *out, const char *version);

#endif
