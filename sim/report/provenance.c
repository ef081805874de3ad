/* provenance.c - what produced a run's outputs (provenance.h). */
#include "provenance.h"

#include "trace.h"

void provenance_init(struct provenance *pv, const struct scenario *sc, const struct platform *pf)
{
    const struct gpu_model *g = pf->ngpus > 0 ? pf->models[0] : NULL;
    *pv = (struct provenance){.version = DMLSIM_VERSION,
                              .scenario = sc->path,
                              .seed = sc->seed,
                              .nodes = pf->nnodes,
                              .gpus = pf->ngpus,
                              .gpu = g ? g->name : "",
                              .gpu_long = g ? g->long_name : "",
                              .platform = pf->description ? pf->description : ""};
    sha256_file_hex(sc->path, pv->scenario_sha256);
}

void provenance_json(const struct provenance *pv, FILE *out)
{
    fprintf(out, "  \"provenance\": {\"dmlsim\": ");
    trace_json_string(out, pv->version);
    fprintf(out, ", \"scenario_file\": ");
    trace_json_string(out, pv->scenario);
    fprintf(out, ", \"scenario_sha256\": ");
    trace_json_string(out, pv->scenario_sha256);
    fprintf(out, ", \"seed\": %lu, \"nodes\": %zu, \"gpus\": %zu, \"gpu\": ", pv->seed, pv->nodes,
            pv->gpus);
    trace_json_string(out, pv->gpu);
    fprintf(out, ", \"gpu_name\": ");
    trace_json_string(out, pv->gpu_long);
    fprintf(out, ", \"platform\": ");
    trace_json_string(out, pv->platform);
    fprintf(out, "},\n");
}

void provenance_csv(const struct provenance *pv, FILE *out)
{
    fprintf(out, "# dmlsim: %s\n# scenario_file: %s\n# scenario_sha256: %s\n# seed: %lu\n",
            pv->version, pv->scenario, pv->scenario_sha256, pv->seed);
    fprintf(out, "# cluster: %zu node(s), %zu GPU(s)\n# gpu: %s (%s)\n# platform: %s\n", pv->nodes,
            pv->gpus, pv->gpu, pv->gpu_long, pv->platform);
}
