/* sgguard.h - SimGrid never reaches the user (issue 28).
 *
 * SimGrid reports some misuses and failures as C++ exceptions (HostFailureException: "Cannot
 * start actor on failed host", NetworkFailureException, ...). Through dmlsim's C code nothing
 * catches them: they end in std::terminate, where SimGrid's own handler printed an 80-line
 * backtrace and aborted (exit 134). Every known cause is fixed where it starts (an actor is never
 * started on a host that is off); this is the net below them: a terminate handler that prints one
 * line, FILE:LINE of the scenario's <training>, "the simulated job failed: " and the exception's
 * message, and exits 4 as every failed job does. C++ behind a C header because catching a C++
 * exception (std::current_exception) has no C equivalent; no SimGrid C++ API is used. */
#ifndef DMLSIM_SGGUARD_H
#define DMLSIM_SGGUARD_H

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the handler (after simgrid_init, which installs its own); `path` and `line` name the
 * scenario's <training> (the strings are kept, not copied). */
void sgguard_install(const char *path, int line);

#ifdef __cplusplus
}
#endif

#endif
