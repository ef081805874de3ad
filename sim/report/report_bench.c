/* report_bench.c - micro-benchmark results as CSV and JSON (see report_bench.h). */
#include "report_bench.h"

#include "collective.h"
#include "trace.h"

#include <string.h>

/* s as one CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma, quote or
 * newline. */
static void csv_field(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void report_coll_csv(const struct scenario *sc, const struct coll_result *res, FILE *out)
{
    fprintf(out, "size_B,count,type,redop,time_us,algbw_GBps,busbw_GBps,status,algo\n");
    for (size_t i = 0; i < res->nrows; i++) {
        struct coll_values v;
        bench_coll_values(sc, res, i, &v);
        fprintf(out, "%.0f,%.0f,%s,%s,", v.size_B, v.count, v.type, v.redop);
        if (v.ok)
            fprintf(out, "%.17g,%.17g,%.17g,", v.time_us, v.algbw_GBps, v.busbw_GBps);
        else
            fprintf(out, ",,,");
        fprintf(out, "%s,", v.status);
        csv_field(out, res->rows[i].choice);
        fputc('\n', out);
    }
}

/* "scenario": {...}, the start of every benchmark JSON. */
static void json_head(const struct scenario *sc, const char *kind, FILE *out)
{
    fprintf(out, "{\n  \"scenario\": ");
    trace_json_string(out, sc->name);
    fprintf(out, ",\n  \"seed\": %lu,\n  \"benchmark\": \"%s\",\n", sc->seed, kind);
}

void report_coll_json(const struct scenario *sc, const struct coll_result *res, FILE *out)
{
    json_head(sc, collective_op_name(sc->bench.op), out);
    fprintf(out, "  \"algo\": \"%s\",\n  \"level\": \"%s\",\n  \"ranks\": %d,\n",
            coll_algo_name(sc->bench.algo), sc->bench.level == COLL_FLOW ? "flow" : "message",
            res->nranks);
    fprintf(out, "  \"messages\": %.0f,\n  \"rows\": [", res->messages);
    for (size_t i = 0; i < res->nrows; i++) {
        struct coll_values v;
        bench_coll_values(sc, res, i, &v);
        fprintf(out, "%s\n    {\"size_B\": %.0f, \"count\": %.0f, \"type\": \"%s\", ", i ? "," : "",
                v.size_B, v.count, v.type);
        fprintf(out, "\"redop\": \"%s\", \"status\": \"%s\"", v.redop, v.status);
        if (v.ok)
            fprintf(out, ", \"time_us\": %.17g, \"algbw_GBps\": %.17g, \"busbw_GBps\": %.17g",
                    v.time_us, v.algbw_GBps, v.busbw_GBps);
        if (res->rows[i].choice[0]) {
            fprintf(out, ", \"algo\": ");
            trace_json_string(out, res->rows[i].choice);
        }
        fputc('}', out);
    }
    fprintf(out, "\n  ]\n}\n");
}

void report_p2p_csv(const struct scenario *sc, const struct p2p_result *res, FILE *out)
{
    fprintf(out, "src,dst,size_B,time_us,algbw_GBps,status,route\n");
    for (size_t i = 0; i < res->nrows; i++) {
        const struct p2p_row *r = &res->rows[i];
        const struct bench_pair *bp = &sc->bench.pairs[r->pair];
        csv_field(out, bp->src);
        fputc(',', out);
        csv_field(out, bp->dst);
        fprintf(out, ",%.0f,", r->size_B);
        if (r->status == NET_OK)
            fprintf(out, "%.17g,%.17g,ok,", r->time_s * 1e6, bench_p2p_algbw_GBps(r));
        else
            fprintf(out, ",,%s,", net_status_str(r->status));
        csv_field(out, res->routes[r->pair]);
        fputc('\n', out);
    }
}

void report_p2p_json(const struct scenario *sc, const struct p2p_result *res, FILE *out)
{
    json_head(sc, "p2p", out);
    fprintf(out, "  \"rows\": [");
    for (size_t i = 0; i < res->nrows; i++) {
        const struct p2p_row *r = &res->rows[i];
        const struct bench_pair *bp = &sc->bench.pairs[r->pair];
        fprintf(out, "%s\n    {\"src\": ", i ? "," : "");
        trace_json_string(out, bp->src);
        fprintf(out, ", \"dst\": ");
        trace_json_string(out, bp->dst);
        fprintf(out, ", \"size_B\": %.0f, \"status\": \"%s\"", r->size_B,
                r->status == NET_OK ? "ok" : net_status_str(r->status));
        if (r->status == NET_OK)
            fprintf(out, ", \"time_us\": %.17g, \"algbw_GBps\": %.17g", r->time_s * 1e6,
                    bench_p2p_algbw_GBps(r));
        fprintf(out, ", \"route\": ");
        trace_json_string(out, res->routes[r->pair]);
        fputc('}', out);
    }
    fprintf(out, "\n  ]\n}\n");
}
