/* junit_validate.c - checks JUnit XML reports against an XSD (libxml2's schema validator) and
 * prints what tests/junit.sh compares with the scenario, counted from the elements themselves.
 *
 *   junit_validate SCHEMA.xsd REPORT.xml
 *
 * Exit 0 when the report is valid, 1 when it is not (libxml2's messages on stderr), 2 when the
 * schema or the report cannot be read. On stdout, for a valid report:
 *   suite NAME tests=T failures=F errors=E skipped=S     the attributes of each <testsuite>
 *   cases=C failed=K errored=R                           counted: <testcase>, those holding a
 *                                                        <failure>, those holding an <error>
 *   failure CASE-NAME | MESSAGE                          each <failure>'s testcase and message
 *   error CASE-NAME | MESSAGE                            each <error>'s
 */
#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <libxml/xpath.h>

#include <stdio.h>

/* How many nodes the XPath expression selects in doc (-1 on error). */
static int count(xmlXPathContextPtr ctx, const char *expr)
{
    xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST expr, ctx);
    int n = o && o->nodesetval ? o->nodesetval->nodeNr : o ? 0 : -1;
    xmlXPathFreeObject(o);
    return n;
}

static void print_attr(xmlNodePtr n, const char *name, const char *sep)
{
    xmlChar *v = xmlGetProp(n, BAD_CAST name);
    printf("%s%s", v ? (const char *)v : "(none)", sep);
    xmlFree(v);
}

/* Each <failure> or <error> (element `what`): its testcase's name and its message. */
static void print_outcomes(xmlXPathContextPtr ctx, const char *what)
{
    char expr[64];
    snprintf(expr, sizeof expr, "//testcase/%s", what);
    xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST expr, ctx);
    for (int i = 0; o && o->nodesetval && i < o->nodesetval->nodeNr; i++) {
        xmlNodePtr n = o->nodesetval->nodeTab[i];
        printf("%s ", what);
        print_attr(n->parent, "name", " | ");
        print_attr(n, "message", "\n");
    }
    xmlXPathFreeObject(o);
}

static void summarize(xmlDocPtr doc)
{
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST "//testsuite", ctx);
    for (int i = 0; o && o->nodesetval && i < o->nodesetval->nodeNr; i++) {
        xmlNodePtr s = o->nodesetval->nodeTab[i];
        printf("suite ");
        print_attr(s, "name", " tests=");
        print_attr(s, "tests", " failures=");
        print_attr(s, "failures", " errors=");
        print_attr(s, "errors", " skipped=");
        print_attr(s, "skipped", "\n");
    }
    xmlXPathFreeObject(o);
    printf("cases=%d failed=%d errored=%d\n", count(ctx, "//testcase"),
           count(ctx, "//testcase[failure]"), count(ctx, "//testcase[error]"));
    print_outcomes(ctx, "failure");
    print_outcomes(ctx, "error");
    xmlXPathFreeContext(ctx);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: junit_validate SCHEMA.xsd REPORT.xml\n");
        return 2;
    }
    int status = 2;
    xmlSchemaParserCtxtPtr pctx = xmlSchemaNewParserCtxt(argv[1]);
    xmlSchemaPtr schema = pctx ? xmlSchemaParse(pctx) : NULL;
    xmlSchemaValidCtxtPtr vctx = schema ? xmlSchemaNewValidCtxt(schema) : NULL;
    xmlDocPtr doc = vctx ? xmlReadFile(argv[2], NULL, XML_PARSE_NONET) : NULL;
    if (doc == NULL) {
        fprintf(stderr, "junit_validate: cannot read %s\n", vctx ? argv[2] : argv[1]);
    } else if (xmlSchemaValidateDoc(vctx, doc) != 0) {
        fprintf(stderr, "junit_validate: %s is not valid against %s\n", argv[2], argv[1]);
        status = 1;
    } else {
        summarize(doc);
        status = 0;
    }
    xmlFreeDoc(doc);
    xmlSchemaFreeValidCtxt(vctx);
    xmlSchemaFree(schema);
    xmlSchemaFreeParserCtxt(pctx);
    xmlCleanupParser();
    return status;
}
