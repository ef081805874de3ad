/* datadir.h - dmlsim's shipped files (presets, calibration profiles, plot scripts, example
 * scenarios), found relative to the running binary: BIN/../share/dmlsim when installed
 * (cmake --install), else BIN/.. when BIN is the build folder of a source tree. Nothing outside
 * the install prefix is needed. */
#ifndef DMLSIM_DATADIR_H
#define DMLSIM_DATADIR_H

#include <stddef.h>

/* The first existing DIR/rel of those two into buf; NULL when neither exists. */
const char *datadir_find(const char *rel, char *buf, size_t len);

/* A --calib argument: itself when it names a file, else a shipped profile of that name
 * (platforms/calib/NAME.calib, e.g. "spec-h100") when there is one, else itself (whose load then
 * fails with its own message). */
const char *datadir_calib(const char *arg, char *buf, size_t len);

#endif
