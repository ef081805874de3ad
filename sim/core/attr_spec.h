/* attr_spec.h - the scenario attributes' table: each one's type, unit, range, default, meaning.
 *
 * One row per attribute the DTD admits (scenarios/scenario.dtd), in the DTD's order. The element
 * readers parse numbers through it (attr_get_int, attr_get_real, attr_get_quantity in attr.h take
 * the range and the default from the row of <element attribute>), and dmlsim-scenario(5) and
 * docs/scenario-reference.md print it (scenario_doc.c), so a default or a range is written once.
 * Which values an enumeration admits and whether an attribute is required stay the DTD's, which
 * libxml2 validates; the row gives the enumeration's default and meaning. Adding an attribute is
 * one row here and one line in the DTD's ATTLIST; `dmlsim manpage 5` refuses a DTD attribute
 * without a row, or a row without a DTD attribute, naming what to add.
 */
#ifndef DMLSIM_ATTR_SPEC_H
#define DMLSIM_ATTR_SPEC_H

#include "units.h"

#include <stdbool.h>
#include <stddef.h>

/* Defaults and limits that more than one row or reader applies (attr.h's readers see them too). */
#define MAX_RESTART_S        3600.0 /* <recovery restart-time>: at most an hour */
#define DEFAULT_MAX_RESTARTS 200 /* memberships after the first before a job gives up */
#define MAX_JITTER_SIGMA     4   /* lognormal compute jitter: larger spreads are not a cluster */

/* What an attribute's value is. */
enum attr_type {
    ATTR_TEXT,     /* free text, checked by its reader (a name, a list, a host) */
    ATTR_INT,      /* an integer in [min, max] */
    ATTR_REAL,     /* a plain number above min (or at it: min_incl), at most max */
    ATTR_QUANTITY, /* a number with a unit of kind `unit` (25GBps, 2us, 64MiB), bound `bound` */
    ATTR_CHOICE,   /* one of the DTD's enumeration */
    ATTR_PATH,     /* a file or folder, absolute or relative to the scenario's folder */
    ATTR_PRESET,   /* the name of a row of a catalog table (`catalog`) */
};

/* Which catalog table an ATTR_PRESET names (scenario_doc.c lists each one's rows). */
enum attr_catalog {
    ACAT_NONE,
    ACAT_MODEL,     /* model presets (model.h, model_recsys.h) */
    ACAT_GPU,       /* GPU models (catalog.h) */
    ACAT_LINK,      /* link classes (catalog.h) */
    ACAT_TRANSPORT, /* parameter-server transports (catalog.h) */
    ACAT_DATASET,   /* input datasets (catalog.h) */
    ACAT_ALGO,      /* collective algorithms (coll_op.h) */
    ACAT_COUNT
};

struct attr_spec {
    const char *elem;          /* the element, as the DTD names it */
    const char *name;          /* the attribute */
    enum attr_type type;       /* what its value is */
    enum unit_kind unit;       /* ATTR_QUANTITY: the kind of unit */
    enum unit_bound bound;     /* ATTR_QUANTITY: > 0 or >= 0 */
    double min, max;           /* ATTR_INT: [min, max]; ATTR_REAL: above min, at most max */
    bool min_incl;             /* ATTR_REAL: min itself admitted */
    const char *range_text;    /* the range in words where the reader computes it, or NULL */
    enum attr_catalog catalog; /* ATTR_PRESET: which table */
    double def;                /* the default of a number when def_text is NULL */
    const char *def_text;      /* the default in words: a choice's value, "none", or "depends:
                                  ..." when the reader computes it (the reader then passes it) */
    const char *meaning;       /* one line */
};

/* The table, in the DTD's order: *n rows. */
const struct attr_spec *attr_specs(size_t *n);

/* The row of <elem name>, or NULL. */
const struct attr_spec *attr_spec_find(const char *elem, const char *name);

/* The row of <elem name>, which must exist (a missing one is a bug: an assert). */
const struct attr_spec *attr_spec_get(const char *elem, const char *name);

/* Whether the default is computed by the reader ("depends: ..."). */
bool attr_spec_depends(const struct attr_spec *s);

/* The name of a type and of a catalog table, for the reference. */
const char *attr_type_name(enum attr_type t);
const char *attr_catalog_name(enum attr_catalog c);

#endif
