/* junit.c - a training run's <expect>s as a JUnit XML report (see junit.h). */
#include "junit.h"

#include "expect.h"

#include <libxml/tree.h>
#include <libxml/xmlstring.h>
#include <libxml/xmlwriter.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Whether s is UTF-8 with no control character XML 1.0 refuses (its Char production allows
 * tab, newline and carriage return below U+0020). */
static bool xml_text(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') return false;
    return xmlCheckUTF8((const xmlChar *)s) != 0;
}

enum dmlsim_err junit_check(const struct scenario *sc, struct dmlsim_error *err)
{
    if (xml_text(sc->path) && xml_text(sc->name)) return DMLSIM_OK;
    return dmlsim_fail(err, DMLSIM_EUSAGE,
                       "%s:0: --junit: the scenario's path or name is not UTF-8 text; expected "
                       "UTF-8 without control characters (XML carries no other)",
                       sc->path);
}

/* An XML writer and whether any of its calls failed (out of memory); after a failure every call
 * does nothing. */
struct jw {
    xmlTextWriterPtr w; /* libxml2's writer, into a memory buffer */
    bool failed;        /* a call returned an error */
};

static void jw_rc(struct jw *j, int rc)
{
    if (rc < 0) j->failed = true;
}

static void start(struct jw *j, const char *element)
{
    if (!j->failed) jw_rc(j, xmlTextWriterStartElement(j->w, BAD_CAST element));
}

static void end(struct jw *j)
{
    if (!j->failed) jw_rc(j, xmlTextWriterEndElement(j->w));
}

/* An attribute, its value formatted as printf does (libxml2 escapes it). */
static void attr(struct jw *j, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!j->failed) jw_rc(j, xmlTextWriterWriteVFormatAttribute(j->w, BAD_CAST name, fmt, ap));
    va_end(ap);
}

static void text(struct jw *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!j->failed) jw_rc(j, xmlTextWriterWriteVFormatString(j->w, fmt, ap));
    va_end(ap);
}

/* The counts every JUnit element carries. */
static void counts(struct jw *j, int tests, int failures, int errors)
{
    attr(j, "tests", "%d", tests);
    attr(j, "failures", "%d", failures);
    attr(j, "errors", "%d", errors);
}

static void property(struct jw *j, const char *name, const char *value)
{
    start(j, "property");
    attr(j, "name", "%s", name);
    attr(j, "value", "%s", value);
    end(j);
}

static void properties(struct jw *j, const struct scenario *sc, const struct run_record *rec)
{
    char seed[32], t[EXPECT_NUM_LEN];
    snprintf(seed, sizeof seed, "%lu", sc->seed);
    expect_num(rec->total_s, t);
    start(j, "properties");
    property(j, "dmlsim.version", DMLSIM_VERSION);
    property(j, "scenario.file", sc->path);
    property(j, "scenario.seed", seed);
    property(j, "simulated_time_s", t);
    end(j);
}

/* A testcase's opening: its name, the scenario file without ".xml" as its class, no time. */
static void testcase(struct jw *j, const struct scenario *sc, const char *name)
{
    size_t n = strlen(sc->path);
    if (n > 4 && strcmp(sc->path + n - 4, ".xml") == 0) n -= 4;
    start(j, "testcase");
    attr(j, "name", "%s", name);
    attr(j, "classname", "%.*s", (int)n, sc->path);
    attr(j, "time", "0");
}

/* Expectation i's testcase, with its failure if it failed. */
static void expect_case(struct jw *j, const struct scenario *sc, const struct run_record *rec,
                        size_t i)
{
    const struct expect_spec *e = &sc->expects[i];
    char bounds[EXPECT_BOUNDS_LEN], v[EXPECT_NUM_LEN], *name = NULL;
    double value;
    bool ok = expect_eval(sc, rec, i, &value);
    expect_bounds(e, bounds);
    expect_num(value, v);
    size_t len = strlen(e->metric) + strlen(bounds) + 2;
    name = malloc(len);
    if (name == NULL) abort(); /* out of memory (house style) */
    snprintf(name, len, "%s %s", e->metric, bounds);
    testcase(j, sc, name);
    if (!ok) {
        start(j, "failure");
        attr(j, "type", "expect");
        attr(j, "message", "value %s, expected %s", v, bounds);
        text(j, "%s:%d: %s = %s; expected %s", sc->path, e->line, e->metric, v, bounds);
        end(j);
    }
    end(j);
    free(name);
}

/* The failed job's testcase (expect_job_error). */
static void job_case(struct jw *j, const struct scenario *sc, const struct run_record *rec)
{
    testcase(j, sc, "job completes");
    start(j, "error");
    attr(j, "type", "job_failed");
    attr(j, "message", "the simulated job failed: %s", rec->failure);
    text(j, "%s:%d: the simulated job failed: %s", sc->path, sc->train.line, rec->failure);
    end(j);
    end(j);
}

static void write_doc(struct jw *j, const struct scenario *sc, const struct run_record *rec)
{
    int failures = 0, errors = expect_job_error(sc, rec) ? 1 : 0;
    for (size_t i = 0; i < sc->nexpects; i++) {
        double v;
        failures += !expect_eval(sc, rec, i, &v);
    }
    int tests = (int)sc->nexpects + errors;
    jw_rc(j, xmlTextWriterSetIndent(j->w, 1));
    jw_rc(j, xmlTextWriterSetIndentString(j->w, BAD_CAST "  "));
    if (!j->failed) jw_rc(j, xmlTextWriterStartDocument(j->w, "1.0", "UTF-8", NULL));
    start(j, "testsuites");
    attr(j, "name", "dmlsim");
    counts(j, tests, failures, errors);
    attr(j, "time", "0");
    start(j, "testsuite");
    attr(j, "name", "%s", sc->name);
    counts(j, tests, failures, errors);
    attr(j, "skipped", "0");
    attr(j, "time", "0");
    properties(j, sc, rec);
    for (size_t i = 0; i < sc->nexpects; i++)
        expect_case(j, sc, rec, i);
    if (errors) job_case(j, sc, rec);
    if (!j->failed) jw_rc(j, xmlTextWriterEndDocument(j->w)); /* closes what is open */
}

void junit_write(const struct scenario *sc, const struct run_record *rec, FILE *out)
{
    /* Into memory first: the stream's errors are outfile_write's to report, as for every other
     * output, and libxml2 prints none of its own. */
    xmlBufferPtr buf = xmlBufferCreate();
    struct jw j = {buf ? xmlNewTextWriterMemory(buf, 0) : NULL, false};
    if (j.w != NULL) {
        write_doc(&j, sc, rec);
        xmlFreeTextWriter(j.w); /* flushes into buf */
    }
    /* junit_check and expect_validate let no input through that the writer refuses: a failure
     * is out of memory, which aborts (house style) */
    if (j.w == NULL || j.failed) abort();
    fwrite(xmlBufferContent(buf), 1, (size_t)xmlBufferLength(buf), out);
    xmlBufferFree(buf);
}
