/* platform_xml.c - walking a platform document (see platform_xml.h). */
#include "platform_xml.h"

#include <xbt/sysdep.h>

#include <string.h>

bool platform_xml_is_elem(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

void platform_xml_push_name(char ***arr, size_t *n, const xmlChar *name)
{
    *arr = xbt_realloc(*arr, (*n + 1) * sizeof **arr);
    (*arr)[(*n)++] = xbt_strdup((const char *)name);
}

/* Calls fn on every element of the document, depth first. */
void platform_xml_walk(xmlNodePtr n, void (*fn)(xmlNodePtr, void *), void *data)
{
    for (; n != NULL; n = n->next)
        if (n->type == XML_ELEMENT_NODE) {
            fn(n, data);
            platform_xml_walk(n->children, fn, data);
        }
}

xmlNodePtr platform_xml_find_by_id(xmlNodePtr n, const char *tag, const char *id)
{
    for (; n != NULL; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        if (platform_xml_is_elem(n, tag)) {
            xmlChar *v = xmlGetProp(n, (const xmlChar *)"id");
            bool hit = v && strcmp((const char *)v, id) == 0;
            xmlFree(v);
            if (hit) return n;
        }
        xmlNodePtr found = platform_xml_find_by_id(n->children, tag, id);
        if (found) return found;
    }
    return NULL;
}
