/* platform_route.h - the routes of a loaded user's platform, checked against what the scenario
 * sends (internal to the platform module; callers use platform.h, platform_load).
 *
 * Without a route between two hosts SimGrid aborts at the first transfer between them. The
 * routes are asked of the loaded platform in a child process, so the answer is SimGrid's own
 * whatever the zones' routing, and a crash while looking costs only the child.
 */
#ifndef DMLSIM_PLATFORM_ROUTE_H
#define DMLSIM_PLATFORM_ROUTE_H

#include "error.h"
#include "platform.h"
#include "scenario.h"

/* DMLSIM_OK when the loaded platform pf (a user's, sc->platform_file) routes every pair of hosts
 * the scenario sends between (its workers, parameter servers, store and node CPUs; every pair of
 * up to 512 workers); else DMLSIM_EPLATFORM at the <host> the first missing route leads to. */
enum dmlsim_err platform_route_check(const struct scenario *sc, const struct platform *pf,
                                     struct dmlsim_error *err);

#endif
