/* units.h - one strict parser for quantities written with SimGrid-style units.
 *
 * "25GBps", "2us", "64MiB", "1Tf": a decimal number immediately followed by a unit of the expected
 * kind. The result is in SI base units (bytes per second, seconds, bytes, FLOP/s). Parsing is
 * strict: no leading or trailing blanks, no missing unit, no unit of another kind, no junk after
 * the unit, no hex, inf or nan. Decimal prefixes (k, M, G, T, P) are powers of 1000; binary ones
 * (Ki, Mi, Gi, Ti) powers of 1024; a lowercase `b` is a bit (bandwidth only), `B` a byte.
 * Bounds (>= 0, > 0) are checked here so that every caller words the error the same way.
 */
#ifndef DMLSIM_UNITS_H
#define DMLSIM_UNITS_H

#include <stdbool.h>

enum unit_kind {
    UNIT_BANDWIDTH, /* bytes per second: Bps kBps MBps GBps TBps KiBps MiBps GiBps bps kbps Gbps ..
                     */
    UNIT_TIME,      /* seconds: w d h m s ms us ns ps */
    UNIT_SIZE,      /* bytes: B kB MB GB TB KiB MiB GiB TiB */
    UNIT_FLOPRATE,  /* FLOP/s: f kf Mf Gf Tf Pf Ef */
};

enum unit_bound {
    UNIT_ANY,      /* any finite value */
    UNIT_NONNEG,   /* >= 0 */
    UNIT_POSITIVE, /* > 0 */
};

enum unit_status {
    UNIT_OK,
    UNIT_EEMPTY,    /* empty string */
    UNIT_ENUMBER,   /* does not start with a decimal number */
    UNIT_EMISSING,  /* a number with no unit */
    UNIT_EUNIT,     /* a unit that is not one of this kind's */
    UNIT_ENEGATIVE, /* < 0 where UNIT_NONNEG or UNIT_POSITIVE was asked */
    UNIT_EZERO,     /* == 0 where UNIT_POSITIVE was asked */
    UNIT_ERANGE,    /* overflows a double */
    UNIT_ECEILING,  /* above the kind's ceiling (units_ceiling) */
};

/* Parses `text` as a quantity of `kind` into `*out_si` (untouched on failure). */
enum unit_status units_parse(const char *text, enum unit_kind kind, enum unit_bound bound,
                             double *out_si);

/* The largest value of a kind any input may give, in SI units, so that every amount reaching the
 * engine stays finite and every run ends: bandwidth 1 PB/s (NVLink 5 is 1.8 TB/s per GPU), time
 * 1e9 s (about 32 years), size 1 EB, flop rate 1 ZFLOP/s (a GB200 NVL72 rack is about 1.4e18
 * FP8 FLOP/s dense). Plain numbers: UNITS_REAL_CEILING. */
double units_ceiling(enum unit_kind kind);
#define UNITS_REAL_CEILING 1e18

/* A lowercase phrase for an error message: "a bandwidth such as 25GBps (units: Bps, kBps, ...)". */
const char *units_expected(enum unit_kind kind);

/* A lowercase phrase for a status: "missing unit", "unknown unit", "must be > 0", ... */
const char *units_status_str(enum unit_status st);

/* Strict integer parse: decimal digits only, within [min, max]. Returns 0 on success, -1 else. */
int units_parse_long(const char *text, long min, long max, long *out);

/* strtol's syntax (leading blanks and a sign allowed), the whole string, within [lo, hi]: the
 * calibration readers' integer fields (calib.c, nccl_log.c). Returns false otherwise. */
bool units_parse_int(const char *s, int lo, int hi, int *v);

/* Strict plain real number (no unit), finite. Returns 0 on success, -1 else. */
int units_parse_real(const char *text, double *out);

#endif
