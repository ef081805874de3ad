/* campaign_causes.c - the published failure mixes (campaign_causes.h). */
#include "campaign_causes.h"

#include <string.h>

#define L3_GPU_HOURS (16384.0 * 54 * 24) /* Llama 3's 54-day snapshot at 16K GPUs */
#define L3_SRC       "Llama 3 (arXiv:2407.21783) Table 5"
#define SWAP_S       (3 * 3600.0) /* a node back: the middle of a 2-4 h manual card swap */

#define L3(nm, count, k, sc, rep) \
    { \
        .name = nm, .per_gpu_hour = (count) / L3_GPU_HOURS, .kind = k, .scope = sc, \
        .detect_s = -1, .repair_s = rep, .source = L3_SRC \
    }

static const struct camp_cause llama3[] = {
        L3("faulty-gpu", 148, CAMP_CRASH, CAMP_SCOPE_GPU, SWAP_S),
        L3("gpu-hbm3", 72, CAMP_CRASH, CAMP_SCOPE_GPU, SWAP_S),
        L3("software-bug", 54, CAMP_CRASH, CAMP_SCOPE_NONE, 0),
        L3("network-switch-cable", 35, CAMP_CRASH, CAMP_SCOPE_RACK, SWAP_S),
        L3("host-maintenance", 32, CAMP_CRASH, CAMP_SCOPE_NODE, SWAP_S),
        L3("gpu-sram", 19, CAMP_CRASH, CAMP_SCOPE_GPU, SWAP_S),
        L3("gpu-system-processor", 17, CAMP_CRASH, CAMP_SCOPE_GPU, SWAP_S),
        L3("nic", 7, CAMP_CRASH, CAMP_SCOPE_NODE, SWAP_S),
        L3("nccl-watchdog-hang", 7, CAMP_HANG, CAMP_SCOPE_NONE, 0),
        L3("silent-data-corruption", 6, CAMP_CRASH, CAMP_SCOPE_GPU, SWAP_S),
        L3("gpu-thermal-sensor", 6, CAMP_CRASH, CAMP_SCOPE_GPU, SWAP_S),
        L3("ssd", 3, CAMP_CRASH, CAMP_SCOPE_NODE, SWAP_S),
        L3("power-supply", 3, CAMP_CRASH, CAMP_SCOPE_NODE, SWAP_S),
        L3("server-chassis", 2, CAMP_CRASH, CAMP_SCOPE_NODE, SWAP_S),
        L3("io-expansion-board", 2, CAMP_CRASH, CAMP_SCOPE_NODE, SWAP_S),
        L3("dependency", 2, CAMP_CRASH, CAMP_SCOPE_NONE, 0),
        L3("cpu", 2, CAMP_CRASH, CAMP_SCOPE_NODE, SWAP_S),
        L3("system-memory", 2, CAMP_CRASH, CAMP_SCOPE_NODE, SWAP_S),
        /* §3.3.4: "47 were planned interruptions due to automated maintenance operations such as
           firmware upgrades or operator-initiated operations like configuration or dataset
           updates": a checkpoint, then a restart */
        {.name = "planned-maintenance",
         .per_gpu_hour = 47 / L3_GPU_HOURS,
         .kind = CAMP_PLANNED,
         .scope = CAMP_SCOPE_NONE,
         .detect_s = 0,
         .repair_s = 0,
         .source = L3_SRC " text"},
};

const char *const campaign_cause_mixes[] = {"none", "llama3-405b"};
const size_t campaign_cause_nmixes = sizeof campaign_cause_mixes / sizeof *campaign_cause_mixes;
const char *const campaign_kind_names[CAMP_KINDS] = {"crash", "hang", "slow", "planned"};
const char *const campaign_scope_names[CAMP_SCOPES] = {"none", "gpu", "node", "rack"};

const struct camp_cause *campaign_causes(const char *name, size_t *n)
{
    if (strcmp(name, "llama3-405b") == 0) {
        *n = sizeof llama3 / sizeof *llama3;
        return llama3;
    }
    *n = 0;
    return NULL;
}
