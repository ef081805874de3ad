/* fuzz_scenario.c - libFuzzer harness for the scenario loader: arbitrary bytes are loaded as a
 * scenario (libxml2 parse, DTD validation, every value check); it must accept or reject with one
 * FILE:LINE line, never crash, leak or hang. Seeds: tests/fuzz/corpus (every shipped and bad
 * scenario); dictionary: the DTD's names (tools/fuzz.sh). */
#include "fuzz_common.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    struct scenario sc;
    struct dmlsim_error err = {0};
    if (scenario_load(path, &sc, &err) == DMLSIM_OK)
        scenario_release(&sc);
    else
        fuzz_check_error(&err);
    return 0;
}
