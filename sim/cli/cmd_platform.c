/* cmd_platform.c - `dmlsim platform` (see cmd_platform.h). */
#include "cmd_platform.h"

#include "cmdline.h"
#include "error.h"
#include "expect.h"
#include "outfile.h"
#include "platform.h"
#include "scenario.h"

#include <stdio.h>

static void write_platform_xml(const void *sc, FILE *out)
{
    platform_write(sc, out);
}

/* `platform -o OUT`: the generated platform as one output file (report.h), never the input. */
static enum dmlsim_err write_platform(const struct scenario *sc, const char *in, const char *out,
                                      struct dmlsim_error *err)
{
    const struct outfile o = {"-o", out, write_platform_xml, sc};
    const struct outfile_input i = {"scenario file", in};
    enum dmlsim_err rc = platform_check_cluster(sc, err); /* as a run would refuse it */
    if (rc == DMLSIM_OK) rc = outfile_check(&o, 1, &i, 1, err);
    return rc == DMLSIM_OK ? outfile_write(&o, 1, err) : rc;
}

int cmd_platform_main(const struct cli_args *a)
{
    const char *in = a->args[0], *out = cli_value(a, CLI_OUT);
    if (out == NULL) return cli_error(a->cmd, "expected -o OUT.xml");
    struct scenario sc;
    struct dmlsim_error err = {0};
    if (scenario_load(in, &sc, &err) != DMLSIM_OK) return cli_fail(&err);
    int status = 0;
    if (expect_validate(&sc, &err) != DMLSIM_OK) { /* a scenario run would refuse, as before */
        status = cli_fail(&err);
    } else if (!sc.has_cluster) {
        dmlsim_fail(&err, DMLSIM_EUSAGE,
                    "%s:%d: <platform> names an existing platform; expected a <cluster> to "
                    "generate one from",
                    in, sc.cluster_line);
        status = cli_fail(&err);
    } else if (write_platform(&sc, in, out, &err) != DMLSIM_OK) {
        status = cli_fail(&err);
    }
    scenario_release(&sc);
    return status;
}
