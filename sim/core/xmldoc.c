/* xmldoc.c - libxml2 error capture and file reading (see xmldoc.h). */
#include "xmldoc.h"

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static void capture_error(void *ctx, xmlErrorPtr e)
{
    struct xml_capture *cap = ctx;
    if (cap->have || e == NULL || e->level < XML_ERR_ERROR) return;
    cap->have = 1;
    cap->line = e->line;
    snprintf(cap->msg, sizeof cap->msg, "%s", e->message ? e->message : "unknown error");
    size_t n = strlen(cap->msg);
    while (n > 0 && (cap->msg[n - 1] == '\n' || cap->msg[n - 1] == ' ' || cap->msg[n - 1] == '.'))
        cap->msg[--n] = '\0';
    for (char *p = cap->msg; *p; p++) /* libxml2 wraps long messages over lines */
        if (*p == '\n') *p = ' ';
    if (cap->msg[0] != '\0') cap->msg[0] = (char)tolower((unsigned char)cap->msg[0]);
}

void xmldoc_capture_begin(struct xml_capture *cap)
{
    memset(cap, 0, sizeof *cap);
    xmlSetStructuredErrorFunc(cap, capture_error);
}

void xmldoc_capture_end(void)
{
    xmlSetStructuredErrorFunc(NULL, NULL);
}

const char *xmldoc_strerror(int errnum, char *buf, size_t len)
{
    snprintf(buf, len, "%s", strerror(errnum));
    if (buf[0] != '\0') buf[0] = (char)tolower((unsigned char)buf[0]);
    return buf;
}

enum dmlsim_err xmldoc_read(const char *path, xmlDocPtr *doc, struct dmlsim_error *err)
{
    struct xml_capture cap;
    enum dmlsim_err rc = DMLSIM_OK;
    char why[128];

    *doc = NULL;
    FILE *probe = fopen(path, "r");
    if (probe == NULL)
        return dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot read: %s", path,
                           xmldoc_strerror(errno, why, sizeof why));
    fclose(probe);

    xmldoc_capture_begin(&cap);
    *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_NOBLANKS);
    if (*doc == NULL || cap.have) {
        rc = dmlsim_fail(err, DMLSIM_EXML, "%s:%d: malformed xml: %s", path, cap.line,
                         cap.have ? cap.msg : "cannot parse");
        xmlFreeDoc(*doc);
        *doc = NULL;
    }
    xmldoc_capture_end();
    return rc;
}

xmlNodePtr xmldoc_find(xmlNodePtr n, const char *name)
{
    for (; n != NULL; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        if (strcmp((const char *)n->name, name) == 0) return n;
        xmlNodePtr found = xmldoc_find(n->children, name);
        if (found) return found;
    }
    return NULL;
}
