/* cmdline.h - the command line's one table: every command, its arguments and its options, and
 * what is made from it, so that none can drift from another: the parsing (getopt_long: options
 * before or after the arguments, --opt=value or --opt value, -- ends the options), the usage,
 * `dmlsim COMMAND --help`, the manual page dmlsim(1) and the bash completion. */
#ifndef DMLSIM_CMDLINE_H
#define DMLSIM_CMDLINE_H

#include <stdio.h>

struct dmlsim_error;

/* The version dmlsim prints (--version, its configuration lines, the manual pages): CMake's
 * project version, 0.0.0 in a build without it. */
#ifndef DMLSIM_VERSION
#define DMLSIM_VERSION "0.0.0"
#endif

/* Option keys: a short option's letter, else one of these. */
enum cli_key {
    CLI_SET = 256,
    CLI_UNSET,
    CLI_CSV,
    CLI_JSON,
    CLI_SUMMARY,
    CLI_FAULT_PLAN,
    CLI_CALIB,
    CLI_TRACE,
    CLI_JUNIT,
    CLI_TIMING,
    CLI_CFG,
    CLI_ZIP,
    CLI_LIST,
    CLI_POINT,
    CLI_SPEC,
    CLI_BATCH,
    CLI_GPU,
    CLI_INTRA,
    CLI_NIC,
    CLI_NICS,
    CLI_ALGO,
    CLI_SHARP,
    CLI_NRANKS,
    CLI_NODES,
    CLI_OP,
    CLI_PROTO,
    CLI_CHANNELS,
    CLI_TOP,
    CLI_UNDER,
    CLI_ESTIMATE,
    CLI_LIMIT,
    CLI_FIX,
    CLI_MEMORY_ONLY,
    CLI_PRICE,
    CLI_PUE,
    CLI_REPLICATIONS,
    CLI_EVERY,
    CLI_SPARES,
    CLI_KEEP,
    CLI_ZOOM,
    CLI_COSTS,
    CLI_GPUS,
    CLI_GPN,
    CLI_SEQ,
    CLI_GBATCH,
    CLI_OUT = 'o',
    CLI_JOBS = 'j',
};

struct cli_opt {
    const char *name; /* long name, without the dashes */
    int key;          /* enum cli_key; a letter is also its short option */
    const char *arg;  /* the value's placeholder, NULL for a flag */
    const char *help; /* one line */
};

struct cli_cmd {
    const char *name;           /* dmlsim NAME */
    const char *args;           /* the arguments' synopsis, e.g. "FILE.xml" */
    int min_args, max_args;     /* how many arguments (max_args -1: any number) */
    const char *summary;        /* one line */
    const char *details;        /* a paragraph for --help and the manual, or NULL */
    const struct cli_opt *opts; /* its options, ended by a zero entry */
};

/* One option given: its key and its value (NULL for a flag), in command-line order. */
struct cli_hit {
    int key;
    const char *value;
};

struct cli_args {
    const struct cli_cmd *cmd; /* the command */
    struct cli_hit *hits;      /* the options given, in order */
    int nhits;
    char **args; /* the arguments, in order */
    int nargs;
};

/* The command named NAME, or NULL. */
const struct cli_cmd *cli_find(const char *name);

/* Parses argv[0..argc) (argv[0] is the command's name) for command c. Returns -1 when parsed
 * into a; else the exit status, the message or the help already printed: 0 after --help, 1 for
 * an unknown option, a missing value, a wrong number of arguments, or an output whose folder
 * is missing or not writable (found before any work). */
int cli_parse(const struct cli_cmd *c, int argc, char **argv, struct cli_args *a);

void cli_args_release(struct cli_args *a);

/* The value of the last option `key` given, or NULL. */
const char *cli_value(const struct cli_args *a, int key);

/* Whether option `key` was given. */
int cli_given(const struct cli_args *a, int key);

/* "dmlsim CMD: WHAT; see 'dmlsim CMD --help'" on stderr; returns 1. */
int cli_error(const struct cli_cmd *c, const char *what);

/* A bad input's message (already "FILE:LINE: ...") on stderr, after what stdout holds so far;
 * returns its exit status (dmlsim_err_status). */
int cli_fail(const struct dmlsim_error *err);

/* The whole usage (every command, one line each), `dmlsim CMD --help`, dmlsim(1) in roff, and
 * the bash completion script. */
void cli_print_usage(FILE *out);
void cli_print_help(const struct cli_cmd *c, FILE *out);
void cli_write_man(FILE *out, const char *version);
void cli_write_completion(FILE *out);

#endif
