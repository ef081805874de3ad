/* cmd_catalog.c - `dmlsim catalog` (see cmd_catalog.h). */
#include "cmd_catalog.h"

#include "catalog.h"
#include "storage.h"

#include <stdio.h>
#include <string.h>

/* The GEMM model's numbers per GPU (gemm.h): SMs, and the large-GEMM ceilings per dtype. */
static void print_gemm_ceilings(const struct gpu_model *g, size_t n)
{
    printf("#\n# gemm model: SMs and large-GEMM ceilings, %% of the dense peak per dtype\n");
    printf("#%9s %5s %7s %7s %7s %7s %7s  %s\n", "gpu", "SMs", "fp32", "tf32", "fp16", "bf16",
           "fp8", "source");
    for (size_t i = 0; i < n; i++) {
        printf(" %9s %5d", g[i].name, g[i].sms);
        for (int d = 0; d < DTYPE_COUNT; d++)
            if (g[i].gemm_ceiling[d] > 0)
                printf(" %7.1f", 100 * g[i].gemm_ceiling[d]);
            else
                printf(" %7s", "-");
        printf("  %s\n", g[i].gemm_source);
    }
}

/* The power model's numbers per GPU (power.h): board power limit and idle draw. */
static void print_power(const struct gpu_model *g, size_t n)
{
    printf("#\n# power model: TDP and idle draw (power.h: idle + dynamic activity, capped at "
           "TDP)\n");
    printf("#%9s %7s %7s  %s\n", "gpu", "TDP", "idle", "source");
    printf("#%9s %7s %7s\n", "", "(W)", "(W)");
    for (size_t i = 0; i < n; i++)
        printf(" %9s %7.0f %7.1f  %s\n", g[i].name, g[i].tdp_w, g[i].idle_w, g[i].power_source);
}

/* A rate for the table: "-" for 0 (no limit). */
static void print_rate(double v, double scale, const char *fmt)
{
    if (v > 0)
        printf(fmt, v / scale);
    else
        printf(" %9s", "-");
}

/* `dmlsim catalog stores`: the storage presets (storage.h), one row each, then the sources. */
static int print_stores(void)
{
    size_t n;
    const struct store_preset *p = storage_presets(&n);
    printf("# storage presets (<storage preset>): aggregate rates, one connection's, request costs "
           "and limits (- = none)\n");
    printf("#%11s %6s %9s %9s %9s %9s %9s %9s %9s %5s %9s\n", "preset", "kind", "read", "write",
           "conn", "latency", "overhead", "get", "put", "conns", "part");
    printf("#%11s %6s %9s %9s %9s %9s %9s %9s %9s %5s %9s\n", "", "", "(GB/s)", "(GB/s)", "(MB/s)",
           "(ms)", "(ms)", "(req/s)", "(req/s)", "", "(MiB)");
    for (size_t i = 0; i < n; i++) {
        const struct store_params *q = &p[i].p;
        printf(" %11s %6s", p[i].name, storage_kind_name(p[i].kind));
        print_rate(q->read_Bps, 1e9, " %9.2f");
        print_rate(q->write_Bps, 1e9, " %9.2f");
        print_rate(q->conn_Bps, 1e6, " %9.1f");
        printf(" %9.3f %9.3f", q->latency_s * 1e3, q->request_s * 1e3);
        print_rate(q->get_per_s, 1, " %9.0f");
        print_rate(q->put_per_s, 1, " %9.0f");
        printf(" %5d", q->connections);
        print_rate(q->part_B, 1048576.0, " %9.1f");
        printf("\n");
    }
    printf("#\n# sources\n");
    for (size_t i = 0; i < n; i++)
        printf("# %-11s %s\n", p[i].name, p[i].source);
    return 0;
}

int cmd_catalog_main(const struct cli_args *a)
{
    if (a->nargs == 1 && strcmp(a->args[0], "stores") == 0) return print_stores();
    if (a->nargs == 1) {
        fprintf(stderr, "dmlsim catalog: unknown table '%s'; expected stores\n", a->args[0]);
        return 1;
    }
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
    printf("#%9s %7s %7s %7s %7s %7s %8s %8s %10s %9s  %s\n", "gpu", "fp32", "tf32", "fp16", "bf16",
           "fp8", "memory", "mem bw", "pcie", "intra", "source");
    printf("#%9s %7s %7s %7s %7s %7s %8s %8s\n", "", "", "", "", "", "", "(GB)", "(GB/s)");
    for (size_t i = 0; i < n; i++) {
        printf(" %9s", g[i].name);
        for (int d = 0; d < DTYPE_COUNT; d++)
            if (g[i].peak_flops[d] > 0)
                printf(" %7.1f", g[i].peak_flops[d] / 1e12);
            else
                printf(" %7s", "-");
        printf(" %8.0f %8.0f %10s %9s  %s\n", g[i].mem_B / 1e9, g[i].mem_bw_Bps / 1e9, g[i].pcie,
               g[i].intra, g[i].source);
    }
    print_gemm_ceilings(g, n);
    print_power(g, n);
    printf("#\n# cpu host: %.1f TFLOP/s FP32; switch port-to-port latency %.0f ns\n",
           CATALOG_CPU_FLOPS / 1e12, CATALOG_SWITCH_LAT_S * 1e9);
    printf("#\n# parameter-server transports (<ps transport>): CPU time on each end of a "
           "message\n");
    printf("#%9s %9s %9s %10s  %s\n", "transport", "msg (us)", "B (ns/B)", "copy GB/s", "source");
    size_t nt;
    const struct transport *tps = catalog_transports(&nt);
    for (size_t i = 0; i < nt; i++) {
        const struct transport *t = &tps[i];
        printf(" %9s %9.2f %9.2f %10.1f  %s\n", t->name, t->msg_s * 1e6, t->byte_s * 1e9,
               t->copy_Bps / 1e9, t->source);
    }
    return 0;
}
