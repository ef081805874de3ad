/* scenario_doc.h - the scenario reference, dmlsim-scenario(5), made from the DTD and attr_spec.h.
 *
 * Every element of the DTD that dmlsim compiles in (scenarios/scenario.dtd), in declaration order,
 * with its content model and the comment written above it; every attribute with its type, unit,
 * range, default and meaning from the table the loader parses with (attr_spec.h); then every
 * catalog table's rows (model presets, GPUs, link classes, transports, datasets, algorithms,
 * failure mixes), read from the tables themselves. So the page cannot drift from the format or
 * from what the loader does. The same text comes as roff or as Markdown.
 */
#ifndef DMLSIM_SCENARIO_DOC_H
#define DMLSIM_SCENARIO_DOC_H

#include <stdbool.h>
#include <stdio.h>

enum scenario_doc_format { SCENARIO_DOC_ROFF, SCENARIO_DOC_MARKDOWN };

/* Writes the page in format f. False, with nothing written, when the DTD cannot be parsed (out of
 * memory) or when the attribute table and the DTD disagree (an attribute without a row, a row
 * without an attribute: one line each on stderr saying what to add). */
bool scenario_doc_write(FILE *out, enum scenario_doc_format f, const char *version);

/* scenario_doc_write(out, SCENARIO_DOC_ROFF, version). */
bool scenario_doc_write_man(FILE *out, const char *version);

/* The PRESETS section; mixes: the failure mixes' names, "a, b" (the DTD's enumeration). */
void scenario_doc_write_presets(FILE *out, enum scenario_doc_format f, const char *mixes);

/* Text in format f (escaped, whitespace collapsed), without a newline. */
void scenario_doc_put(FILE *out, enum scenario_doc_format f, const char *s);

#endif
