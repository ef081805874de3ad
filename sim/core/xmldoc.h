/* xmldoc.h - reading an XML file with libxml2 so that its first error becomes one dmlsim message.
 *
 * libxml2 reports problems through a global error callback; these helpers install one that keeps
 * the first error (line and text, lowercased, without trailing newline or period) for the duration
 * of a parse or validation, and format it as "FILE:LINE: ...". Network access is never allowed,
 * so a DOCTYPE that names a URL is not fetched.
 */
#ifndef DMLSIM_XMLDOC_H
#define DMLSIM_XMLDOC_H

#include "error.h"

#include <libxml/tree.h>

struct xml_capture {
    int have;      /* an error was captured */
    int line;      /* its line (0 if unknown) */
    char msg[512]; /* its message, trimmed and lowercased */
};

/* Starts capturing libxml2 errors into `cap` (zeroed here); stop with xmldoc_capture_end. */
void xmldoc_capture_begin(struct xml_capture *cap);
void xmldoc_capture_end(void);

/* Parses `path` into *doc (caller frees with xmlFreeDoc). Errors: DMLSIM_EIO when the file cannot
 * be opened, DMLSIM_EXML when it is not well-formed ("FILE:LINE: malformed xml: ..."). */
enum dmlsim_err xmldoc_read(const char *path, xmlDocPtr *doc, struct dmlsim_error *err);

/* strerror(errnum) with a lowercase first letter, into buf. */
const char *xmldoc_strerror(int errnum, char *buf, size_t len);

/* The first element called `name` at n, its siblings after it or below them, in document order
 * (what --set ELEM.ATTR changes), or NULL. */
xmlNodePtr xmldoc_find(xmlNodePtr n, const char *name);

#endif
