/* import_json.c - a small strict JSON reader (see import_json.h). Recursive descent over the
 * grammar of RFC 8259, section 2-7; the depth is bounded, so is the recursion. */
#include "import_json.h"

#include <xbt/sysdep.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

struct jp {
    const char *path; /* for messages */
    const char *p;    /* the next character */
    int line;         /* p's line */
    int depth;        /* nesting of the value being read */
    char *err;        /* the message, once one failed */
    size_t errlen;
};

static int fail(struct jp *j, const char *fmt, ...)
{
    int n = snprintf(j->err, j->errlen, "%s:%d: ", j->path, j->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < j->errlen) vsnprintf(j->err + n, j->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static void skip_ws(struct jp *j)
{
    for (;; j->p++) {
        if (*j->p == '\n')
            j->line++;
        else if (*j->p != ' ' && *j->p != '\t' && *j->p != '\r')
            return;
    }
}

/* What is at p, for a message: "'x'" or "the end of the file". */
static const char *here(const struct jp *j, char *buf, size_t len)
{
    if (*j->p == '\0') return "the end of the file";
    snprintf(buf, len, "'%c'", *j->p);
    return buf;
}

static int parse_value(struct jp *j, struct json_value *v);

/* Appends the UTF-8 encoding of code point c to s at *n (room for 4 more bytes is there). */
static void put_utf8(char *s, size_t *n, unsigned c)
{
    if (c < 0x80) {
        s[(*n)++] = (char)c;
    } else if (c < 0x800) {
        s[(*n)++] = (char)(0xc0 | c >> 6);
        s[(*n)++] = (char)(0x80 | (c & 0x3f));
    } else {
        s[(*n)++] = (char)(0xe0 | c >> 12);
        s[(*n)++] = (char)(0x80 | (c >> 6 & 0x3f));
        s[(*n)++] = (char)(0x80 | (c & 0x3f));
    }
}

/* One escape after the backslash at p: its bytes into s at *n. */
static int parse_escape(struct jp *j, char *s, size_t *n)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *e = strchr(from, *j->p);
    if (*j->p != '\0' && e != NULL) {
        s[(*n)++] = to[e - from];
        j->p++;
        return 0;
    }
    if (*j->p != 'u')
        return fail(j, "bad escape in a string; expected one of \\\" \\\\ \\/ \\b "
                       "\\f \\n \\r \\t \\uXXXX");
    unsigned c = 0;
    for (int i = 1; i <= 4; i++) {
        char h = j->p[i];
        int d = h >= '0' && h <= '9'   ? h - '0'
                : h >= 'a' && h <= 'f' ? h - 'a' + 10
                : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                       : -1;
        if (d < 0) return fail(j, "bad \\u escape; expected four hexadecimal digits");
        c = c * 16 + (unsigned)d;
    }
    j->p += 5;
    put_utf8(s, n, c); /* a surrogate half stays as it is: no key the importer reads has one */
    return 0;
}

static int parse_string(struct jp *j, char **out)
{
    const char *start = ++j->p; /* after the opening quote */
    size_t cap = strlen(start) + 1, n = 0;
    char *s = xbt_malloc(cap + 4);
    int rc = 0;
    while (rc == 0 && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p;
        if (c == '\0' || c < 0x20) {
            rc = fail(j, "%s inside a string; expected its closing quote",
                      c == '\0' ? "the end of the file" : "a control character");
        } else if (c == '\\') {
            j->p++;
            rc = parse_escape(j, s, &n);
        } else {
            s[n++] = (char)c;
            j->p++;
        }
    }
    if (rc != 0) {
        free(s);
        return rc;
    }
    j->p++;
    s[n] = '\0';
    *out = s;
    return 0;
}

/* A number as RFC 8259 section 6 writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(struct jp *j, struct json_value *v)
{
    const char *q = j->p;
    if (*q == '-') q++;
    if (*q == '0')
        q++;
    else if (*q >= '1' && *q <= '9')
        while (*q >= '0' && *q <= '9')
            q++;
    else
        return fail(j, "not a value; expected a number, a string, true, false, null, [ or {");
    if (*q == '.') {
        if (!(*++q >= '0' && *q <= '9')) return fail(j, "a number ends in '.'; expected digits");
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (*q == 'e' || *q == 'E') {
        q++;
        if (*q == '+' || *q == '-') q++;
        if (!(*q >= '0' && *q <= '9')) return fail(j, "a number's exponent has no digits");
        while (*q >= '0' && *q <= '9')
            q++;
    }
    v->type = JSON_NUMBER;
    v->num = strtod(j->p, NULL);
    j->p = q;
    return 0;
}

static int parse_literal(struct jp *j, struct json_value *v)
{
    static const struct {
        const char *word;
        enum json_type type;
        bool b;
    } lit[] = {{"true", JSON_BOOL, true}, {"false", JSON_BOOL, false}, {"null", JSON_NULL, false}};
    for (size_t i = 0; i < sizeof lit / sizeof lit[0]; i++) {
        size_t len = strlen(lit[i].word);
        if (strncmp(j->p, lit[i].word, len) == 0) {
            v->type = lit[i].type;
            v->b = lit[i].b;
            j->p += len;
            return 0;
        }
    }
    return parse_number(j, v);
}

/* The items of an array or the members of an object, after its opening bracket. */
static int parse_items(struct jp *j, struct json_value *v, bool object)
{
    char close = object ? '}' : ']', buf[8];
    size_t cap = 0;
    skip_ws(j);
    if (*j->p == close) {
        j->p++;
        return 0;
    }
    for (;;) {
        if (v->n == cap) {
            cap = cap ? 2 * cap : 8;
            v->items = xbt_realloc(v->items, cap * sizeof *v->items);
            if (object) v->keys = xbt_realloc(v->keys, cap * sizeof *v->keys);
        }
        skip_ws(j);
        memset(&v->items[v->n], 0, sizeof v->items[v->n]);
        if (object) {
            char *key;
            if (*j->p != '"')
                return fail(j, "%s in an object; expected a member name in double quotes",
                            here(j, buf, sizeof buf));
            if (parse_string(j, &key) != 0) return -1;
            bool twice = json_get(v, key) != NULL;
            v->keys[v->n++] = key; /* owned by v from here, freed with it */
            if (twice) return fail(j, "member \"%s\" given twice; expected each name once", key);
            skip_ws(j);
            if (*j->p != ':')
                return fail(j, "%s after a member name; expected ':'", here(j, buf, sizeof buf));
            j->p++;
        } else {
            v->n++;
        }
        if (parse_value(j, &v->items[v->n - 1]) != 0) return -1;
        skip_ws(j);
        if (*j->p == close) break;
        if (*j->p != ',')
            return fail(j, "%s after %s; expected ',' or '%c'", here(j, buf, sizeof buf),
                        object ? "a member" : "an item", close);
        j->p++;
        skip_ws(j);
        if (*j->p == close)
            return fail(j, "a trailing ','; expected another %s or no ','",
                        object ? "member" : "item");
    }
    j->p++;
    return 0;
}

static int parse_value(struct jp *j, struct json_value *v)
{
    skip_ws(j);
    v->line = j->line;
    if (*j->p == '"') {
        v->type = JSON_STRING;
        return parse_string(j, &v->str);
    }
    if (*j->p != '[' && *j->p != '{') return parse_literal(j, v);
    if (++j->depth > JSON_MAX_DEPTH)
        return fail(j, "nested over %d levels deep; expected a config file", JSON_MAX_DEPTH);
    bool object = *j->p++ == '{';
    v->type = object ? JSON_OBJECT : JSON_ARRAY;
    int rc = parse_items(j, v, object);
    j->depth--;
    return rc;
}

int json_parse(const char *path, const char *text, struct json_value *out, char *err, size_t errlen)
{
    struct jp j = {.path = path, .p = text, .line = 1, .err = err, .errlen = errlen};
    char buf[8];
    memset(out, 0, sizeof *out);
    int rc = parse_value(&j, out);
    if (rc == 0) {
        skip_ws(&j);
        if (*j.p != '\0')
            rc = fail(&j, "%s after the top value; expected the end of the file",
                      here(&j, buf, sizeof buf));
    }
    if (rc != 0) json_release(out);
    return rc;
}

const struct json_value *json_get(const struct json_value *v, const char *key)
{
    if (v == NULL || v->type != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < v->n; i++)
        if (v->keys[i] != NULL && strcmp(v->keys[i], key) == 0) return &v->items[i];
    return NULL;
}

void json_release(struct json_value *v)
{
    for (size_t i = 0; i < v->n; i++) {
        json_release(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    memset(v, 0, sizeof *v);
}
