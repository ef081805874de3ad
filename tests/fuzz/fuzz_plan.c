/* fuzz_plan.c - libFuzzer harness past loading: every scenario the loader accepts gets its
 * platform document (the generated cluster, or the user's file checked before SimGrid sees it)
 * and its fault plan built, as `dmlsim run` does before SimGrid loads the platform (which a
 * process can do only once, so it is not fuzzed here). Must not crash, leak or run away: the
 * plan's size is capped (FAULT_MAX_EVENTS). */
#include "fault.h"
#include "fuzz_common.h"
#include "platform.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    struct scenario sc;
    struct dmlsim_error err = {0};
    if (scenario_load(path, &sc, &err) != DMLSIM_OK) return 0;
    struct platform_doc *doc = NULL;
    struct fault_names names;
    struct fault_plan plan;
    enum dmlsim_err rc = platform_open(&sc, &doc, &names, &err);
    if (rc == DMLSIM_OK) rc = fault_plan_build(&sc, &names, &plan, &err);
    if (rc == DMLSIM_OK) {
        if (plan.n > FAULT_MAX_EVENTS) abort();
        fault_plan_release(&plan);
    } else {
        fuzz_check_error(&err);
    }
    platform_names_release(&names);
    platform_close(doc);
    scenario_release(&sc);
    return 0;
}
