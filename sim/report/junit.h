/* junit.h - a training run's <expect>s as a JUnit XML report (dmlsim run --junit FILE).
 *
 * CI systems (Jenkins' junit and xunit plugins, GitLab's unit test reports, GitHub Actions' test
 * reporters) show test results from the XML that Apache Ant's XMLJUnitResultFormatter first
 * wrote; Jenkins' xunit plugin checks it against junit-10.xsd (tests/data/junit/junit.xsd is a
 * transcription of its elements and attributes). The report is one <testsuites> holding one
 * <testsuite> for the scenario:
 *   - testsuite name: the scenario's name; properties dmlsim.version, scenario.file,
 *     scenario.seed and simulated_time_s (the run's simulated seconds);
 *   - one <testcase> per <expect>, in the scenario's order: name "METRIC COMPARISON"
 *     ("applied == 20", "final_accuracy >= 0.75", "cache_hit_fraction in [0.5, 0.749]"),
 *     classname the scenario file as given without its ".xml" (Jenkins reads the text after
 *     a classname's last dot as the class: "scenarios/ci/ring-crash-elastic.xml" would be
 *     class "xml" of every scenario); a failed one holds <failure type="expect"
 *     message="value V, expected COMPARISON"> with "FILE:LINE: METRIC = V; expected
 *     COMPARISON" as its text;
 *   - when the simulated job failed and no <expect> names job_failed (dmlsim run's exit 4), one
 *     more testcase "job completes" with <error type="job_failed" message="the simulated job
 *     failed: WHY">.
 * So tests = the <expect>s (+1 for a failed job), failures = the failed <expect>s (exit 3),
 * errors = 0 or 1 (exit 4), skipped = 0. Every time attribute is "0": JUnit's time is wall-clock
 * seconds, which would make two runs' reports differ; the simulated time is a property. No
 * timestamp and no hostname either: the same scenario and seed give the same bytes.
 * A refused scenario or option (exit 1) writes no report, like every output file (outfile.h).
 * Rejected: the simulated time as each test's time (a CI system would chart a 2-hour "test" for
 * a run of a second); one testsuite per metric (CI systems group by suite: one per scenario
 * reads as one experiment).
 */
#ifndef DMLSIM_JUNIT_H
#define DMLSIM_JUNIT_H

#include "error.h"
#include "run.h"
#include "scenario.h"

#include <stdio.h>

/* Fails (DMLSIM_EUSAGE, "PATH:0: --junit: ...") when the scenario's path or name is not UTF-8
 * text that XML can carry (control characters); call it before anything is simulated. */
enum dmlsim_err junit_check(const struct scenario *sc, struct dmlsim_error *err);

/* Writes the report of run rec of sc (checked by junit_check and expect_validate) to out. */
void junit_write(const struct scenario *sc, const struct run_record *rec, FILE *out);

#endif
