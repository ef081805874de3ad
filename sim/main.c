/* main.c - the dmlsim command line. Parses arguments, calls the modules, prints one message and
 * exits 1 on bad input (3 is reserved for failed <expect> assertions). Nothing else lives here. */
#include "bench.h"
#include "catalog.h"
#include "error.h"
#include "platform.h"
#include "scenario.h"

#include <simgrid/engine.h>
#include <xbt/log.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DMLSIM_VERSION
#define DMLSIM_VERSION "0.0.0"
#endif

static const char usage[] =
        "usage: dmlsim COMMAND [ARGS]\n"
        "\n"
        "commands:\n"
        "  run FILE.xml                 simulate a scenario and print its results\n"
        "  platform FILE.xml -o OUT.xml write the SimGrid platform a scenario's <cluster> generates\n"
        "  catalog                      list the link classes and GPU models, with their sources\n"
        "\n"
        "options:\n"
        "  -h, --help                   show this help\n"
        "  --version                    show the version\n"
        "\n"
        "exit status: 0 success, 1 bad input or usage, 3 a failed <expect> assertion\n";

static int fail(const struct dmlsim_error *err)
{
    fflush(stdout);
    fprintf(stderr, "%s\n", err->msg); /* already "FILE:LINE: ..." */
    return dmlsim_err_status(err->code);
}

static int usage_error(const char *what)
{
    fprintf(stderr, "dmlsim: %s\n%s", what, usage);
    return 1;
}

static void print_config(const struct scenario *sc, const struct platform *pf)
{
    printf("# dmlsim %s\n", DMLSIM_VERSION);
    printf("# scenario      %s (name \"%s\", seed %lu)\n", sc->path, sc->name, sc->seed);
    printf("# platform      %s\n", pf->description);
    printf("# gpus          %zu\n", pf->ngpus);
    printf("# network       %s\n", sc->net_model == NET_CM02
                                          ? "CM02, crosstraffic off, TCP-gamma off (exact alpha-beta)"
                                          : "LV08 (SimGrid TCP realism: latency x13.01, bw x0.97)");
}

static int cmd_run(const char *path)
{
    struct scenario sc;
    struct dmlsim_error err = {0};
    struct platform *pf = NULL;
    int status = 0;
    enum dmlsim_err rc = scenario_load(path, &sc, &err);
    if (rc != DMLSIM_OK)
        return fail(&err);

    int sg_argc = 1;
    char *sg_argv[] = {"dmlsim", NULL};
    simgrid_init(&sg_argc, sg_argv);
    xbt_log_control_set("root.thres:critical");
    platform_configure(&sc);
    DMLSIM_CHECK_GOTO(rc, platform_load(&sc, &pf, &err), out_fail);

    if (sc.bench.kind == BENCH_P2P) {
        struct p2p_result res;
        size_t nsizes;
        DMLSIM_CHECK_GOTO(rc, bench_check_hosts(&sc, &err), out_fail); /* before any output */
        free(bench_sizes(&sc.bench, &nsizes));
        print_config(&sc, pf);
        printf("# benchmark     p2p, %zu pair(s), %zu size(s) from %.0f B to %.0f B, factor %g, "
               "timeout %g s\n#\n",
               sc.bench.npairs, nsizes, sc.bench.begin_B, sc.bench.end_B, sc.bench.factor,
               sc.bench.timeout_s);
        DMLSIM_CHECK_GOTO(rc, bench_p2p_run(&sc, &res, &err), out_fail);
        bench_p2p_print(&sc, &res, stdout);
        bench_p2p_release(&res);
    } else {
        print_config(&sc, pf);
        printf("# nothing to run: the scenario has no <benchmark>\n");
    }
    goto out;
out_fail:
    status = fail(&err);
out:
    platform_free(pf);
    scenario_release(&sc);
    return status;
}

static int cmd_platform(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] == '-' || in != NULL)
            return usage_error("platform: unexpected argument; expected FILE.xml -o OUT.xml");
        else
            in = argv[i];
    }
    if (in == NULL || out == NULL)
        return usage_error("platform: expected FILE.xml -o OUT.xml");
    struct scenario sc;
    struct dmlsim_error err = {0};
    if (scenario_load(in, &sc, &err) != DMLSIM_OK)
        return fail(&err);
    int status = 0;
    if (!sc.has_cluster) {
        dmlsim_fail(&err, DMLSIM_EUSAGE,
                    "%s:%d: <platform> names an existing platform; expected a <cluster> to "
                    "generate one from",
                    in, sc.cluster_line);
        status = fail(&err);
    } else if (platform_write_file(&sc, out, &err) != DMLSIM_OK) {
        status = fail(&err);
    }
    scenario_release(&sc);
    return status;
}

static int cmd_catalog(void)
{
    size_t n;
    const struct link_class *lc = catalog_links(&n);
    printf("# link classes: effective per-direction bandwidth, hop latency\n");
    printf("#%11s %8s %12s %12s %10s  %s\n", "class", "kind", "line", "effective", "hop lat",
           "source");
    printf("#%11s %8s %12s %12s %10s\n", "", "", "(GB/s)", "(GB/s)", "(us)");
    static const char *kinds[] = {"pcie", "nvlink", "ib", "roce", "tcp"};
    for (size_t i = 0; i < n; i++)
        printf(" %11s %8s %12.2f %12.2f %10.2f  %s\n", lc[i].name, kinds[lc[i].kind],
               lc[i].line_bw_Bps / 1e9, lc[i].bw_Bps / 1e9, lc[i].hop_lat_s * 1e6, lc[i].source);
    const struct gpu_model *g = catalog_gpus(&n);
    printf("#\n# gpus: dense peak TFLOP/s per dtype (- = no hardware support)\n");
    printf("#%5s %7s %7s %7s %7s %7s %8s %8s %10s  %s\n", "gpu", "fp32", "tf32", "fp16", "bf16",
           "fp8", "memory", "mem bw", "pcie", "source");
    printf("#%5s %7s %7s %7s %7s %7s %8s %8s\n", "", "", "", "", "", "", "(GB)", "(GB/s)");
    for (size_t i = 0; i < n; i++) {
        printf(" %5s", g[i].name);
        for (int d = 0; d < DTYPE_COUNT; d++)
            if (g[i].peak_flops[d] > 0)
                printf(" %7.1f", g[i].peak_flops[d] / 1e12);
            else
                printf(" %7s", "-");
        printf(" %8.0f %8.0f %10s  %s\n", g[i].mem_B / 1e9, g[i].mem_bw_Bps / 1e9, g[i].pcie,
               g[i].source);
    }
    printf("#\n# cpu host: %.1f TFLOP/s FP32; switch port-to-port latency %.0f ns\n",
           CATALOG_CPU_FLOPS / 1e12, CATALOG_SWITCH_LAT_S * 1e9);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("dmlsim %s\n", DMLSIM_VERSION);
        return 0;
    }
    if (strcmp(cmd, "run") == 0) {
        if (argc != 3 || argv[2][0] == '-')
            return usage_error("run: expected FILE.xml");
        return cmd_run(argv[2]);
    }
    if (strcmp(cmd, "platform") == 0)
        return cmd_platform(argc - 2, argv + 2);
    if (strcmp(cmd, "catalog") == 0) {
        if (argc != 2)
            return usage_error("catalog: takes no arguments");
        return cmd_catalog();
    }
    char what[128];
    snprintf(what, sizeof what, "unknown command '%s'", cmd);
    return usage_error(what);
}
