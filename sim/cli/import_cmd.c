/* import_cmd.c - the `dmlsim import` command (see import_cmd.h). */
#include "import_cmd.h"

#include "import_hf.h"
#include "import_megatron.h"
#include "import_scen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A positive integer option's value into *out; 0 or an error line. */
static int opt_int(const struct cli_args *a, int key, const char *name, long *out)
{
    const char *v = cli_value(a, key);
    char *end, what[160];
    if (v == NULL) return 0;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno == 0 && end != v && *end == '\0' && n >= 1 && n <= (1L << 30)) {
        *out = n;
        return 0;
    }
    snprintf(what, sizeof what, "--%s '%s': expected a positive integer", name, v);
    return cli_error(a->cmd, what);
}

static int read_opts(const struct cli_args *a, struct import_opts *o)
{
    memset(o, 0, sizeof *o);
    o->gpu = cli_value(a, CLI_GPU);
    o->nic = cli_value(a, CLI_NIC);
    if (opt_int(a, CLI_GPUS, "gpus", &o->gpus) ||
        opt_int(a, CLI_GPN, "gpus-per-node", &o->gpus_per_node) ||
        opt_int(a, CLI_NICS, "nics", &o->nics) || opt_int(a, CLI_SEQ, "seq", &o->seq) ||
        opt_int(a, CLI_GBATCH, "global-batch", &o->batch))
        return 1;
    return 0;
}

/* Writes the scenario to -o's file or stdout; 0 or 1 with a message. */
static int emit(const struct cli_args *a, const char *source, const char *preset,
                const struct import_model *m, const struct import_job *j, const char *notes)
{
    const char *path = cli_value(a, CLI_OUT);
    FILE *out = path ? fopen(path, "w") : stdout;
    if (out == NULL) {
        fprintf(stderr, "%s:0: cannot write: %s; expected a file that can be written\n", path,
                strerror(errno));
        return 1;
    }
    import_scen_write(out, source, preset, m, j, notes);
    if (path == NULL) return 0;
    if (fclose(out) != 0) {
        fprintf(stderr, "%s:0: cannot write: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

int import_main(const struct cli_args *a)
{
    struct import_opts o;
    struct import_model m;
    struct import_job j;
    char notes[2048], err[1024], source[512], ignored[4096];
    const char *what = a->args[0], *preset = NULL;
    int rc;
    if (read_opts(a, &o) != 0) return 1;
    if (strcmp(what, "megatron") == 0) {
        snprintf(source, sizeof source, "megatron");
        rc = import_megatron(a->nargs - 1, a->args + 1, &o, &m, &j, notes, sizeof notes, ignored,
                             sizeof ignored, err, sizeof err);
    } else if (strcmp(what, "hf") == 0) {
        if (a->nargs != 2) return cli_error(a->cmd, "import hf takes one config.json");
        snprintf(source, sizeof source, "hf %s", a->args[1]);
        rc = import_hf(a->args[1], &o, &m, &j, notes, sizeof notes, ignored, sizeof ignored, err,
                       sizeof err);
    } else {
        snprintf(err, sizeof err, "unknown source '%s'; expected megatron or hf", what);
        return cli_error(a->cmd, err);
    }
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (import_scen_match(&m, &preset, err, sizeof err) != 0) {
        fprintf(stderr, "dmlsim import %s: %s\n", what, err);
        return 1;
    }
    if (ignored[0]) /* after every check: a refused import prints its one line only */
        fprintf(stderr, "dmlsim import %s: not simulated, ignored: %s\n", what, ignored);
    return emit(a, source, preset, &m, &j, notes);
}
