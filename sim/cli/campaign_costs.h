/* campaign_costs.h - `dmlsim campaign --costs FILE`: the costs an earlier campaign of the same
 * scenario simulated, read back from its --json, so that policies, intervals and spares can be
 * explored again in seconds without simulating the job again. The file must be that campaign's:
 * the same scenario name, GPUs, tokens a step and causes (their count), and the shrunk sizes
 * when the policy is shrink. */
#ifndef DMLSIM_CAMPAIGN_COSTS_H
#define DMLSIM_CAMPAIGN_COSTS_H

#include "campaign.h"
#include "scenario.h"

/* Reads path's "costs" into *k for cfg; 0, or 1 with a "FILE:0: ..." message printed. */
int campaign_costs_read(const char *path, const struct scenario *sc, const struct camp_config *cfg,
                        struct camp_costs *k);

#endif
