/* import_json.h - a small strict JSON reader (RFC 8259) for `dmlsim import hf`: a Hugging Face
 * config.json is one object of scalars, arrays and nested objects. Strict: no comments, no
 * trailing commas, no duplicate keys, no NaN or Infinity, nothing after the top value, at most
 * 64 levels deep. Every value keeps the line it starts on, so the importer's own complaints about
 * a value name FILE:LINE too. No new dependency: libxml2 reads XML only, and the file is small. */
#ifndef DMLSIM_IMPORT_JSON_H
#define DMLSIM_IMPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_value {
    enum json_type type;      /* which of the fields below means something */
    int line;                 /* the 1-based line the value starts on */
    bool b;                   /* JSON_BOOL */
    double num;               /* JSON_NUMBER */
    char *str;                /* JSON_STRING (UTF-8, escapes decoded; owned) */
    char **keys;              /* JSON_OBJECT: the member names, in file order (owned) */
    struct json_value *items; /* JSON_ARRAY's elements or JSON_OBJECT's values (owned) */
    size_t n;                 /* how many items (and keys) */
};

/* Parses text (NUL-terminated; path names it in messages) into *out. Returns 0, or -1 with a
 * one-line "PATH:LINE: what was wrong; expected what" in err. Free *out with json_release. */
int json_parse(const char *path, const char *text, struct json_value *out, char *err,
               size_t errlen);

/* The member `key` of object v; NULL when v is not an object or has no such member. */
const struct json_value *json_get(const struct json_value *v, const char *key);

/* Frees what v owns (v itself is the caller's). */
void json_release(struct json_value *v);

#endif
