/* trace_rules.c - checks a Chrome / Perfetto trace (JSON trace-event format) against the rules of
 * the format that a viewer relies on, for tests/trace.sh.
 *
 * usage: trace_rules FILE.json...   exit 0 when every file keeps every rule, 1 otherwise (each
 * broken rule printed as FILE: event N: what; at most 20 per file), 2 on unreadable input.
 *
 * Rules (Chrome "Trace Event Format" document; Perfetto's JSON importer):
 *   - the file is one JSON object whose "traceEvents" is an array of objects (or that array);
 *   - every event has "ph" (a string), "ts" (a number >= 0, microseconds), "pid" and "tid"
 *     (integers); "X" (complete) events have "dur" >= 0;
 *   - "B"/"E" (begin/end) events balance on each track (pid, tid), an "E" closing the last open
 *     "B", and their timestamps never decrease along a track;
 *   - two "X" slices on one track nest (one inside the other, sharing an end allowed) or are
 *     disjoint (one may end where the other begins): they never partly overlap. Times are
 *     compared in whole nanoseconds (the format's microseconds to 3 decimals);
 *   - instant events ("i", "I") have a scope "s" of "g" (global), "p" (process) or "t" (thread);
 *   - counter events ("C") have a name and an "args" object whose values are all numbers.
 *
 * The JSON reader is complete for what trace files contain (objects, arrays, strings with
 * escapes, numbers, true, false, null) and keeps only what the rules need. */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTS 20 /* broken rules printed per file */

struct reader {
    const char *p, *end; /* the unread rest of the file */
    bool bad;            /* a syntax error was found */
};

/* What the rules need of one event. */
struct event {
    char ph[4];                         /* phase, "" when absent or not a string */
    char s[4];                          /* instant scope, "" when absent */
    bool has_name;                      /* "name" is a string */
    bool ts_ok, pid_ok, tid_ok, dur_ok; /* present with the right type */
    double ts_us, dur_us;               /* microseconds */
    long long pid, tid;                 /* the track */
    int args;                           /* -1: no "args" object; else its members */
    bool args_numeric;                  /* every member of "args" is a number */
};

/* A slice or B/E event on a track, in nanoseconds. */
struct mark {
    long long pid, tid; /* the track */
    long long t0, t1;   /* begin and end (B/E: t1 = t0) */
    size_t index;       /* the event's position in the file */
    char ph;            /* 'X', 'B' or 'E' */
};

struct check {
    const char *file;
    size_t errors;
    struct mark *marks;
    size_t nmarks, cap;
};

static void report(struct check *c, size_t index, const char *what)
{
    if (c->errors++ < MAX_REPORTS) printf("%s: event %zu: %s\n", c->file, index, what);
}

static void skip_ws(struct reader *r)
{
    while (r->p < r->end && isspace((unsigned char)*r->p))
        r->p++;
}

static bool eat(struct reader *r, char ch)
{
    skip_ws(r);
    if (r->p < r->end && *r->p == ch) {
        r->p++;
        return true;
    }
    return false;
}

/* Reads a string into buf (truncated to len - 1 bytes; escapes other than \" and \\ are kept as
 * one '?'), or skips it when buf is NULL. */
static bool read_string(struct reader *r, char *buf, size_t len)
{
    size_t n = 0;
    if (!eat(r, '"')) return false;
    while (r->p < r->end && *r->p != '"') {
        char ch = *r->p++;
        if (ch == '\\') {
            if (r->p >= r->end) return false;
            ch = *r->p++;
            if (ch == 'u') {
                for (int i = 0; i < 4; i++)
                    if (r->p >= r->end || !isxdigit((unsigned char)*r->p++)) return false;
                ch = '?';
            } else if (!strchr("\"\\/bfnrt", ch))
                return false;
        } else if ((unsigned char)ch < 0x20)
            return false;
        if (buf && n + 1 < len) buf[n++] = ch;
    }
    if (buf && len) buf[n] = '\0';
    return r->p++ < r->end;
}

static bool read_number(struct reader *r, double *v)
{
    skip_ws(r);
    const char *q = r->p;
    if (q < r->end && *q == '-') q++;
    if (q >= r->end || !isdigit((unsigned char)*q)) return false;
    char *e;
    *v = strtod(r->p, &e); /* the file is NUL-terminated: strtod stops at its end */
    r->p = e;
    return isfinite(*v);
}

static bool skip_value(struct reader *r, int depth);

static bool skip_members(struct reader *r, char close, int depth)
{
    if (eat(r, close)) return true;
    do {
        if (close == '}' && (!read_string(r, NULL, 0) || !eat(r, ':'))) return false;
        if (!skip_value(r, depth + 1)) return false;
    } while (eat(r, ','));
    return eat(r, close);
}

/* Skips any JSON value (nesting at most 64 deep). */
static bool skip_value(struct reader *r, int depth)
{
    double v;
    skip_ws(r);
    if (depth > 64 || r->p >= r->end) return false;
    switch (*r->p) {
    case '"':
        return read_string(r, NULL, 0);
    case '{':
        r->p++;
        return skip_members(r, '}', depth);
    case '[':
        r->p++;
        return skip_members(r, ']', depth);
    default:
        for (const char *const *w = (const char *const[]){"true", "false", "null", NULL}; *w; w++)
            if ((size_t)(r->end - r->p) >= strlen(*w) && !strncmp(r->p, *w, strlen(*w))) {
                r->p += strlen(*w);
                return true;
            }
        return read_number(r, &v);
    }
}

static bool is_integer(double v)
{
    return v == floor(v) && fabs(v) < 9e15;
}

/* Reads "args": counts its members and whether they are all numbers. */
static bool read_args(struct reader *r, struct event *e)
{
    skip_ws(r);
    if (r->p >= r->end || *r->p != '{') return skip_value(r, 1); /* not an object: args -1 */
    r->p++;
    e->args = 0;
    e->args_numeric = true;
    if (eat(r, '}')) return true;
    do {
        double v;
        if (!read_string(r, NULL, 0) || !eat(r, ':')) return false;
        skip_ws(r);
        const char *at = r->p;
        if (!read_number(r, &v)) {
            r->p = at;
            e->args_numeric = false;
            if (!skip_value(r, 2)) return false;
        }
        e->args++;
    } while (eat(r, ','));
    return eat(r, '}');
}

/* Reads a number member into *v, telling whether it was one. */
static bool read_num_member(struct reader *r, double *v, bool *ok)
{
    skip_ws(r);
    const char *at = r->p;
    *ok = read_number(r, v);
    if (!*ok) r->p = at;
    return *ok || skip_value(r, 1);
}

static bool read_member(struct reader *r, struct event *e, const char *key)
{
    double v = 0;
    bool ok;
    if (!strcmp(key, "ph") || !strcmp(key, "s")) {
        skip_ws(r);
        if (r->p < r->end && *r->p == '"')
            return read_string(r, key[0] == 'p' ? e->ph : e->s, sizeof e->ph);
        return skip_value(r, 1);
    }
    if (!strcmp(key, "name")) {
        skip_ws(r);
        e->has_name = r->p < r->end && *r->p == '"';
        return skip_value(r, 1);
    }
    if (!strcmp(key, "args")) return read_args(r, e);
    if (!strcmp(key, "ts")) return read_num_member(r, &e->ts_us, &e->ts_ok);
    if (!strcmp(key, "dur")) return read_num_member(r, &e->dur_us, &e->dur_ok);
    if (!strcmp(key, "pid") || !strcmp(key, "tid")) {
        if (!read_num_member(r, &v, &ok)) return false;
        ok = ok && is_integer(v);
        if (key[0] == 'p') {
            e->pid_ok = ok;
            e->pid = (long long)v;
        } else {
            e->tid_ok = ok;
            e->tid = (long long)v;
        }
        return true;
    }
    return skip_value(r, 1);
}

static bool read_event(struct reader *r, struct event *e)
{
    memset(e, 0, sizeof *e);
    e->args = -1;
    if (!eat(r, '{')) return false;
    if (eat(r, '}')) return true;
    do {
        char key[16];
        if (!read_string(r, key, sizeof key) || !eat(r, ':') || !read_member(r, e, key))
            return false;
    } while (eat(r, ','));
    return eat(r, '}');
}

static long long ns_of(double us)
{
    return llround(us * 1e3);
}

static void add_mark(struct check *c, const struct event *e, size_t index)
{
    if (c->nmarks == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4096;
        c->marks = realloc(c->marks, c->cap * sizeof *c->marks);
        if (c->marks == NULL) abort();
    }
    long long t0 = ns_of(e->ts_us);
    c->marks[c->nmarks++] = (struct mark){
            e->pid, e->tid, t0, e->ph[0] == 'X' ? t0 + ns_of(e->dur_us) : t0, index, e->ph[0]};
}

/* The rules of one event by itself; slices and B/E events are kept for the track rules. */
static void check_event(struct check *c, const struct event *e, size_t index)
{
    if (e->ph[0] == '\0' || e->ph[1] != '\0') {
        report(c, index, "no one-letter \"ph\"");
        return;
    }
    if (!e->ts_ok || e->ts_us < 0) report(c, index, "\"ts\" is not a number >= 0");
    if (!e->pid_ok) report(c, index, "\"pid\" is not an integer");
    if (!e->tid_ok) report(c, index, "\"tid\" is not an integer");
    char ph = e->ph[0];
    if (strchr("XBiICM", ph) && !e->has_name) report(c, index, "no \"name\" string");
    if (ph == 'X' && (!e->dur_ok || e->dur_us < 0)) report(c, index, "\"X\" without \"dur\" >= 0");
    if ((ph == 'i' || ph == 'I') && (strlen(e->s) != 1 || !strchr("gpt", e->s[0])))
        report(c, index, "instant without a scope \"s\" of g, p or t");
    if (ph == 'C' && (e->args <= 0 || !e->args_numeric))
        report(c, index, "counter without \"args\" of numbers");
    if (strchr("XBE", ph) && e->ts_ok && e->pid_ok && e->tid_ok && (ph != 'X' || e->dur_ok))
        add_mark(c, e, index);
}

/* Track order, then begin, longer slices first (a parent before what nests in it), then file
 * order (B/E events keep theirs). */
static int by_track(const void *x, const void *y)
{
    const struct mark *a = x, *b = y;
    if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
    bool ax = a->ph == 'X', bx = b->ph == 'X';
    if (ax != bx) return ax ? 1 : -1; /* B/E first, in file order */
    if (ax && a->t0 != b->t0) return a->t0 < b->t0 ? -1 : 1;
    if (ax && a->t1 != b->t1) return a->t1 > b->t1 ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* B/E events of one track [i, j): balanced, never going back in time. */
static void check_begin_end(struct check *c, size_t i, size_t j)
{
    long long depth = 0, last = -1;
    char what[160];
    for (size_t k = i; k < j; k++) {
        const struct mark *m = &c->marks[k];
        if (m->t0 < last) report(c, m->index, "B/E timestamp earlier than the track's previous");
        last = m->t0;
        depth += m->ph == 'B' ? 1 : -1;
        if (depth < 0) report(c, m->index, "\"E\" with no open \"B\" on its track");
        if (depth < 0) depth = 0;
    }
    if (depth > 0) {
        snprintf(what, sizeof what, "track pid %lld tid %lld: %lld \"B\" never closed",
                 c->marks[i].pid, c->marks[i].tid, depth);
        report(c, c->marks[j - 1].index, what);
    }
}

/* X slices of one track [i, j), sorted: each nests in the open one or starts after it ends. */
static void check_slices(struct check *c, size_t i, size_t j)
{
    size_t *open = malloc((j - i + 1) * sizeof *open), n = 0;
    char what[200];
    if (open == NULL) abort();
    for (size_t k = i; k < j; k++) {
        const struct mark *m = &c->marks[k];
        while (n > 0 && c->marks[open[n - 1]].t1 <= m->t0)
            n--;
        if (n > 0 && m->t1 > c->marks[open[n - 1]].t1) {
            const struct mark *o = &c->marks[open[n - 1]];
            snprintf(what, sizeof what,
                     "slice [%lld, %lld] ns partly overlaps event %zu's [%lld, %lld] ns on track "
                     "pid %lld tid %lld",
                     m->t0, m->t1, o->index, o->t0, o->t1, m->pid, m->tid);
            report(c, m->index, what);
            continue;
        }
        open[n++] = k;
    }
    free(open);
}

static size_t check_tracks(struct check *c)
{
    size_t tracks = 0;
    qsort(c->marks, c->nmarks, sizeof *c->marks, by_track);
    for (size_t i = 0, j; i < c->nmarks; i = j) {
        size_t x = i;
        for (j = i; j < c->nmarks && c->marks[j].pid == c->marks[i].pid &&
                    c->marks[j].tid == c->marks[i].tid;
             j++)
            if (c->marks[j].ph != 'X') x = j + 1;
        if (x > i) check_begin_end(c, i, x);
        if (j > x) check_slices(c, x, j);
        tracks++;
    }
    return tracks;
}

/* Finds the events array: the top-level array, or the top-level object's "traceEvents". */
static bool find_events(struct reader *r)
{
    if (eat(r, '[')) return true;
    if (!eat(r, '{')) return false;
    do {
        char key[32];
        if (!read_string(r, key, sizeof key) || !eat(r, ':')) return false;
        if (!strcmp(key, "traceEvents")) return eat(r, '[');
        if (!skip_value(r, 1)) return false;
    } while (eat(r, ','));
    return false;
}

static char *slurp(const char *file, size_t *len)
{
    FILE *f = fopen(file, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    if (f == NULL) return NULL;
    do {
        if (n + 65536 + 1 > cap) {
            cap = 2 * cap + 65536 + 1;
            buf = realloc(buf, cap);
            if (buf == NULL) abort();
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    bool err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Returns 0 (every rule kept), 1 (some broken) or 2 (unreadable or not JSON). */
static int check_file(const char *file)
{
    size_t len, nev = 0, counts[128] = {0};
    char *buf = slurp(file, &len);
    if (buf == NULL) {
        fprintf(stderr, "%s: cannot read\n", file);
        return 2;
    }
    struct reader r = {buf, buf + len, false};
    struct check c = {file, 0, NULL, 0, 0};
    bool ok = find_events(&r);
    if (ok && !eat(&r, ']')) {
        do {
            struct event e;
            if (!(ok = read_event(&r, &e))) break;
            check_event(&c, &e, nev++);
            counts[(unsigned char)e.ph[0] & 127]++;
        } while (eat(&r, ','));
        ok = ok && eat(&r, ']');
    }
    size_t tracks = ok ? check_tracks(&c) : 0;
    free(c.marks);
    if (!ok) {
        fprintf(stderr, "%s: not a JSON trace (syntax error near byte %td)\n", file, r.p - buf);
        free(buf);
        return 2;
    }
    free(buf);
    printf("%s: %zu events (X %zu, B %zu, E %zu, i %zu, C %zu, M %zu) on %zu slice tracks: %s\n",
           file, nev, counts['X'], counts['B'], counts['E'], counts['i'] + counts['I'], counts['C'],
           counts['M'], tracks, c.errors ? "RULES BROKEN" : "every rule kept");
    if (c.errors > MAX_REPORTS) printf("%s: ... %zu broken in all\n", file, c.errors);
    return c.errors ? 1 : 0;
}

int main(int argc, char **argv)
{
    int worst = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: trace_rules FILE.json...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        int rc = check_file(argv[i]);
        worst = rc > worst ? rc : worst;
    }
    return worst;
}
