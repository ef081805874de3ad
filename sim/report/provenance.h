/* provenance.h - what produced a run's outputs: the dmlsim version, the scenario file (its path
 * and the SHA-256 of its bytes), the seed, the cluster and its GPU.
 *
 * The JSON carries it as its "provenance" object, the CSV as "# key: value" lines before its
 * header (comment lines for gnuplot, awk filters on the first field, pandas' comment="#"), so a
 * result found later says which program, input and machine made it: `sha256sum FILE.xml`
 * matches scenario_sha256 exactly when the file is the one that ran. No wall clock or host name
 * of the machine that ran dmlsim: outputs stay byte-identical from run to run.
 */
#ifndef DMLSIM_PROVENANCE_H
#define DMLSIM_PROVENANCE_H

#include "platform.h"
#include "scenario.h"
#include "sha256.h"

#include <stddef.h>
#include <stdio.h>

struct provenance {
    const char *version;              /* dmlsim's (DMLSIM_VERSION) */
    const char *scenario;             /* the scenario file's path, as given */
    char scenario_sha256[SHA256_HEX]; /* SHA-256 of its bytes; "" when it cannot be read */
    unsigned long seed;               /* the run's seed */
    size_t nodes;                     /* worker nodes (0: the platform names none) */
    size_t gpus;                      /* GPU hosts */
    const char *gpu;                  /* rank 0's GPU: catalog name ("" without a GPU) */
    const char *gpu_long;             /* ... and its long name */
    const char *platform;             /* the platform's description line (the "# platform" one) */
};

/* Fills pv from sc and pf (which must outlive it); reads sc->path to hash it. */
void provenance_init(struct provenance *pv, const struct scenario *sc, const struct platform *pf);

/* Writes `  "provenance": {...},` and a newline: the JSON's first member. */
void provenance_json(const struct provenance *pv, FILE *out);

/* Writes the "# key: value" lines that open the CSV. */
void provenance_csv(const struct provenance *pv, FILE *out);

#endif
