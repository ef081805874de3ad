/* check_units.c - the quantity parser: every unit, every error. Expected values are the unit
 * definitions themselves (SI prefixes are powers of 1000, IEC prefixes powers of 1024, 8 bits a
 * byte), written out here by hand. */
#include "units.h"

#include <check.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct unit_case {
    const char *text;
    enum unit_kind kind;
    double expect;
};

static const struct unit_case good[] = {
        /* bandwidth, bytes */
        {"1Bps", UNIT_BANDWIDTH, 1},
        {"1kBps", UNIT_BANDWIDTH, 1e3},
        {"1MBps", UNIT_BANDWIDTH, 1e6},
        {"25GBps", UNIT_BANDWIDTH, 25e9},
        {"1TBps", UNIT_BANDWIDTH, 1e12},
        {"1KiBps", UNIT_BANDWIDTH, 1024},
        {"1MiBps", UNIT_BANDWIDTH, 1048576},
        {"1GiBps", UNIT_BANDWIDTH, 1073741824},
        {"1TiBps", UNIT_BANDWIDTH, 1099511627776.0},
        /* bandwidth, bits: divide by 8 */
        {"8bps", UNIT_BANDWIDTH, 1},
        {"8kbps", UNIT_BANDWIDTH, 1e3},
        {"8Mbps", UNIT_BANDWIDTH, 1e6},
        {"100Gbps", UNIT_BANDWIDTH, 12.5e9},
        {"8Tbps", UNIT_BANDWIDTH, 1e12},
        {"8Kibps", UNIT_BANDWIDTH, 1024},
        {"8Mibps", UNIT_BANDWIDTH, 1048576},
        {"8Gibps", UNIT_BANDWIDTH, 1073741824},
        /* time */
        {"1w", UNIT_TIME, 604800},
        {"1d", UNIT_TIME, 86400},
        {"2h", UNIT_TIME, 7200},
        {"3m", UNIT_TIME, 180},
        {"1.5s", UNIT_TIME, 1.5},
        {"2ms", UNIT_TIME, 2e-3},
        {"2us", UNIT_TIME, 2e-6},
        {"7ns", UNIT_TIME, 7e-9},
        {"5ps", UNIT_TIME, 5e-12},
        /* size */
        {"8B", UNIT_SIZE, 8},
        {"1kB", UNIT_SIZE, 1e3},
        {"25MB", UNIT_SIZE, 25e6},
        {"2GB", UNIT_SIZE, 2e9},
        {"1TB", UNIT_SIZE, 1e12},
        {"4KiB", UNIT_SIZE, 4096},
        {"64MiB", UNIT_SIZE, 67108864},
        {"1GiB", UNIT_SIZE, 1073741824},
        {"1TiB", UNIT_SIZE, 1099511627776.0},
        /* flop rate */
        {"1f", UNIT_FLOPRATE, 1},
        {"1kf", UNIT_FLOPRATE, 1e3},
        {"1Mf", UNIT_FLOPRATE, 1e6},
        {"1Gf", UNIT_FLOPRATE, 1e9},
        {"312Tf", UNIT_FLOPRATE, 312e12},
        {"1Pf", UNIT_FLOPRATE, 1e15},
        {"1Ef", UNIT_FLOPRATE, 1e18},
        /* number forms */
        {"1e3B", UNIT_SIZE, 1000},
        {"2.5E-1s", UNIT_TIME, 0.25},
        {".5s", UNIT_TIME, 0.5},
        {"+3s", UNIT_TIME, 3},
};

START_TEST(test_good_units)
{
    const struct unit_case *c = &good[_i];
    double v = -1;
    ck_assert_int_eq(units_parse(c->text, c->kind, UNIT_POSITIVE, &v), UNIT_OK);
    ck_assert_msg(fabs(v - c->expect) <= 1e-12 * c->expect, "%s: got %.17g, expected %.17g",
                  c->text, v, c->expect);
}
END_TEST

struct bad_case {
    const char *text;
    enum unit_kind kind;
    enum unit_bound bound;
    enum unit_status expect;
};

static const struct bad_case bad[] = {
        {"", UNIT_SIZE, UNIT_ANY, UNIT_EEMPTY},
        {"B", UNIT_SIZE, UNIT_ANY, UNIT_ENUMBER},
        {"abc", UNIT_SIZE, UNIT_ANY, UNIT_ENUMBER},
        {" 8B", UNIT_SIZE, UNIT_ANY, UNIT_ENUMBER},   /* leading blank */
        {"0x10B", UNIT_SIZE, UNIT_ANY, UNIT_ENUMBER}, /* hex is not a decimal number */
        {"infB", UNIT_SIZE, UNIT_ANY, UNIT_ENUMBER},
        {"nanB", UNIT_SIZE, UNIT_ANY, UNIT_ENUMBER},
        {"8", UNIT_SIZE, UNIT_ANY, UNIT_EMISSING}, /* missing unit */
        {"2", UNIT_TIME, UNIT_ANY, UNIT_EMISSING},
        {"8B ", UNIT_SIZE, UNIT_ANY, UNIT_EUNIT}, /* trailing blank */
        {"8Bx", UNIT_SIZE, UNIT_ANY, UNIT_EUNIT}, /* trailing junk */
        {"1.5.2MB", UNIT_SIZE, UNIT_ANY, UNIT_EUNIT},
        {"8KB", UNIT_SIZE, UNIT_ANY, UNIT_EUNIT},    /* ambiguous: kB or KiB */
        {"8kb", UNIT_SIZE, UNIT_ANY, UNIT_EUNIT},    /* bits are not a size */
        {"25GBps", UNIT_SIZE, UNIT_ANY, UNIT_EUNIT}, /* a unit of another kind */
        {"2us", UNIT_BANDWIDTH, UNIT_ANY, UNIT_EUNIT},
        {"64MiB", UNIT_TIME, UNIT_ANY, UNIT_EUNIT},
        {"1Tf", UNIT_SIZE, UNIT_ANY, UNIT_EUNIT},
        {"2S", UNIT_TIME, UNIT_ANY, UNIT_EUNIT}, /* units are case-sensitive */
        {"-8B", UNIT_SIZE, UNIT_NONNEG, UNIT_ENEGATIVE},
        {"-1s", UNIT_TIME, UNIT_POSITIVE, UNIT_ENEGATIVE},
        {"0B", UNIT_SIZE, UNIT_POSITIVE, UNIT_EZERO},
        {"0s", UNIT_TIME, UNIT_POSITIVE, UNIT_EZERO},
        {"1e400B", UNIT_SIZE, UNIT_ANY, UNIT_ERANGE},
        {"1e300TiB", UNIT_SIZE, UNIT_ANY, UNIT_ERANGE},
};

START_TEST(test_bad_units)
{
    const struct bad_case *c = &bad[_i];
    double v = 12345;
    enum unit_status st = units_parse(c->text, c->kind, c->bound, &v);
    ck_assert_msg(st == c->expect, "\"%s\": status %d (%s), expected %d (%s)", c->text, st,
                  units_status_str(st), c->expect, units_status_str(c->expect));
    ck_assert_msg(v == 12345, "\"%s\": output written on failure", c->text);
}
END_TEST

START_TEST(test_bounds_accept)
{
    double v;
    ck_assert_int_eq(units_parse("0B", UNIT_SIZE, UNIT_NONNEG, &v), UNIT_OK);
    ck_assert_double_eq(v, 0);
    ck_assert_int_eq(units_parse("-2s", UNIT_TIME, UNIT_ANY, &v), UNIT_OK);
    ck_assert_double_eq(v, -2);
}
END_TEST

START_TEST(test_messages_name_units)
{
    /* Every kind's expectation lists its units; every status has its own phrase. */
    ck_assert_ptr_nonnull(strstr(units_expected(UNIT_BANDWIDTH), "Gbps"));
    ck_assert_ptr_nonnull(strstr(units_expected(UNIT_TIME), "us"));
    ck_assert_ptr_nonnull(strstr(units_expected(UNIT_SIZE), "MiB"));
    ck_assert_ptr_nonnull(strstr(units_expected(UNIT_FLOPRATE), "Tf"));
    ck_assert_str_eq(units_status_str(UNIT_EMISSING), "missing unit");
    ck_assert_str_eq(units_status_str(UNIT_EZERO), "must be > 0");
}
END_TEST

START_TEST(test_integers)
{
    long v;
    ck_assert_int_eq(units_parse_long("42", 0, 100, &v), 0);
    ck_assert_int_eq(v, 42);
    ck_assert_int_eq(units_parse_long("-3", -5, 5, &v), 0);
    ck_assert_int_eq(v, -3);
    const char *bad_ints[] = {"",   "-",    "2.5", "1e3", " 4",
                              "4 ", "0x10", "abc", "101", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
        ck_assert_msg(units_parse_long(bad_ints[i], 0, 100, &v) == -1, "accepted \"%s\"",
                      bad_ints[i]);
    double r;
    ck_assert_int_eq(units_parse_real("1.5", &r), 0);
    ck_assert_double_eq(r, 1.5);
    ck_assert_int_eq(units_parse_real("1.5x", &r), -1);
    ck_assert_int_eq(units_parse_real("inf", &r), -1);
}
END_TEST

static Suite *units_suite(void)
{
    Suite *s = suite_create("units");
    TCase *tc = tcase_create("parse");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_good_units, 0, sizeof good / sizeof good[0]);
    tcase_add_loop_test(tc, test_bad_units, 0, sizeof bad / sizeof bad[0]);
    tcase_add_test(tc, test_bounds_accept);
    tcase_add_test(tc, test_messages_name_units);
    tcase_add_test(tc, test_integers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(units_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
