/* validate_opts.c - `dmlsim validate`'s options (see validate_opts.h). */
#include "validate_opts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --algo NAME into mc: "nccl" (the default) for NCCL's own choice; NCCL's algorithms by their
 * NCCL_ALGO names, as the measured run could have forced them (ring, tree, nvls, nvlstree,
 * collnet, any case; collnetchain and collnet_chain too); the textbook algorithms by their
 * scenario names, ring and tree as textbook-ring and textbook-tree (in a scenario algo="ring" is
 * the textbook ring and nccl-algo="ring" NCCL's; here the log's NCCL_ALGO=Ring comes first). */
static bool parse_algo(const char *name, struct validate_machine *mc)
{
    mc->algo = COLL_ALGO_NCCL;
    mc->nccl = (struct nccl_opts){.algo = -1, .proto = -1, .max_channels = 0};
    if (name == NULL || strcmp(name, "nccl") == 0) return true;
    char low[32];
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < sizeof low; p++)
        if (*p != '_') low[k++] = (char)tolower((unsigned char)*p);
    low[k] = '\0';
    if (strcmp(low, "collnetchain") == 0) snprintf(low, sizeof low, "collnet");
    if (nccl_algo_parse(low, &mc->nccl.algo)) return true;
    if (strncmp(name, "textbook-", 9) == 0)
        return coll_algo_find(name + 9, &mc->algo) && mc->algo != COLL_ALGO_NCCL;
    return coll_algo_find(name, &mc->algo) && mc->algo != COLL_ALGO_RING &&
           mc->algo != COLL_ALGO_TREE;
}

const char *validate_opts_describe_algo(const struct validate_machine *mc, char *buf, size_t len)
{
    if (mc->algo != COLL_ALGO_NCCL) {
        snprintf(buf, len, "the textbook %s (not calibrated)", coll_algo_name(mc->algo));
        return buf;
    }
    const struct nccl_opts *o = &mc->nccl;
    if (o->algo < 0 && o->proto < 0 && o->max_channels == 0) {
        snprintf(buf, len, "nccl: NCCL's own choice of algorithm, protocol and channels per size");
        return buf;
    }
    int w = snprintf(buf, len, "nccl with");
    if (o->algo >= 0)
        w += snprintf(buf + w, len - (size_t)w, " NCCL_ALGO=%s",
                      nccl_algo_name((enum nccl_algo)o->algo));
    if (o->proto >= 0)
        w += snprintf(buf + w, len - (size_t)w, " NCCL_PROTO=%s",
                      nccl_proto_name((enum nccl_proto)o->proto));
    if (o->max_channels > 0)
        snprintf(buf + w, len - (size_t)w, " NCCL_MAX_NCHANNELS=%d", o->max_channels);
    return buf;
}

/* A whole-number option from lo to hi into *v (0 when not given); false with the message. */
static bool int_option(const struct cli_args *a, int key, const char *name, long lo, long hi,
                       int *v)
{
    const char *s = cli_value(a, key);
    char *end = NULL, what[96];
    long x = s ? strtol(s, &end, 10) : 0;
    *v = (int)x;
    if (s == NULL || (end != s && *end == '\0' && x >= lo && x <= hi)) return true;
    snprintf(what, sizeof what, "--%s expects an integer from %ld to %ld", name, lo, hi);
    cli_error(a->cmd, what);
    return false;
}

int validate_opts_parse(const struct cli_args *a, struct validate_machine *mc, struct calib_opts *o)
{
    mc->intra = cli_value(a, CLI_INTRA);
    mc->nic = cli_value(a, CLI_NIC);
    mc->sharp = cli_given(a, CLI_SHARP) > 0;
    const char *algo = cli_value(a, CLI_ALGO), *proto = cli_value(a, CLI_PROTO), *op;
    const char *lv = getenv("DMLSIM_VALIDATE_LEVEL"); /* tests: every size at one level */
    mc->level = lv && strcmp(lv, "message") == 0 ? COLL_MESSAGE
                : lv && strcmp(lv, "flow") == 0  ? COLL_FLOW
                                                 : -1;
    if (!int_option(a, CLI_NICS, "nics", 1, 64, &mc->nics) ||
        !int_option(a, CLI_CHANNELS, "channels", 1, 32, &mc->nccl.max_channels) ||
        !int_option(a, CLI_NRANKS, "nranks", 1, 65536, &o->nranks) ||
        !int_option(a, CLI_NODES, "nodes", 1, 4096, &o->nodes))
        return 1;
    int channels = mc->nccl.max_channels;
    if (!parse_algo(algo, mc))
        return cli_error(a->cmd, "--algo expects nccl, NCCL's ring, tree, nvls, nvlstree or "
                                 "collnet (as NCCL_ALGO), or a textbook algorithm: "
                                 "textbook-ring, textbook-tree, naive, halving-doubling, "
                                 "hierarchical");
    mc->nccl.max_channels = channels;
    if (proto && !nccl_proto_parse(proto, &mc->nccl.proto))
        return cli_error(a->cmd, "--proto expects ll, ll128 or simple (as NCCL_PROTO)");
    if (mc->algo != COLL_ALGO_NCCL && (proto || channels))
        return cli_error(a->cmd, "--proto and --channels are NCCL's: expected --algo nccl or one "
                                 "of NCCL's algorithms with them");
    o->op = -1;
    if ((op = cli_value(a, CLI_OP)) != NULL) {
        static const char *nccl[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                     "alltoall"};
        for (int i = 0; i < COLL_NOPS && o->op < 0; i++)
            if (strcmp(op, nccl[i]) == 0 || strcmp(op, collective_op_name((enum coll_op)i)) == 0)
                o->op = i;
        if (o->op < 0)
            return cli_error(a->cmd, "--op expects allreduce, allgather, reducescatter, broadcast "
                                     "or alltoall");
    }
    return 0;
}
