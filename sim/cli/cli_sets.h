/* cli_sets.h - the --set ELEM.ATTR=VALUE options of a command that loads a scenario with them
 * (plan, campaign), parsed once into the scenario loader's overrides. */
#ifndef DMLSIM_CLI_SETS_H
#define DMLSIM_CLI_SETS_H

#include "cmdline.h"
#include "scenario.h"

/* The --set options of a, in order, into new arrays: (*ov)[i] = {(*keys)[i], the value}, and
 * (*sets)[i] the option as given; *n of them. Returns 0, or 1 with the message printed (a --set
 * without "=VALUE", refused as run refuses it). Free with cli_sets_free. */
int cli_sets_parse(const struct cli_args *a, struct scenario_override **ov, char ***keys,
                   const char ***sets, int *n);

/* Frees what cli_sets_parse made (n keys). */
void cli_sets_free(struct scenario_override *ov, char **keys, const char **sets, int n);

#endif
