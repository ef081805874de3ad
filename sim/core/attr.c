/* attr.c - the scenario reader's messages and attribute parsers (see attr.h). */
#include "attr.h"

#include "mem.h"
#include "units.h"

#include <assert.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ----------------------------------------------------------------------------- */

long attr_line(xmlNodePtr n)
{
    return n ? xmlGetLineNo(n) : 0;
}

static enum dmlsim_err failv(struct reader *r, enum dmlsim_err code, long line, const char *fmt,
                             va_list ap)
{
    char what[3072];
    vsnprintf(what, sizeof what, fmt, ap);
    return dmlsim_fail(r->err, code, "%s:%ld: %s", r->path, line, what);
}

enum dmlsim_err attr_fail_schema(struct reader *r, xmlNodePtr n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum dmlsim_err rc = failv(r, DMLSIM_ESCHEMA, attr_line(n), fmt, ap);
    va_end(ap);
    return rc;
}

enum dmlsim_err attr_fail(struct reader *r, xmlNodePtr n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum dmlsim_err rc = failv(r, DMLSIM_EVALUE, attr_line(n), fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- attributes --------------------------------------------------------------------------- */

/* Returns a copy of the attribute (caller frees with free) or NULL if absent. */
char *attr_dup(xmlNodePtr n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (v == NULL) return NULL;
    char *s = mem_strdup((const char *)v);
    xmlFree(v);
    return s;
}

/* Whether attribute `name` is present and equal to `value`. */
bool attr_is(xmlNodePtr n, const char *name, const char *value)
{
    char *a = attr_dup(n, name);
    bool is = a && strcmp(a, value) == 0;
    free(a);
    return is;
}

enum dmlsim_err attr_quantity(struct reader *r, xmlNodePtr n, const char *name, enum unit_kind kind,
                              enum unit_bound bound, double def, double *out)
{
    char *v = attr_dup(n, name);
    enum dmlsim_err rc = DMLSIM_OK;
    if (v == NULL) {
        *out = def;
        return DMLSIM_OK;
    }
    static const char *const si[] = {
            [UNIT_BANDWIDTH] = "Bps", [UNIT_TIME] = "s", [UNIT_SIZE] = "B", [UNIT_FLOPRATE] = "f"};
    enum unit_status st = units_parse(v, kind, bound, out);
    if (st == UNIT_ECEILING)
        rc = attr_fail(r, n, "<%s %s=\"%s\">: above the ceiling; expected at most %g%s",
                       (const char *)n->name, name, v, units_ceiling(kind), si[kind]);
    else if (st != UNIT_OK)
        rc = attr_fail(r, n, "<%s %s=\"%s\">: %s; expected %s", (const char *)n->name, name, v,
                       units_status_str(st), units_expected(kind));
    free(v);
    return rc;
}

enum dmlsim_err attr_int(struct reader *r, xmlNodePtr n, const char *name, long min, long max,
                         long def, long *out)
{
    char *v = attr_dup(n, name);
    enum dmlsim_err rc = DMLSIM_OK;
    if (v == NULL) {
        *out = def;
        return DMLSIM_OK;
    }
    if (units_parse_long(v, min, max, out) != 0)
        rc = attr_fail(r, n, "<%s %s=\"%s\">: expected an integer from %ld to %ld",
                       (const char *)n->name, name, v, min, max);
    free(v);
    return rc;
}

enum dmlsim_err attr_real(struct reader *r, xmlNodePtr n, const char *name, double min,
                          bool min_inclusive, double def, double *out)
{
    char *v = attr_dup(n, name);
    enum dmlsim_err rc = DMLSIM_OK;
    if (v == NULL) {
        *out = def;
        return DMLSIM_OK;
    }
    if (units_parse_real(v, out) != 0 || (min_inclusive ? *out < min : *out <= min) ||
        *out > UNITS_REAL_CEILING)
        rc = attr_fail(r, n, "<%s %s=\"%s\">: expected a number %s %g and at most %g",
                       (const char *)n->name, name, v, min_inclusive ? ">=" : ">", min,
                       UNITS_REAL_CEILING);
    free(v);
    return rc;
}

/* kinds: bit mask of (1 << enum link_kind) accepted; `what` names them in the message. */
enum dmlsim_err attr_link(struct reader *r, xmlNodePtr n, const char *name, unsigned kinds,
                          const char *what, const struct link_class **out)
{
    char *v = attr_dup(n, name);
    enum dmlsim_err rc = DMLSIM_OK;
    if (v == NULL) return DMLSIM_OK; /* *out keeps the caller's default */
    const struct link_class *lc = catalog_link(v);
    if (lc == NULL || !(kinds & (1u << lc->kind))) {
        char names[512];
        size_t count, used = 0;
        const struct link_class *all = catalog_links(&count);
        names[0] = '\0';
        for (size_t i = 0; i < count; i++) {
            if (!(kinds & (1u << all[i].kind))) continue;
            int k = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                             all[i].name);
            if (k > 0 && (size_t)k < sizeof names - used) used += (size_t)k;
        }
        rc = attr_fail(r, n, "<%s %s=\"%s\">: %s link class; expected %s: %s",
                       (const char *)n->name, name, v, lc ? "wrong" : "unknown", what, names);
    } else {
        *out = lc;
    }
    free(v);
    return rc;
}

/* A path as written in the scenario: absolute, or relative to the scenario's folder (a new
 * string). */
char *attr_path(const struct reader *r, const char *file)
{
    if (file[0] == '/') return mem_strdup(file);
    const char *slash = strrchr(r->path, '/');
    int dirlen = slash ? (int)(slash - r->path) : 1;
    return mem_printf("%.*s/%s", dirlen, slash ? r->path : ".", file);
}

/* Which of names[0..n) attribute `name` is (the DTD admits no other), or 0 when absent. */
int attr_choice(xmlNodePtr n, const char *name, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (attr_is(n, name, names[i])) return (int)i;
    return 0;
}

/* ---- parsers driven by the attribute table ------------------------------------------------ */

static const struct attr_spec *spec_of(xmlNodePtr n, const char *name)
{
    return attr_spec_get((const char *)n->name, name);
}

static long as_long(double v)
{
    return v >= (double)LONG_MAX ? LONG_MAX : (long)v;
}

enum dmlsim_err attr_get_int_within(struct reader *r, xmlNodePtr n, const char *name, long max,
                                    long def, long *out)
{
    const struct attr_spec *s = spec_of(n, name);
    assert(s->type == ATTR_INT);
    return attr_int(r, n, name, (long)s->min, max, def, out);
}

enum dmlsim_err attr_get_int_def(struct reader *r, xmlNodePtr n, const char *name, long def,
                                 long *out)
{
    return attr_get_int_within(r, n, name, as_long(spec_of(n, name)->max), def, out);
}

enum dmlsim_err attr_get_int(struct reader *r, xmlNodePtr n, const char *name, long *out)
{
    return attr_get_int_def(r, n, name, (long)spec_of(n, name)->def, out);
}

enum dmlsim_err attr_get_real(struct reader *r, xmlNodePtr n, const char *name, double *out)
{
    const struct attr_spec *s = spec_of(n, name);
    assert(s->type == ATTR_REAL);
    return attr_real(r, n, name, s->min, s->min_incl, s->def, out);
}

enum dmlsim_err attr_get_quantity_def(struct reader *r, xmlNodePtr n, const char *name, double def,
                                      double *out)
{
    const struct attr_spec *s = spec_of(n, name);
    assert(s->type == ATTR_QUANTITY);
    return attr_quantity(r, n, name, s->unit, s->bound, def, out);
}

enum dmlsim_err attr_get_quantity(struct reader *r, xmlNodePtr n, const char *name, double *out)
{
    return attr_get_quantity_def(r, n, name, spec_of(n, name)->def, out);
}

double attr_get_max(xmlNodePtr n, const char *name)
{
    return spec_of(n, name)->max;
}

int attr_get_choice(xmlNodePtr n, const char *name, const char *const *names, size_t count)
{
    const struct attr_spec *s = spec_of(n, name);
    char *v = attr_dup(n, name);
    const char *want = v ? v : s->def_text;
    int found = 0;
    for (size_t i = 0; want && i < count; i++)
        if (strcmp(want, names[i]) == 0) found = (int)i;
    free(v);
    return found;
}

bool attr_get_is(xmlNodePtr n, const char *name, const char *value)
{
    const struct attr_spec *s = spec_of(n, name);
    char *v = attr_dup(n, name);
    const char *is = v ? v : s->def_text;
    bool eq = is && strcmp(is, value) == 0;
    free(v);
    return eq;
}
