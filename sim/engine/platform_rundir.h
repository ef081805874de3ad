/* platform_rundir.h - the run's temporary folder of the rewritten platform and its profiles
 * (internal to the platform module; callers use platform.h, platform_interrupt).
 *
 * One folder a run, $TMPDIR/dmlsim-run-PID-XXXXXX, from platform_open to platform_close; it is
 * registered so that an interrupt handler can remove it (async-signal-safe), and folders of
 * dmlsim processes that no longer exist are removed when the next one is made.
 */
#ifndef DMLSIM_PLATFORM_RUNDIR_H
#define DMLSIM_PLATFORM_RUNDIR_H

#include "error.h"
#include "scenario.h"

#include <stddef.h>

/* Creates the run's folder in $TMPDIR (else /tmp) into dir (len bytes), registered for
 * platform_interrupt; removes stale ones first. On failure dir is "" and the error
 * DMLSIM_EIO at sc's file. Signals are held only around the creation and registration. */
enum dmlsim_err platform_rundir_make(const struct scenario *sc, char *dir, size_t len,
                                     struct dmlsim_error *err);

/* Removes the folder dir made by platform_rundir_make (nothing when dir is "") and unregisters
 * it. */
void platform_rundir_release(const char *dir);

#endif
