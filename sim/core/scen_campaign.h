/* scen_campaign.h - reads <campaign> and its <failure> children (the campaign, campaign.h).
 *
 * A campaign is the scenario's job played over days to months: it needs the hybrid strategy
 * (whose restart dmlsim simulates) and a <checkpoint every="N steps" target="remote">, both read
 * before it (the DTD's order). The failure mix starts from a published preset
 * (campaign_causes.h); a <failure> of a preset row's cause replaces that row, another adds one.
 */
#ifndef DMLSIM_SCEN_CAMPAIGN_H
#define DMLSIM_SCEN_CAMPAIGN_H

#include "attr.h"

/* <campaign> into sc->camp. */
enum dmlsim_err scen_campaign_read(struct reader *r, xmlNodePtr n, struct scenario *sc);

#endif
