/* main.c - the dmlsim command line. Parses arguments, hands each command to its module, prints
 * one message and exits with the status of error.h: 1 bad input, 3 a failed <expect>, 4 a
 * simulated job that failed. The commands live in cmd_run.c, cmd_platform.c, cmd_catalog.c,
 * cmd_metrics.c, sweep.c, import_cmd.c and validate.c (with its validate_*.c); here only the
 * dispatch, help, --version, the manual pages, the completion script, the signals (interrupt.h)
 * and standard output's own errors. */
#include "campaign_cmd.h"
#include "cmd_catalog.h"
#include "cmd_metrics.h"
#include "cmd_platform.h"
#include "cmd_run.h"
#include "cmdline.h"
#include "import_cmd.h"
#include "interrupt.h"
#include "scenario_doc.h"
#include "plan.h"
#include "sweep.h"
#include "validate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int usage_error(const char *what)
{
    fprintf(stderr, "dmlsim: %s; see 'dmlsim --help'\n", what);
    return 1;
}

/* dmlsim manpage [1|5] [roff|markdown]. */
static int cmd_manpage(const struct cli_args *a)
{
    const char *sec = a->nargs ? a->args[0] : "1", *fmt = a->nargs > 1 ? a->args[1] : "roff";
    bool md = strcmp(fmt, "markdown") == 0;
    if (!md && strcmp(fmt, "roff") != 0)
        return cli_error(a->cmd, "expected FORMAT roff (the default) or markdown");
    if (strcmp(sec, "1") == 0 && !md) {
        cli_write_man(stdout, DMLSIM_VERSION);
        return 0;
    }
    if (strcmp(sec, "5") != 0)
        return cli_error(a->cmd, md ? "expected SECTION 5 with markdown"
                                    : "expected SECTION 1 (dmlsim) or 5 (dmlsim-scenario)");
    if (!scenario_doc_write(stdout, md ? SCENARIO_DOC_MARKDOWN : SCENARIO_DOC_ROFF,
                            DMLSIM_VERSION))
        return cli_error(a->cmd, "the attribute table and the DTD disagree (above), or out of "
                                 "memory");
    return 0;
}

/* Runs the parsed command a; returns the exit status. */
static int run_command(const struct cli_args *a, const char *self)
{
    const char *name = a->cmd->name;
    if (strcmp(name, "run") == 0) return cmd_run_main(a);
    if (strcmp(name, "sweep") == 0) return sweep_main(self, a);
    if (strcmp(name, "plan") == 0) return plan_main(self, a);
    if (strcmp(name, "campaign") == 0) return campaign_main(self, a);
    if (strcmp(name, "merge") == 0) return sweep_merge_main(a);
    if (strcmp(name, "calib") == 0) return validate_calib_main(a);
    if (strcmp(name, "shapes") == 0) return validate_shapes_main(a);
    if (strcmp(name, "validate") == 0) return validate_main(a);
    if (strcmp(name, "platform") == 0) return cmd_platform_main(a);
    if (strcmp(name, "metrics") == 0) return cmd_metrics_main(a);
    if (strcmp(name, "catalog") == 0) return cmd_catalog_main(a);
    if (strcmp(name, "import") == 0) return import_main(a);
    if (strcmp(name, "manpage") == 0) return cmd_manpage(a);
    if (strcmp(name, "completion") == 0) cli_write_completion(stdout);
    return 0;
}

/* The command argv[1]; returns the exit status. */
static int dispatch(int argc, char **argv)
{
    if (argc < 2) return usage_error("missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        const char *name = argc > 2 && strcmp(cmd, "help") == 0 ? argv[2] : NULL;
        const struct cli_cmd *c = name ? cli_find(name) : NULL;
        if (name != NULL && c == NULL) {
            char what[128];
            snprintf(what, sizeof what, "unknown command '%s'", name);
            return usage_error(what);
        }
        if (c)
            cli_print_help(c, stdout);
        else
            cli_print_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("dmlsim %s\n", DMLSIM_VERSION);
        return 0;
    }
    const struct cli_cmd *c = cli_find(cmd);
    if (c == NULL) {
        char what[128];
        snprintf(what, sizeof what, "unknown command '%s'", cmd);
        return usage_error(what);
    }
    struct cli_args a;
    int st = cli_parse(c, argc - 1, argv + 1, &a);
    if (st < 0) st = run_command(&a, argv[0]);
    cli_args_release(&a);
    return st;
}

/* Standard output is an output too: a write error there (a full disk, /dev/full) is exit 1. */
static int close_stdout(int status)
{
    int e = fflush(stdout) != 0 ? errno : ferror(stdout) ? EIO : 0;
    if (e == 0) return status;
    fprintf(stderr, "dmlsim: cannot write the standard output: %s\n", strerror(e));
    return 1;
}

int main(int argc, char **argv)
{
    interrupt_catch();
    return close_stdout(dispatch(argc, argv));
}
