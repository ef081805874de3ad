/* platform_xml.h - small helpers over a SimGrid platform document held by libxml2 (internal to
 * the platform module: the user-file checks, the fault profiles, loading and route checks). */
#ifndef DMLSIM_PLATFORM_XML_H
#define DMLSIM_PLATFORM_XML_H

#include <libxml/tree.h>

#include <stdbool.h>
#include <stddef.h>

/* Whether n is an element named `name`. */
bool platform_xml_is_elem(xmlNodePtr n, const char *name);

/* Appends a copy of name to the array *arr of *n strings (grown; the caller frees each string
 * and the array). */
void platform_xml_push_name(char ***arr, size_t *n, const xmlChar *name);

/* Calls fn on every element of the document, depth first. */
void platform_xml_walk(xmlNodePtr n, void (*fn)(xmlNodePtr, void *), void *data);

/* The first element <tag id="id"> at or below n (and n's next siblings), depth first; NULL if
 * none. */
xmlNodePtr platform_xml_find_by_id(xmlNodePtr n, const char *tag, const char *id);

#endif
