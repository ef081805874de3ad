/* sgcfg.h - SimGrid configuration from the command line: `dmlsim run --cfg=KEY:VALUE`, passed to
 * simgrid_init as SimGrid's own --cfg (see SimGrid's "Configuring SimGrid" page for the keys).
 * A key dmlsim sets itself (platform_configure: network/model, network/crosstraffic,
 * network/TCP-gamma; platform_setup: contexts/guard-size) is left to the user when given. */
#ifndef DMLSIM_SGCFG_H
#define DMLSIM_SGCFG_H

#include "error.h"

#include <stdbool.h>

/* Checks every option ("KEY:VALUE") in a child process that initialises SimGrid with them, so
 * that an unknown key or a value SimGrid refuses is a one-line error instead of SimGrid's abort;
 * before that, values SimGrid accepts but crashes on later are refused with what is expected
 * (contexts/stack-size: an integer of KiB from 16 to 1048576; contexts/guard-size: pages, 0 to
 * 1024). */
enum dmlsim_err sgcfg_check(const char *const *opts, int n, struct dmlsim_error *err);

/* simgrid_init with the options (checked before), remembered for sgcfg_user_set. */
void sgcfg_init(const char *const *opts, int n);

/* The i-th option given to sgcfg_init ("KEY:VALUE"), or NULL past the last. */
const char *sgcfg_option(int i);

/* Whether the command line set KEY (after sgcfg_init). */
bool sgcfg_user_set(const char *key);

#endif
