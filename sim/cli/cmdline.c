/* cmdline.c - the command line's table and what is made from it (see cmdline.h). */
#define _GNU_SOURCE
#include "cmdline.h"

#include "error.h"
#include "roff.h"

#include <xbt/sysdep.h>

#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMD_MAX_OPTS 24

/* The options `run` and `sweep` share (sweep passes them to every point). */
#define RUN_CALIB \
    { \
        "calib", CLI_CALIB, "FILE", \
                "use this calibration profile (file, nccl-tests log, or a shipped profile's " \
                "name: spec-h100)" \
    }
#define RUN_CFG \
    { \
        "cfg", CLI_CFG, "KEY:VALUE", "pass a SimGrid configuration option (repeatable)" \
    }

static const struct cli_opt run_opts[] = {
        {"set", CLI_SET, "ELEM.ATTR=VALUE",
         "override an attribute of the first <ELEM> (repeatable)"},
        {"unset", CLI_UNSET, "ELEM.ATTR", "remove an attribute of the first <ELEM> (repeatable)"},
        {"csv", CLI_CSV, "FILE",
         "also write the events log (training) or the table (benchmark) as CSV"},
        {"json", CLI_JSON, "FILE",
         "also write the run (schemas/run.schema.json) or the benchmark "
         "(schemas/bench.schema.json) as JSON"},
        {"summary", CLI_SUMMARY, "FILE", "also write the one-line summary table sweeps merge"},
        {"trace", CLI_TRACE, "FILE", "also write a Perfetto / Chrome trace (training)"},
        {"junit", CLI_JUNIT, "FILE",
         "also write each <expect> as a JUnit XML test case, for CI systems (training)"},
        {"fault-plan", CLI_FAULT_PLAN, NULL, "print the materialised fault plan and exit"},
        {"memory-only", CLI_MEMORY_ONLY, NULL,
         "print each rank group's memory per GPU, no simulation: exit 0 if it fits, 1 if not"},
        RUN_CALIB,
        {"timing", CLI_TIMING, NULL, "print where the wall-clock time went (stderr)"},
        RUN_CFG,
        {0}};

static const struct cli_opt sweep_opts[] = {
        {"set", CLI_SET, "ELEM.ATTR=V1,V2,...",
         "an axis of the grid (repeatable); \\, is a comma inside a value, \\\\ a backslash"},
        {"zip", CLI_ZIP, "ELEM.ATTR=V1,V2,...",
         "a coupled axis: every --zip axis has as many values, and they advance together"},
        {"jobs", CLI_JOBS, "N", "points at a time (default: the number of online cores)"},
        {"output", CLI_OUT, "OUT", "also write the merged table to OUT"},
        {"list", CLI_LIST, NULL, "print each point as a `dmlsim run` command line and exit"},
        {"point", CLI_POINT, "K",
         "run only point K (1 .. the grid's size) and write its summary to -o (for dmlsim merge)"},
        {"unset", CLI_UNSET, "ELEM.ATTR", "remove an attribute at every point (repeatable)"},
        RUN_CALIB,
        RUN_CFG,
        {"csv", CLI_CSV, "FILE",
         "also write the table as CSV (with --point: that point's run --csv)"},
        {"json", CLI_JSON, "FILE",
         "also write the table as JSON (with --point: that point's run --json)"},
        {"trace", CLI_TRACE, "FILE", "with --point: also write that point's trace (as --trace)"},
        {"junit", CLI_JUNIT, "FILE",
         "with --point: also write that point's JUnit report (as run --junit)"},
        {0}};

static const struct cli_opt merge_opts[] = {
        {"output", CLI_OUT, "OUT", "also write the merged table to OUT"}, {0}};

static const struct cli_opt platform_opts[] = {
        {"output", CLI_OUT, "OUT.xml", "the platform file to write (required)"}, {0}};

static const struct cli_opt calib_opts[] = {
        {"spec", CLI_SPEC, "GPU", "write the spec-derived profile of a catalog GPU instead"},
        {"output", CLI_OUT, "FILE", "with --spec: write the profile to FILE (else stdout)"},
        {0}};

static const struct cli_opt shapes_opts[] = {
        {"batch", CLI_BATCH, "B", "the batch size (default 64)"},
        {"gpu", CLI_GPU, "GPU", "the catalog GPU of the modelled efficiencies (default h100)"},
        {"calib", CLI_CALIB, "FILE", "instead: a profile's measured GEMMs against the model"},
        {0}};

static const struct cli_opt validate_opts[] = {
        {"gpu", CLI_GPU, "GPU", "the catalog GPU the profile was measured on (default: its own)"},
        {"intra", CLI_INTRA, "CLASS", "the GPU-to-GPU link class (default: the GPU's)"},
        {"nic", CLI_NIC, "CLASS", "the network link class between nodes"},
        {"nics", CLI_NICS, "N", "NICs per node, 1 .. 64 (default: one per GPU)"},
        {"algo", CLI_ALGO, "ALGO",
         "nccl (default: NCCL's choice), or NCCL's ring, tree, nvls, nvlstree, collnet as "
         "NCCL_ALGO; textbook-ring, textbook-tree, naive, halving-doubling, hierarchical"},
        {"proto", CLI_PROTO, "PROTO", "NCCL's protocol, as NCCL_PROTO: ll, ll128 or simple"},
        {"channels", CLI_CHANNELS, "N", "at most N channels, as NCCL_MAX_NCHANNELS (1 .. 32)"},
        {"sharp", CLI_SHARP, NULL, "SHARP switches (in-network reduction)"},
        {"nranks", CLI_NRANKS, "N", "the GPUs of every run of the log (checked against the log)"},
        {"nodes", CLI_NODES, "N", "the nodes of every run of the log (checked against the log)"},
        {"op", CLI_OP, "OP",
         "the test of every run: allreduce, allgather, reducescatter, broadcast or alltoall "
         "(checked against the rows)"},
        {0}};

static const struct cli_opt plan_opts[] = {
        {"set", CLI_SET, "ELEM.ATTR=VALUE",
         "override an attribute of the first <ELEM>, as run's (repeatable)"},
        {"top", CLI_TOP, "K", "simulate the best K layouts by the estimate (1 .. 64, default 8)"},
        {"jobs", CLI_JOBS, "N", "simulations at a time (default: the number of online cores)"},
        {"output", CLI_OUT, "DIR",
         "the folder of the ranked layouts' scenarios, the table and the plot (default "
         "plan-NAME)"},
        {"under", CLI_UNDER, "FAULTS.xml",
         "simulate the K again with this <faults> element and rank them by that step"},
        {"estimate-only", CLI_ESTIMATE, NULL, "rank by the first-order estimate; simulate nothing"},
        {"fix", CLI_FIX, "LIST",
         "keep these as the scenario has them (what the framework cannot change): zero, "
         "recompute, sequence-parallel, order, cp, comma-separated"},
        {"sim-limit", CLI_LIMIT, "SECONDS",
         "CPU seconds one simulation may take (default 30); one over it is ranked by its "
         "estimate after the simulated ones"},
        RUN_CALIB,
        {0}};

static const struct cli_opt campaign_opts[] = {
        {"set", CLI_SET, "ELEM.ATTR=VALUE",
         "override an attribute of the first <ELEM>, as run's (repeatable)"},
        {"replications", CLI_REPLICATIONS, "N", "replications (default: the <campaign>'s)"},
        {"price", CLI_PRICE, "P", "the price of a GPU-hour: the cost (default none)"},
        {"pue", CLI_PUE, "X",
         "the data centre's power usage effectiveness, 1 .. 10 (default 1: the GPUs alone)"},
        {"every", CLI_EVERY, "LIST", "sweep the checkpoint interval: steps, comma-separated"},
        {"spares", CLI_SPARES, "LIST", "sweep the spare nodes: counts, comma-separated"},
        {"output", CLI_OUT, "DIR",
         "the folder of the sweep's table and plot (default campaign-NAME)"},
        {"json", CLI_JSON, "FILE", "also write the campaign's summary as JSON"},
        {"jobs", CLI_JOBS, "N", "cost simulations at a time (default: the number of online cores)"},
        {"keep-runs", CLI_KEEP, "DIR", "keep the cost simulations' scenarios and outputs in DIR"},
        {"costs", CLI_COSTS, "FILE.json",
         "take the costs an earlier campaign of this scenario simulated (its --json) instead of "
         "simulating them"},
        {"zoom", CLI_ZOOM, "K",
         "replay failure K of replication 1 as full dmlsim runs and compare its cost"},
        RUN_CALIB,
        {0}};

static const struct cli_opt import_opts[] = {
        {"output", CLI_OUT, "FILE", "write the scenario to FILE (default: stdout)"},
        {"gpus", CLI_GPUS, "N",
         "the job's GPUs (megatron: unless --nnodes and --nproc-per-node are among its "
         "arguments; hf: default 8)"},
        {"gpus-per-node", CLI_GPN, "N", "GPUs a node (default: --nproc-per-node, else 8)"},
        {"gpu", CLI_GPU, "GPU", "the catalog GPU (default h100)"},
        {"nic", CLI_NIC, "CLASS", "the network class between nodes (default ib-ndr)"},
        {"nics", CLI_NICS, "N", "NICs a node (default one a GPU, at most 64)"},
        {"seq", CLI_SEQ, "TOKENS",
         "the training sequence length (default: --seq-length; hf: the pre-training context)"},
        {"global-batch", CLI_GBATCH, "N", "hf: sequences a step (default one a GPU)"},
        {0}};

static const struct cli_opt none_opts[] = {{0}};

static const struct cli_cmd cmds[] = {
        {"run", "FILE.xml", 1, 1, "simulate a scenario and print its results", NULL, run_opts},
        {"sweep", "FILE.xml", 1, 1,
         "run one simulation per point of a grid, N at a time, and print one merged table",
         "The grid is the product of the --set axes (first slowest) and of the --zip axes taken "
         "together. --list and --point share a large sweep among machines (GNU parallel, a "
         "Slurm job array: tools/sweep-slurm.sh); dmlsim merge joins the points' summaries "
         "into the table a local sweep prints. A point that fails keeps its row, with its status "
         "(ok, job-failed, expect-failed, refused, error) and one-line message; the whole table "
         "is printed, then the sweep exits 0 when every point gave a result, 3 when the worst "
         "point failed an <expect>, 1 when a point was refused or failed otherwise.",
         sweep_opts},
        {"plan", "FILE.xml", 1, 1,
         "find the fastest layouts of a hybrid scenario that fit: enumerate, estimate, simulate "
         "the best K",
         "Every tensor, pipeline, data and expert split of the scenario's cluster with a "
         "microbatch size, schedule, ZeRO stage, recomputation, sequence parallelism and order, "
         "the global batch kept; those that do not divide or fit are counted by reason; the rest "
         "are ranked by a first-order estimate and the best K simulated (as a sweep's points) and "
         "ranked by their simulated step.",
         plan_opts},
        {"campaign", "FILE.xml", 1, 1,
         "play a scenario's <campaign>: weeks of training under failures, checkpoints, spares "
         "and repairs, over its simulated step, checkpoint and restart",
         "The step, the checkpoint's block, the watchdog's detection, the restart and the reload "
         "are simulated once (a dmlsim run of the scenario with a spare node and a crash; one "
         "step at each shrunk size and with each fail-slow GPU); the campaign is then a "
         "discrete-event simulation of its replications over them: ETTR, wall time to the "
         "target, lost work by cause, GPU-hours, energy and cost, and the checkpoint interval "
         "beside Young's and Daly's.",
         campaign_opts},
        {"merge", "POINT.sum...", 1, -1,
         "join the summaries of `dmlsim sweep --point` into the sweep's table, in grid order",
         "Every point of the grid must be given once, all from the same sweep.", merge_opts},
        {"platform", "FILE.xml", 1, 1,
         "write the SimGrid platform a scenario's <cluster> generates", NULL, platform_opts},
        {"calib", "[FILE]", 0, 1, "summarise a calibration profile or nccl-tests log, with fits",
         NULL, calib_opts},
        {"shapes", "", 0, 0, "the GEMM shapes of the model presets (for the calibrator)", NULL,
         shapes_opts},
        {"validate", "FILE", 1, 1,
         "simulate every measured collective and copy of a profile; measured vs simulated",
         "First, what was read: each nccl-tests run's operation, ranks and nodes and where each "
         "came from (the command line, the rows' columns, the rank lines, busbw/algbw, the "
         "dmlsim annotations, --op, --nranks, --nodes); sources that disagree are an error "
         "naming both, and an rccl-tests log is refused (there is no model of RCCL). --algo, "
         "--proto and --channels force NCCL's own choices as NCCL_ALGO, NCCL_PROTO and "
         "NCCL_MAX_NCHANNELS did for the measured run; the textbook algorithms are not "
         "calibrated.",
         validate_opts},
        {"import", "megatron|hf ARGS...", 1, -1,
         "write a scenario from a Megatron-LM command line or a Hugging Face config.json",
         "dmlsim import megatron [OPTIONS] -- ARGS... reads pretrain_gpt.py's arguments (and "
         "torchrun's --nnodes and --nproc-per-node): the model, tensor, pipeline, context, "
         "expert and data parallelism, microbatches, sequence length, precision, recomputation "
         "and the distributed optimizer; the arguments that do not change the simulation are "
         "listed on stderr. dmlsim import hf [OPTIONS] config.json reads a transformers config "
         "(llama, mistral, mixtral, gpt2) and writes data parallelism over --gpus GPUs for "
         "dmlsim plan to lay out. The model must be one the scenario format describes: a shape "
         "of the transformer presets, or a GPT-style model (preset gpt); any other is refused "
         "with what the format lacks.",
         import_opts},
        {"catalog", "[TABLE]", 0, 1, "list the link classes and GPU models, with their sources",
         "TABLE: stores lists the storage presets (<storage preset>) instead: object stores, "
         "parallel file systems and local NVMe, with each number's source.",
         none_opts},
        {"metrics", "[FORMAT]", 0, 1, "list the run metrics: name, unit, where shown, meaning",
         "FORMAT: text (the default), markdown (the README's table: the same in a fenced block) "
         "or schema (the metric part of schemas/run.schema.json, which ends that file).",
         none_opts},
        {"manpage", "[SECTION] [FORMAT]", 0, 2,
         "print a manual page (roff): 1 (default) dmlsim(1), 5 dmlsim-scenario(5)",
         "FORMAT: roff (the default) or markdown (section 5 only: docs/scenario-reference.md, "
         "the same reference: every attribute's type, range, default and meaning, every "
         "preset).",
         none_opts},
        {"completion", "", 0, 0, "print the bash completion script", NULL, none_opts},
};

const struct cli_cmd *cli_find(const char *name)
{
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(cmds[i].name, name) == 0) return &cmds[i];
    return NULL;
}

int cli_error(const struct cli_cmd *c, const char *what)
{
    fprintf(stderr, "dmlsim %s: %s; see 'dmlsim %s --help'\n", c->name, what, c->name);
    return 1;
}

int cli_fail(const struct dmlsim_error *err)
{
    fflush(stdout);
    fprintf(stderr, "%s\n", err->msg); /* already "FILE:LINE: ..." */
    return dmlsim_err_status(err->code);
}

/* getopt_long's tables for c: longs (with --help) and the short string ("-:" first: arguments
 * returned in place, and a missing value told apart from an unknown option). */
static void getopt_tables(const struct cli_cmd *c, struct option *longs, char *shorts)
{
    size_t n = 0, s = 0;
    shorts[s++] = '-'; /* arguments come back in order as 1, whatever POSIXLY_CORRECT says */
    shorts[s++] = ':';
    shorts[s++] = 'h';
    for (const struct cli_opt *o = c->opts; o->name != NULL; o++, n++) {
        assert(n < CMD_MAX_OPTS);
        longs[n] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->key};
        if (o->key < 256) {
            shorts[s++] = (char)o->key;
            if (o->arg) shorts[s++] = ':';
        }
    }
    longs[n++] = (struct option){"help", no_argument, NULL, 'h'};
    longs[n] = (struct option){0};
    shorts[s] = '\0';
}

static const struct cli_opt *opt_of(const struct cli_cmd *c, int key)
{
    for (const struct cli_opt *o = c->opts; o->name != NULL; o++)
        if (o->key == key) return o;
    return NULL;
}

/* How many of c's long options (and help) start with the name of `arg` ("--name[=value]"). */
static int prefix_matches(const struct cli_cmd *c, const char *arg)
{
    size_t len = strcspn(arg + 2, "=");
    int n = strncmp("help", arg + 2, len) == 0;
    for (const struct cli_opt *o = c->opts; o->name != NULL; o++)
        n += strncmp(o->name, arg + 2, len) == 0;
    return n;
}

/* The message for getopt's '?' or ':'. A long option's argument is argv[optind - 1]; an unknown
 * short option may sit inside a cluster ("-xj"), so only optopt names it. */
static int option_error(const struct cli_cmd *c, int ch, char **argv)
{
    char what[256];
    const char *arg = argv[optind - 1];
    const struct cli_opt *o = opt_of(c, optopt);
    bool help_value = optopt == 'h' && strncmp(arg, "--", 2) == 0;
    int len = (int)strcspn(arg, "=");
    if (ch == ':' && o != NULL)
        snprintf(what, sizeof what, "option '--%s' needs a value (%s)", o->name, o->arg);
    else if (ch == ':')
        snprintf(what, sizeof what, "option '%s' needs a value", arg);
    else if ((optopt >= 256 && o != NULL) || help_value)
        snprintf(what, sizeof what, "option '--%s' takes no value", o ? o->name : "help");
    else if (optopt != 0)
        snprintf(what, sizeof what, "unknown option '-%c'", optopt);
    else if (prefix_matches(c, arg) > 1)
        snprintf(what, sizeof what, "ambiguous option '%.*s'", len, arg);
    else
        snprintf(what, sizeof what, "unknown option '%.*s'", len, arg);
    return cli_error(c, what);
}

static int count_error(const struct cli_cmd *c, int n)
{
    char what[256];
    if (c->max_args == 0)
        snprintf(what, sizeof what, "unexpected argument; it takes none");
    else
        snprintf(what, sizeof what, "%s %s",
                 n < c->min_args ? "expected" : "too many arguments; expected", c->args);
    return cli_error(c, what);
}

/* Options whose value is a file dmlsim writes. */
static bool is_output(int key)
{
    return key == CLI_CSV || key == CLI_JSON || key == CLI_SUMMARY || key == CLI_TRACE ||
           key == CLI_JUNIT || key == CLI_OUT;
}

/* The folder an output path will be written in: the path's own folder, or, when the path is a
 * symbolic link (followed, as report.h writes outputs), its final target's, into dir. */
static void output_folder(const char *path, char *dir, size_t len)
{
    char cur[PATH_MAX], link[PATH_MAX / 2];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0; hops < 16; hops++) { /* Linux follows at most 40; loops end here */
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) break;
        link[n] = '\0';
        char *slash = strrchr(cur, '/');
        if (link[0] == '/' || slash == NULL)
            memcpy(cur, link, (size_t)n + 1);
        else if ((size_t)(slash - cur) < sizeof cur / 2)
            memcpy(slash + 1, link, (size_t)n + 1); /* fits: both parts are under PATH_MAX / 2 */
        else
            break;
    }
    const char *slash = strrchr(cur, '/');
    if (slash == NULL)
        snprintf(dir, len, ".");
    else if (slash == cur)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - cur), cur);
}

/* Every output's folder exists, is a folder and can be written in: checked when the command
 * line is read, so that a run is not simulated and reported before its outputs fail. One line,
 * exit 1, nothing written. */
static int check_output_folders(const struct cli_args *a)
{
    for (int i = 0; i < a->nhits; i++) {
        const struct cli_hit *h = &a->hits[i];
        if (!is_output(h->key) || h->value == NULL || h->value[0] == '\0') continue;
        const struct cli_opt *o = opt_of(a->cmd, h->key);
        char dir[PATH_MAX];
        struct stat st;
        output_folder(h->value, dir, sizeof dir);
        const char *why = stat(dir, &st) != 0        ? strerror(errno)
                          : !S_ISDIR(st.st_mode)     ? "not a folder"
                          : access(dir, W_OK | X_OK) ? strerror(errno)
                                                     : NULL;
        if (why == NULL) continue;
        fprintf(stderr,
                "%s:0: --%s: cannot write in the folder %s: %s; expected a path in an existing "
                "folder that can be written\n",
                h->value, o ? o->name : "output", dir, why);
        return 1;
    }
    return -1;
}

int cli_parse(const struct cli_cmd *c, int argc, char **argv, struct cli_args *a)
{
    struct option longs[CMD_MAX_OPTS + 2];
    char shorts[2 * CMD_MAX_OPTS + 6];
    memset(a, 0, sizeof *a);
    a->cmd = c;
    getopt_tables(c, longs, shorts);
    a->hits = xbt_new0(struct cli_hit, (size_t)argc + 1);
    a->args = xbt_new0(char *, (size_t)argc + 1);
    optind = 0; /* glibc: start afresh */
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        if (ch == 'h') {
            cli_print_help(c, stdout);
            return 0;
        }
        if (ch == '?' || ch == ':') return option_error(c, ch, argv);
        if (ch == 1)
            a->args[a->nargs++] = optarg;
        else
            a->hits[a->nhits++] = (struct cli_hit){ch, optarg};
    }
    while (optind < argc) /* after "--" */
        a->args[a->nargs++] = argv[optind++];
    if (a->nargs < c->min_args || (c->max_args >= 0 && a->nargs > c->max_args))
        return count_error(c, a->nargs);
    return check_output_folders(a);
}

void cli_args_release(struct cli_args *a)
{
    free(a->hits);
    free(a->args);
    a->hits = NULL;
    a->args = NULL;
}

const char *cli_value(const struct cli_args *a, int key)
{
    const char *v = NULL;
    for (int i = 0; i < a->nhits; i++)
        if (a->hits[i].key == key) v = a->hits[i].value;
    return v;
}

int cli_given(const struct cli_args *a, int key)
{
    int n = 0;
    for (int i = 0; i < a->nhits; i++)
        n += a->hits[i].key == key;
    return n;
}

/* "-o, --output OUT" or "--csv FILE" into buf. */
static void opt_label(const struct cli_opt *o, char *buf, size_t len)
{
    int n = o->key < 256 ? snprintf(buf, len, "-%c, ", o->key) : 0;
    snprintf(buf + n, len - (size_t)n, "--%s%s%s", o->name, o->arg ? " " : "",
             o->arg ? o->arg : "");
}

void cli_print_usage(FILE *out)
{
    fprintf(out, "usage: dmlsim COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char syn[64];
        snprintf(syn, sizeof syn, "%s %s", cmds[i].name, cmds[i].args);
        fprintf(out, "  %-22s %s\n", syn, cmds[i].summary);
    }
    fprintf(out, "\n'dmlsim COMMAND --help' lists a command's options.\n\noptions:\n"
                 "  -h, --help             show this help\n"
                 "  --version              show the version\n\n"
                 "exit status: 0 success, 1 bad input or usage, 3 a failed <expect> assertion, 4 "
                 "the\nsimulated job failed (why on stderr; <expect metric=\"job_failed\"> decides "
                 "instead)\n");
}

/* Text on lines of at most width columns (words are never split), after a blank line. */
static void wrap(FILE *out, const char *text, int width)
{
    int col = 0;
    fputc('\n', out);
    for (const char *w = text; *w;) {
        int len = (int)strcspn(w, " ");
        if (col > 0 && col + 1 + len > width) {
            fputc('\n', out);
            col = 0;
        }
        col += fprintf(out, "%s%.*s", col ? " " : "", len, w);
        w += len;
        w += strspn(w, " ");
    }
    fputc('\n', out);
}

void cli_print_help(const struct cli_cmd *c, FILE *out)
{
    fprintf(out, "usage: dmlsim %s [OPTIONS]%s%s\n\n%s\n", c->name, c->args[0] ? " " : "", c->args,
            c->summary);
    if (c->details) wrap(out, c->details, 79);
    fprintf(out, "\noptions:\n");
    for (const struct cli_opt *o = c->opts; o->name != NULL; o++) {
        char label[64];
        opt_label(o, label, sizeof label);
        fprintf(out, "  %-30s %s\n", label, o->help);
    }
    fprintf(out, "  %-30s %s\n", "-h, --help", "show this help");
}

static void roff(FILE *out, const char *s)
{
    roff_put(out, s, strlen(s));
}

static void man_command(FILE *out, const struct cli_cmd *c)
{
    fprintf(out, ".SS \"dmlsim %s", c->name);
    if (c->args[0]) fprintf(out, " %s", c->args);
    fprintf(out, "\"\n");
    roff(out, c->summary);
    fputs(".\n", out);
    if (c->details) {
        fputs(".PP\n", out);
        roff(out, c->details);
        fputc('\n', out);
    }
    for (const struct cli_opt *o = c->opts; o->name != NULL; o++) {
        char label[64];
        opt_label(o, label, sizeof label);
        fputs(".TP\n.B ", out);
        roff(out, label);
        fputc('\n', out);
        roff(out, o->help);
        fputc('\n', out);
    }
}

void cli_write_man(FILE *out, const char *version)
{
    fprintf(out,
            ".\\\" Generated by `dmlsim manpage` from the command table (sim/cli/cmdline.c).\n"
            ".TH DMLSIM 1 \"\" \"dmlsim %s\" \"User Commands\"\n"
            ".SH NAME\ndmlsim \\- simulate distributed ML training clusters on SimGrid\n"
            ".SH SYNOPSIS\n.B dmlsim\n.I COMMAND\n[\\fIOPTIONS\\fR] [\\fIARGS\\fR]\n"
            ".SH DESCRIPTION\nA discrete-event simulator of distributed ML training: a "
            "scenario (see \\fBdmlsim-scenario\\fR(5)) names a cluster, a model and a "
            "strategy; dmlsim simulates it with SimGrid actors and reports step time, "
            "throughput, goodput and accounting. Options may come before or after the "
            "arguments, as \\fB\\-\\-opt=value\\fR or \\fB\\-\\-opt value\\fR; \\fB\\-\\-\\fR "
            "ends the options.\n.SH COMMANDS\n",
            version);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        man_command(out, &cmds[i]);
    fputs(".SH EXIT STATUS\n0 success, 1 bad input or usage, 3 a failed <expect> assertion, 4 "
          "the simulated job failed.\n.SH FILES\nThe DTD, presets, calibration profiles, plot "
          "scripts and example scenarios are in \\fIshare/dmlsim\\fR beside the \\fIbin\\fR "
          "folder that holds dmlsim.\n.SH SEE ALSO\n\\fBdmlsim-scenario\\fR(5)\n",
          out);
}

void cli_write_completion(FILE *out)
{
    fputs("# bash completion for dmlsim (generated by `dmlsim completion`)\n"
          "_dmlsim() {\n    local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n        COMPREPLY=($(compgen -W \"",
          out);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(out, "%s ", cmds[i].name);
    fputs("--help --version\" -- \"$cur\"))\n        return\n    fi\n    local opts\n"
          "    case $cmd in\n",
          out);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        fprintf(out, "        %s) opts=\"", cmds[i].name);
        for (const struct cli_opt *o = cmds[i].opts; o->name != NULL; o++)
            fprintf(out, "--%s ", o->name);
        fputs("--help\" ;;\n", out);
    }
    fputs("    esac\n    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n    fi\n}\n"
          "complete -o filenames -F _dmlsim dmlsim\n",
          out);
}
