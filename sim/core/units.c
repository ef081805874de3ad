/* units.c - strict quantity parser (see units.h). */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct unit {
    const char *suffix; /* exactly as written after the number */
    double factor;      /* multiply by this to get SI base units */
};

#define KI 1024.0
/* Bit-based bandwidth units divide by 8: 1 Gbps = 125,000,000 B/s. */
static const struct unit bw_units[] = {
        {"Bps", 1},
        {"kBps", 1e3},
        {"MBps", 1e6},
        {"GBps", 1e9},
        {"TBps", 1e12},
        {"KiBps", KI},
        {"MiBps", KI *KI},
        {"GiBps", KI *KI *KI},
        {"TiBps", KI *KI *KI *KI},
        {"bps", 1 / 8.0},
        {"kbps", 1e3 / 8},
        {"Mbps", 1e6 / 8},
        {"Gbps", 1e9 / 8},
        {"Tbps", 1e12 / 8},
        {"Kibps", KI / 8},
        {"Mibps", KI *KI / 8},
        {"Gibps", KI *KI *KI / 8},
        {NULL, 0},
};
static const struct unit time_units[] = {
        {"w", 7 * 86400.0}, {"d", 86400.0}, {"h", 3600.0}, {"m", 60.0},   {"s", 1.0},
        {"ms", 1e-3},       {"us", 1e-6},   {"ns", 1e-9},  {"ps", 1e-12}, {NULL, 0},
};
static const struct unit size_units[] = {
        {"B", 1},        {"kB", 1e3},         {"MB", 1e6},
        {"GB", 1e9},     {"TB", 1e12},        {"KiB", KI},
        {"MiB", KI *KI}, {"GiB", KI *KI *KI}, {"TiB", KI *KI *KI *KI},
        {NULL, 0},
};
static const struct unit flop_units[] = {
        {"f", 1},     {"kf", 1e3},  {"Mf", 1e6},  {"Gf", 1e9},
        {"Tf", 1e12}, {"Pf", 1e15}, {"Ef", 1e18}, {NULL, 0},
};

static const struct unit *unit_table(enum unit_kind kind)
{
    switch (kind) {
    case UNIT_BANDWIDTH:
        return bw_units;
    case UNIT_TIME:
        return time_units;
    case UNIT_SIZE:
        return size_units;
    case UNIT_FLOPRATE:
        return flop_units;
    }
    return NULL;
}

/* Accepts [-+]?digits[.digits]([eE][-+]?digits)? and nothing strtod would also take (hex, inf,
 * nan, leading blanks). Returns the length of the number or 0. */
static size_t number_span(const char *s)
{
    size_t i = 0, digits = 0;
    if (s[i] == '-' || s[i] == '+') i++;
    while (isdigit((unsigned char)s[i])) {
        i++;
        digits++;
    }
    if (s[i] == '.') {
        i++;
        while (isdigit((unsigned char)s[i])) {
            i++;
            digits++;
        }
    }
    if (digits == 0) return 0;
    if ((s[i] == 'e' || s[i] == 'E') &&
        (isdigit((unsigned char)s[i + 1]) ||
         ((s[i + 1] == '-' || s[i + 1] == '+') && isdigit((unsigned char)s[i + 2])))) {
        i += 2;
        while (isdigit((unsigned char)s[i]))
            i++;
    }
    return i;
}

static enum unit_status check_bound(double v, enum unit_bound bound)
{
    if (bound != UNIT_ANY && v < 0) return UNIT_ENEGATIVE;
    if (bound == UNIT_POSITIVE && v == 0) return UNIT_EZERO;
    return UNIT_OK;
}

enum unit_status units_parse(const char *text, enum unit_kind kind, enum unit_bound bound,
                             double *out_si)
{
    if (text == NULL || text[0] == '\0') return UNIT_EEMPTY;
    size_t n = number_span(text);
    if (n == 0) return UNIT_ENUMBER;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno == ERANGE && fabs(v) > 1.0) return UNIT_ERANGE;
    if ((size_t)(end - text) != n) return UNIT_ENUMBER;
    const char *suffix = text + n;
    if (*suffix == '\0') return UNIT_EMISSING;
    for (const struct unit *u = unit_table(kind); u->suffix != NULL; u++) {
        if (strcmp(suffix, u->suffix) == 0) {
            double si = v * u->factor;
            if (!isfinite(si)) return UNIT_ERANGE;
            if (si > units_ceiling(kind)) return UNIT_ECEILING;
            enum unit_status st = check_bound(si, bound);
            if (st == UNIT_OK) *out_si = si;
            return st;
        }
    }
    return UNIT_EUNIT;
}

double units_ceiling(enum unit_kind kind)
{
    switch (kind) {
    case UNIT_BANDWIDTH:
        return 1e15;
    case UNIT_TIME:
        return 1e9;
    case UNIT_SIZE:
        return 1e18;
    case UNIT_FLOPRATE:
        return 1e21;
    }
    return 0;
}

const char *units_expected(enum unit_kind kind)
{
    switch (kind) {
    case UNIT_BANDWIDTH:
        return "a bandwidth such as 25GBps or 100Gbps (units: Bps kBps MBps GBps TBps KiBps MiBps "
               "GiBps TiBps bps kbps Mbps Gbps Tbps Kibps Mibps Gibps)";
    case UNIT_TIME:
        return "a time such as 2us or 1.5s (units: w d h m s ms us ns ps)";
    case UNIT_SIZE:
        return "a size such as 64MiB or 25MB (units: B kB MB GB TB KiB MiB GiB TiB)";
    case UNIT_FLOPRATE:
        return "a flop rate such as 312Tf (units: f kf Mf Gf Tf Pf Ef)";
    }
    return "a quantity";
}

const char *units_status_str(enum unit_status st)
{
    switch (st) {
    case UNIT_OK:
        return "ok";
    case UNIT_EEMPTY:
        return "empty value";
    case UNIT_ENUMBER:
        return "not a number";
    case UNIT_EMISSING:
        return "missing unit";
    case UNIT_EUNIT:
        return "unknown unit";
    case UNIT_ENEGATIVE:
        return "must be >= 0";
    case UNIT_EZERO:
        return "must be > 0";
    case UNIT_ERANGE:
        return "out of range";
    case UNIT_ECEILING:
        return "above the ceiling for this kind of quantity";
    }
    return "bad value";
}

int units_parse_long(const char *text, long min, long max, long *out)
{
    if (text == NULL || text[0] == '\0') return -1;
    for (const char *p = (text[0] == '-') ? text + 1 : text; *p; p++)
        if (!isdigit((unsigned char)*p)) return -1;
    if (text[0] == '-' && text[1] == '\0') return -1;
    errno = 0;
    char *end;
    long v = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max) return -1;
    *out = v;
    return 0;
}

bool units_parse_int(const char *s, int lo, int hi, int *v)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || x < lo || x > hi) return false;
    *v = (int)x;
    return true;
}

int units_parse_real(const char *text, double *out)
{
    if (text == NULL) return -1;
    size_t n = number_span(text);
    if (n == 0 || text[n] != '\0') return -1;
    errno = 0;
    double v = strtod(text, NULL);
    if (errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}
