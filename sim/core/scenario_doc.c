/* scenario_doc.c - dmlsim-scenario(5), roff or Markdown, from the DTD and the attribute table. */
#include "scenario_doc.h"

#include "attr_spec.h"
#include "roff.h"
#include "scenario.h"

#include <libxml/tree.h>
#include <libxml/valid.h>

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char dmlsim_scenario_dtd[];
extern const size_t dmlsim_scenario_dtd_len;

#define CELL 1024 /* one field of an attribute's row */

/* The comment written just above "<!ELEMENT name" in the DTD's text, as [*start, *end), or
 * false when there is none. */
static bool element_comment(const char *name, const char **start, const char **end)
{
    const char *dtd = (const char *)dmlsim_scenario_dtd;
    const char *stop = dtd + dmlsim_scenario_dtd_len;
    size_t nlen = strlen(name);
    for (const char *p = dtd; p < stop; p++) {
        if (strncmp(p, "<!ELEMENT ", 10) != 0 || strncmp(p + 10, name, nlen) != 0 ||
            !isspace((unsigned char)p[10 + nlen]))
            continue;
        const char *q = p;
        while (q > dtd && isspace((unsigned char)q[-1]))
            q--;
        if (q - dtd < 3 || strncmp(q - 3, "-->", 3) != 0) return false;
        const char *c = q - 3;
        while (c > dtd && strncmp(c, "<!--", 4) != 0)
            c--;
        *start = c + 4;
        *end = q - 3;
        return true;
    }
    return false;
}

/* s[0..n) as Markdown text: whitespace runs collapsed, `<`, `|`, `*` and `_` escaped. */
static void md_put(FILE *out, const char *s, size_t n)
{
    bool space = false, start = true;
    for (size_t i = 0; i < n; i++) {
        if (isspace((unsigned char)s[i])) {
            space = !start;
            continue;
        }
        if (space) fputc(' ', out);
        space = start = false;
        if (strchr("<|*_", s[i])) fputc('\\', out);
        fputc(s[i], out);
    }
}

/* Text in the page's format, without a newline. */
static void put(FILE *out, enum scenario_doc_format f, const char *s)
{
    if (f == SCENARIO_DOC_ROFF)
        roff_put(out, s, strlen(s));
    else
        md_put(out, s, strlen(s));
}

/* ---- an attribute's fields ---------------------------------------------------------------- */

/* A number of kind k in the units a scenario writes (64MiB, 10ms, 25GBps). */
static void fmt_quantity(char *buf, size_t len, enum unit_kind k, double v)
{
    static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (k == UNIT_SIZE) {
        int i = 0;
        while (i < 4 && v >= 1024 && v / 1024 == (double)(long long)(v / 1024)) {
            v /= 1024;
            i++;
        }
        snprintf(buf, len, "%g%s", v, bin[i]);
    } else if (k == UNIT_TIME) {
        if (v == 0 || v >= 1)
            snprintf(buf, len, "%gs", v);
        else if (v >= 1e-3)
            snprintf(buf, len, "%gms", v * 1e3);
        else
            snprintf(buf, len, "%gus", v * 1e6);
    } else if (k == UNIT_BANDWIDTH) {
        if (v >= 1e9)
            snprintf(buf, len, "%gGBps", v / 1e9);
        else
            snprintf(buf, len, "%gMBps", v / 1e6);
    } else {
        snprintf(buf, len, "%gf", v);
    }
}

static void fmt_type(char *buf, size_t len, const struct attr_spec *s, const xmlAttribute *a)
{
    static const char *const kinds[] = {[UNIT_BANDWIDTH] = "bandwidth (25GBps, 100Gbps)",
                                        [UNIT_TIME] = "time (2us, 1.5s, 1h)",
                                        [UNIT_SIZE] = "size (64MiB, 25MB)",
                                        [UNIT_FLOPRATE] = "FLOP rate (312Tf)"};
    size_t used = 0;
    if (s->type == ATTR_QUANTITY) {
        snprintf(buf, len, "%s", kinds[s->unit]);
    } else if (s->type == ATTR_PRESET) {
        snprintf(buf, len, "name (%s)", attr_catalog_name(s->catalog));
    } else if (s->type == ATTR_CHOICE && a->tree != NULL) {
        used = (size_t)snprintf(buf, len, "one of:");
        for (const xmlEnumeration *e = a->tree; e != NULL && used < len; e = e->next)
            used += (size_t)snprintf(buf + used, len - used, " %s%s", (const char *)e->name,
                                     e->next ? "," : "");
    } else {
        snprintf(buf, len, "%s", attr_type_name(s->type));
    }
}

static void fmt_range(char *buf, size_t len, const struct attr_spec *s)
{
    buf[0] = '\0';
    if (s->range_text != NULL)
        snprintf(buf, len, "%s", s->range_text);
    else if (s->type == ATTR_INT)
        snprintf(buf, len, "[%.0f, %.0f]", s->min, s->max);
    else if (s->type == ATTR_REAL && s->max < UNITS_REAL_CEILING)
        snprintf(buf, len, "%s %g, <= %g", s->min_incl ? ">=" : ">", s->min, s->max);
    else if (s->type == ATTR_REAL)
        snprintf(buf, len, "%s %g", s->min_incl ? ">=" : ">", s->min);
    else if (s->type == ATTR_QUANTITY && s->bound != UNIT_ANY)
        snprintf(buf, len, "%s 0", s->bound == UNIT_POSITIVE ? ">" : ">=");
}

static void fmt_default(char *buf, size_t len, const struct attr_spec *s, const xmlAttribute *a)
{
    if (a->def == XML_ATTRIBUTE_REQUIRED)
        snprintf(buf, len, "required");
    else if (s->def_text != NULL)
        snprintf(buf, len, "%s", s->def_text);
    else if (s->type == ATTR_QUANTITY)
        fmt_quantity(buf, len, s->unit, s->def);
    else
        snprintf(buf, len, "%g", s->def);
}

/* ---- the table against the DTD ------------------------------------------------------------- */

static const xmlAttribute *dtd_attribute(const xmlDtd *dtd, const char *elem, const char *name)
{
    for (const xmlNode *n = dtd->children; n != NULL; n = n->next) {
        const xmlAttribute *a = (const xmlAttribute *)n;
        if (n->type == XML_ATTRIBUTE_DECL && xmlStrEqual(a->elem, (const xmlChar *)elem) &&
            xmlStrEqual(a->name, (const xmlChar *)name))
            return a;
    }
    return NULL;
}

/* A choice's default is one of its values, "none" or "depends: ...". */
static bool choice_default_ok(const struct attr_spec *s, const xmlAttribute *a)
{
    if (s->def_text == NULL) return a->def == XML_ATTRIBUTE_REQUIRED;
    if (attr_spec_depends(s) || strcmp(s->def_text, "none") == 0) return true;
    for (const xmlEnumeration *e = a->tree; e != NULL; e = e->next)
        if (strcmp((const char *)e->name, s->def_text) == 0) return true;
    return false;
}

/* Every DTD attribute has a row and every row a DTD attribute; messages to err. */
static bool check_table(const xmlDtd *dtd, FILE *err)
{
    size_t n, bad = 0;
    const struct attr_spec *specs = attr_specs(&n);
    for (const xmlNode *d = dtd->children; d != NULL; d = d->next) {
        const xmlAttribute *a = (const xmlAttribute *)d;
        if (d->type != XML_ATTRIBUTE_DECL) continue;
        if (attr_spec_find((const char *)a->elem, (const char *)a->name) != NULL) continue;
        fprintf(err,
                "scenarios/scenario.dtd: <%s %s>: no row in the attribute table; expected one in "
                "sim/core/attr_spec.c, such as TEXT(\"%s\", \"%s\", NULL, \"what it is\"),\n",
                a->elem, a->name, a->elem, a->name);
        bad++;
    }
    for (size_t i = 0; i < n; i++) {
        const xmlAttribute *a = dtd_attribute(dtd, specs[i].elem, specs[i].name);
        if (a == NULL)
            fprintf(err,
                    "sim/core/attr_spec.c: <%s %s>: the DTD admits no such attribute; expected "
                    "it in <!ATTLIST %s> of scenarios/scenario.dtd, or no row\n",
                    specs[i].elem, specs[i].name, specs[i].elem);
        else if ((specs[i].type == ATTR_CHOICE) != (a->tree != NULL))
            fprintf(err,
                    "sim/core/attr_spec.c: <%s %s>: the row's type and the DTD's disagree; "
                    "expected CHOICE for an enumeration, another type for CDATA\n",
                    specs[i].elem, specs[i].name);
        else if (specs[i].type == ATTR_CHOICE && !choice_default_ok(&specs[i], a))
            fprintf(err,
                    "sim/core/attr_spec.c: <%s %s>: default \"%s\"; expected one of the DTD's "
                    "values, none or depends: ...\n",
                    specs[i].elem, specs[i].name, specs[i].def_text ? specs[i].def_text : "");
        else
            continue;
        bad++;
    }
    return bad == 0;
}

/* ---- the page ----------------------------------------------------------------------------- */

static void write_attribute(FILE *out, enum scenario_doc_format f, const xmlAttribute *a)
{
    const struct attr_spec *s = attr_spec_get((const char *)a->elem, (const char *)a->name);
    char type[CELL], range[CELL], def[CELL];
    fmt_type(type, sizeof type, s, a);
    fmt_range(range, sizeof range, s);
    fmt_default(def, sizeof def, s, a);
    if (f == SCENARIO_DOC_ROFF) {
        fputs(".TP\n.B ", out);
        put(out, f, s->name);
        fputc('\n', out);
        put(out, f, type);
        if (range[0]) fputs("; ", out), put(out, f, range);
        fputs(strcmp(def, "required") == 0 ? "; " : "; default: ", out);
        put(out, f, def);
        fputs(".\n", out);
        put(out, f, s->meaning);
        fputc('\n', out);
        return;
    }
    fprintf(out, "| `%s` | ", s->name);
    put(out, f, type);
    fputs(" | ", out);
    put(out, f, range);
    fputs(" | ", out);
    put(out, f, def);
    fputs(" | ", out);
    put(out, f, s->meaning);
    fputs(" |\n", out);
}

static void write_element(FILE *out, enum scenario_doc_format f, const xmlDtd *dtd,
                          const xmlElement *el)
{
    char model[2048] = "";
    const char *c0, *c1;
    if (el->etype == XML_ELEMENT_TYPE_EMPTY)
        snprintf(model, sizeof model, "EMPTY");
    else if (el->content != NULL)
        xmlSnprintfElementContent(model, (int)sizeof model, el->content, 1);
    fprintf(out,
            f == SCENARIO_DOC_ROFF ? ".SS \"<%s>\"\nContains: " : "\n### `<%s>`\n\nContains: `",
            (const char *)el->name);
    if (f == SCENARIO_DOC_ROFF)
        put(out, f, model);
    else
        fputs(model, out);
    fputs(f == SCENARIO_DOC_ROFF ? "\n" : "`\n", out);
    if (element_comment((const char *)el->name, &c0, &c1)) {
        fputs(f == SCENARIO_DOC_ROFF ? ".PP\n" : "\n", out);
        if (f == SCENARIO_DOC_ROFF)
            roff_put(out, c0, (size_t)(c1 - c0));
        else
            md_put(out, c0, (size_t)(c1 - c0));
        fputc('\n', out);
    }
    bool first = true;
    for (const xmlNode *n = dtd->children; n != NULL; n = n->next) {
        const xmlAttribute *a = (const xmlAttribute *)n;
        if (n->type != XML_ATTRIBUTE_DECL || !xmlStrEqual(a->elem, el->name)) continue;
        if (first && f == SCENARIO_DOC_MARKDOWN)
            fputs("\n| attribute | type | range | default | meaning |\n|---|---|---|---|---|\n",
                  out);
        first = false;
        write_attribute(out, f, a);
    }
}

static void write_intro(FILE *out, enum scenario_doc_format f, const char *version)
{
    static const char *const intro =
            "A scenario is an XML file whose root is <scenario>; dmlsim validates it against "
            "its DTD (scenarios/scenario.dtd, compiled into dmlsim; the DOCTYPE line is for "
            "editors only), then checks every value. Quantities carry SimGrid-style units "
            "(25GBps, 2us, 64MiB, 312Tf). For each element, in the order the DTD declares them: "
            "what it contains, what it means, and each attribute's type, range, default (or "
            "required, or depends: how the loader computes it) and meaning, from the table the "
            "loader parses with (sim/core/attr_spec.c). The names a preset attribute takes are "
            "listed under PRESETS, from the catalog tables themselves.";
    if (f == SCENARIO_DOC_ROFF) {
        fprintf(out,
                ".\\\" Generated by `dmlsim manpage 5` from the scenario DTD "
                "(scenarios/scenario.dtd) and the attribute table (sim/core/attr_spec.c).\n"
                ".TH DMLSIM-SCENARIO 5 \"\" \"dmlsim %s\" \"File Formats\"\n"
                ".SH NAME\ndmlsim-scenario \\- the dmlsim scenario format\n.SH DESCRIPTION\n",
                version);
        put(out, f, intro);
        fputs("\n.SH ELEMENTS\n", out);
    } else {
        fputs("<!-- Generated by `dmlsim manpage 5 markdown` from scenarios/scenario.dtd and "
              "sim/core/attr_spec.c; do not edit (tests/scenario_ref.sh checks it). -->\n"
              "# The scenario reference: dmlsim-scenario(5)\n\n",
              out);
        put(out, f, intro);
        fputs("\n\n## Elements\n", out);
    }
}

bool scenario_doc_write(FILE *out, enum scenario_doc_format f, const char *version)
{
    xmlDtdPtr dtd = scenario_dtd_parse();
    if (dtd == NULL) return false;
    bool ok = check_table(dtd, stderr);
    if (ok) {
        write_intro(out, f, version);
        for (const xmlNode *n = dtd->children; n != NULL; n = n->next)
            if (n->type == XML_ELEMENT_DECL) write_element(out, f, dtd, (const xmlElement *)n);
        char mixes[CELL] = "";
        const xmlAttribute *a = dtd_attribute(dtd, "campaign", "failures");
        for (const xmlEnumeration *e = a ? a->tree : NULL; e != NULL; e = e->next)
            snprintf(mixes + strlen(mixes), sizeof mixes - strlen(mixes), "%s%s",
                     (const char *)e->name, e->next ? ", " : "");
        scenario_doc_write_presets(out, f, mixes);
        fputs(f == SCENARIO_DOC_ROFF ? ".SH SEE ALSO\n\\fBdmlsim\\fR(1)\n"
                                     : "\n## See also\n\n`dmlsim(1)`: `dmlsim manpage 1`.\n",
              out);
    }
    xmlFreeDtd(dtd);
    return ok;
}

bool scenario_doc_write_man(FILE *out, const char *version)
{
    return scenario_doc_write(out, SCENARIO_DOC_ROFF, version);
}

void scenario_doc_put(FILE *out, enum scenario_doc_format f, const char *s)
{
    put(out, f, s);
}
