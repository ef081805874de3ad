/* scenario.h - a scenario file read into plain data, checked once, up front.
 *
 * scenario_load() parses the XML with libxml2, validates it against scenarios/scenario.dtd (built
 * into the binary, so a scenario's own DOCTYPE is never fetched), then checks every value: units,
 * ranges, catalog names, cross-field rules. The first problem found stops the load with one
 * message "FILE:LINE: ..." naming what was wrong and what was expected. Unknown elements and
 * attributes are errors, reported before the DTD's own messages so they can list what is allowed.
 *
 * After a successful load the XML tree is gone: every string is copied into `struct scenario`,
 * which the caller releases with scenario_release().
 *
 * The data itself is declared in scenario_types.h (included here). The loader (scenario.c) runs the
 * checks in order and hands each element to its reader: scen_cluster.h, scen_train.h, scen_data.h,
 * scen_fault.h, over the messages and attribute parsers of attr.h; scen_check.h finds unknown names.
 */
#ifndef DMLSIM_SCENARIO_H
#define DMLSIM_SCENARIO_H

#include "error.h"
#include "model.h"
#include "scenario_types.h"

#include <stddef.h>

/* A command-line override "element.attribute=value", applied to the first such element before
 * validation (command line > scenario XML > defaults). */
struct scenario_override {
    const char *path;  /* "element.attribute" */
    const char *value; /* new value; NULL removes the attribute (--unset) */
};

/* The compiled-in DTD, parsed (libxml2's xmlDtdPtr; the caller frees it with xmlFreeDtd), or NULL
 * when out of memory: what scenarios are validated against and dmlsim-scenario(5) is made from. */
struct _xmlDtd *scenario_dtd_parse(void);

/* Loads and checks `path` into `sc` (zeroed first). On failure returns the code, fills `err`, and
 * leaves `sc` empty (nothing to release). */
enum dmlsim_err scenario_load(const char *path, struct scenario *sc, struct dmlsim_error *err);

/* scenario_load with overrides; an override naming an element the scenario lacks is an error. */
enum dmlsim_err scenario_load_with(const char *path, const struct scenario_override *ov, size_t nov,
                                   struct scenario *sc, struct dmlsim_error *err);

struct _xmlDoc; /* libxml2's document (xmlDocPtr is struct _xmlDoc *) */

/* The overrides applied to a scenario document read from `path` (libxml2's xmlDocPtr), as
 * scenario_load_with applies them before validation (`dmlsim plan` writes its layouts' scenarios
 * so); DMLSIM_OK, or the override's one-line error in err. */
enum dmlsim_err scenario_override_doc(const char *path, struct _xmlDoc *doc,
                                      const struct scenario_override *ov, size_t nov,
                                      struct dmlsim_error *err);

/* Builds the scenario's model (preset or explicit) for its training dtype into `m`. */
void scenario_build_model(const struct scenario *sc, struct model *m);

/* Frees what scenario_load allocated; `sc` may be zeroed or already released. */
void scenario_release(struct scenario *sc);

/* Invariants of a loaded scenario, for asserts. */
bool scenario_is_sane(const struct scenario *sc);

#endif
