/* campaign_causes.h - published failure mixes a <campaign failures="NAME"> starts from: each row
 * a cause with its rate per GPU-hour, what it does, what it takes, and its source.
 *
 * llama3-405b: every row of Table 5 of "The Llama 3 Herd of Models" (Grattafiori et al.,
 * arXiv:2407.21783, §3.3.4): the 419 unexpected interruptions of a 54-day snapshot of Llama 3
 * 405B pre-training on up to 16K H100, and the 47 planned ones of the text, as rates over
 * 16,384 GPUs x 54 days = 21,233,664 GPU-hours (the paper gives counts, not the GPUs of each
 * day, so the rates assume the whole period at 16K). The counts sum to 419; the table prints
 * 30.1% for the faulty GPUs' 148 (35.3% of 419), a misprint the counts let us avoid.
 * What each does and takes is ours, from the paper's words where it has them: hardware rows
 * crash and take their GPU's node (or, for a switch or cable, the rack of 2 servers its
 * top-of-rack switch serves: §3.3.1); software bugs restart in place; NCCL watchdog timeouts
 * are hangs. Every unplanned row is detected by the job's watchdog ("our system monitors the
 * state of the communication library and automatically times out when such a stall is
 * detected", §3.3.4): dmlsim simulates it. Taken nodes are back after 3 hours, the middle of the
 * 2-4 h a manual GPU or board swap takes (Crusoe, "automatic node replacement", vendor blog;
 * docs/research/issue33-sources.md); the paper says only 3 interruptions needed significant
 * manual work, the rest automation, which a spare pool stands for.
 */
#ifndef DMLSIM_CAMPAIGN_CAUSES_H
#define DMLSIM_CAMPAIGN_CAUSES_H

#include "campaign.h"

#include <stddef.h>

/* The mix called `name` ("llama3-405b"), its rows in *n; NULL when there is none ("none" too). */
const struct camp_cause *campaign_causes(const char *name, size_t *n);

/* The names of the mixes, "none" first, for messages and the DTD's check. */
extern const char *const campaign_cause_mixes[];
extern const size_t campaign_cause_nmixes;

/* The names of kinds ("crash", "hang", "slow", "planned") and scopes ("none", "gpu", "node",
 * "rack"), indexed by enum camp_kind and enum camp_scope. */
extern const char *const campaign_kind_names[CAMP_KINDS];
extern const char *const campaign_scope_names[CAMP_SCOPES];

#endif
