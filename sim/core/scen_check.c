/* scen_check.c - unknown elements and attributes, control characters, internal DTD subsets (see
 * scen_check.h). */
#include "scen_check.h"

#include <libxml/valid.h>

#include <stdio.h>
#include <string.h>

/* ---- structure: unknown elements and attributes ------------------------------------------- */

static void content_names(xmlElementContentPtr c, char *buf, size_t len, size_t *used)
{
    if (c == NULL) return;
    if (c->type == XML_ELEMENT_CONTENT_ELEMENT) {
        int k = snprintf(buf + *used, len - *used, "%s<%s>", *used ? ", " : "", c->name);
        if (k > 0 && (size_t)k < len - *used) *used += (size_t)k;
        return;
    }
    content_names(c->c1, buf, len, used);
    content_names(c->c2, buf, len, used);
}

/* An attribute's value holds no control character (a &#10; or &#27; reference would reach the
 * terminal and break the outputs' "#" header lines). */
static enum dmlsim_err check_printable(struct reader *r, xmlNodePtr n, xmlAttrPtr a)
{
    xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
    int bad = -1;
    for (const xmlChar *p = v; p && *p && bad < 0; p++)
        if (*p < 0x20 || *p == 0x7f) bad = *p;
    xmlFree(v);
    if (bad < 0) return DMLSIM_OK;
    return attr_fail_schema(r, n,
                            "attribute %s on <%s> holds control character 0x%02x; expected "
                            "printable text",
                            (const char *)a->name, (const char *)n->name, bad);
}

/* A DOCTYPE may name the DTD, but declarations inside it (an internal subset) would change
 * defaults or define entities: refused, never applied. */
enum dmlsim_err scen_check_doctype(struct reader *r, xmlDocPtr doc)
{
    if (doc->intSubset == NULL || doc->intSubset->children == NULL) return DMLSIM_OK;
    int line = 1; /* the line of <!DOCTYPE, for the message */
    char buf[4096];
    FILE *f = fopen(r->path, "r");
    for (int ln = 1; f && ln < 100000 && fgets(buf, sizeof buf, f); ln += strchr(buf, '\n') != NULL)
        if (strstr(buf, "<!DOCTYPE ")) {
            line = ln;
            break;
        }
    if (f) fclose(f);
    return dmlsim_fail(r->err, DMLSIM_ESCHEMA,
                       "%s:%d: <!DOCTYPE> with an internal subset [...]: its declarations would "
                       "change defaults or define entities, and are not read; expected "
                       "<!DOCTYPE scenario SYSTEM \"scenario.dtd\"> or none",
                       r->path, line);
}

enum dmlsim_err scen_check_names(struct reader *r, xmlNodePtr parent)
{
    for (xmlNodePtr n = parent->children; n != NULL; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        xmlElementPtr decl = xmlGetDtdElementDesc(r->dtd, n->name);
        if (decl == NULL) {
            char allowed[256] = "nothing";
            size_t used = 0;
            xmlElementPtr pdecl = parent->type == XML_ELEMENT_NODE
                                          ? xmlGetDtdElementDesc(r->dtd, parent->name)
                                          : NULL;
            if (pdecl != NULL && pdecl->content != NULL)
                content_names(pdecl->content, allowed, sizeof allowed, &used);
            if (parent->type != XML_ELEMENT_NODE) snprintf(allowed, sizeof allowed, "<scenario>");
            return attr_fail_schema(r, n, "unknown element <%s>; expected %s",
                                    (const char *)n->name, allowed);
        }
        for (xmlAttrPtr a = n->properties; a != NULL; a = a->next) {
            enum dmlsim_err rc = check_printable(r, n, a);
            if (rc != DMLSIM_OK) return rc;
            if (xmlGetDtdAttrDesc(r->dtd, n->name, a->name) != NULL) continue;
            char allowed[512];
            size_t used = 0;
            allowed[0] = '\0';
            for (xmlAttributePtr ad = decl->attributes; ad != NULL; ad = ad->nexth) {
                int k = snprintf(allowed + used, sizeof allowed - used, "%s%s", used ? ", " : "",
                                 (const char *)ad->name);
                if (k > 0 && (size_t)k < sizeof allowed - used) used += (size_t)k;
            }
            return attr_fail_schema(r, n, "unknown attribute %s on <%s>; expected one of: %s",
                                    (const char *)a->name, (const char *)n->name,
                                    used ? allowed : "(no attributes)");
        }
        enum dmlsim_err rc = scen_check_names(r, n);
        if (rc != DMLSIM_OK) return rc;
    }
    return DMLSIM_OK;
}
