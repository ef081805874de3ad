/* attr.h - the scenario reader's messages and attribute parsers, shared by every element reader.
 *
 * A `struct reader` travels through the element readers of one scenario_load(): it names the file
 * for messages, holds where the first failure goes, and the built-in DTD. The attribute parsers
 * leave the default in *out when the attribute is absent and report a value they refuse as
 * "FILE:LINE: <elem attr="value">: what is wrong; expected ...", so no element reader formats its
 * own unit or range message. Only the scenario modules (scenario.c, scen_*.c) include this header.
 */
#ifndef DMLSIM_ATTR_H
#define DMLSIM_ATTR_H

#include "scenario_types.h"
#include "units.h"

#include <libxml/tree.h>

#include <stdbool.h>
#include <stddef.h>

/* Defaults and limits that more than one element reader applies (DEFAULT_TIMEOUT_S: scenario_types.h,
 * which the report's warning names too). */
#define MAX_RESTART_S         3600.0 /* <recovery restart-time>: at most an hour */
#define DEFAULT_MAX_RESTARTS  200   /* memberships after the first before a job gives up */
#define MAX_JITTER_SIGMA 4 /* lognormal compute jitter: larger spreads are not a cluster */

#define ATTR_N_OF(a) (sizeof(a) / sizeof(a)[0])

struct reader {
    const char *path;         /* file name used in messages */
    struct dmlsim_error *err; /* where the first failure goes */
    xmlDtdPtr dtd;            /* the built-in scenario DTD */
};

/* The line of node n in its file (0 for NULL). */
long attr_line(xmlNodePtr n);

/* Records "FILE:LINE: what" at n's line as a schema error (DMLSIM_ESCHEMA) and returns its code. */
enum dmlsim_err attr_fail_schema(struct reader *r, xmlNodePtr n, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Records "FILE:LINE: what" at n's line as a value error (DMLSIM_EVALUE) and returns its code. */
enum dmlsim_err attr_fail(struct reader *r, xmlNodePtr n, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Returns a copy of the attribute (caller frees with free) or NULL if absent. */
char *attr_dup(xmlNodePtr n, const char *name);

/* Whether attribute `name` is present and equal to `value`. */
bool attr_is(xmlNodePtr n, const char *name, const char *value);

/* A quantity with units of `kind` within `bound` (units.h), or `def` when absent. */
enum dmlsim_err attr_quantity(struct reader *r, xmlNodePtr n, const char *name,
                              enum unit_kind kind, enum unit_bound bound, double def,
                              double *out);

/* An integer in [min, max], or `def` when absent. */
enum dmlsim_err attr_int(struct reader *r, xmlNodePtr n, const char *name, long min, long max,
                         long def, long *out);

/* A plain number above `min` (or at it, when min_inclusive) and at most UNITS_REAL_CEILING, or
 * `def` when absent. */
enum dmlsim_err attr_real(struct reader *r, xmlNodePtr n, const char *name, double min,
                          bool min_inclusive, double def, double *out);

/* kinds: bit mask of (1 << enum link_kind) accepted; `what` names them in the message. */
enum dmlsim_err attr_link(struct reader *r, xmlNodePtr n, const char *name, unsigned kinds,
                          const char *what, const struct link_class **out);

/* A path as written in the scenario: absolute, or relative to the scenario's folder (a new
 * string). */
char *attr_path(const struct reader *r, const char *file);

/* Which of names[0..n) attribute `name` is (the DTD admits no other), or 0 when absent. */
int attr_choice(xmlNodePtr n, const char *name, const char *const *names, size_t count);

#endif
