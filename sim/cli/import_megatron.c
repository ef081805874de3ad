/* import_megatron.c - a Megatron-LM command line read into a scenario's model and job (see
 * import_megatron.h). Defaults and checks follow Megatron-LM's megatron/training/arguments.py
 * (validate_args): ffn_hidden_size 4h, or int(4h x 2/3 / 64) x 64 with --swiglu; one query
 * group with --group-query-attention and no --num-query-groups; world / (tp x pp x cp) data-
 * parallel replicas; global / (micro x dp) microbatches; --recompute-activations is selective
 * recomputation; sequence parallelism dropped when tp is 1; moe-router-topk 2; the vocabulary
 * padded to a multiple of make-vocab-size-divisible-by (128) x tp. */
#include "import_megatron.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mg_int {
    I_LAYERS,
    I_HIDDEN,
    I_FFN,
    I_HEADS,
    I_GROUPS,
    I_KVCH,
    I_SEQ,
    I_MAXPOS,
    I_VOCAB,
    I_DIVBY,
    I_MBS,
    I_GBS,
    I_TP,
    I_PP,
    I_VPP_LAYERS,
    I_VPP,
    I_CP,
    I_EP,
    I_ETP,
    I_EXPERTS,
    I_TOPK,
    I_ITERS,
    I_NNODES,
    I_NPROC,
    I_FIRST,
    I_LAST,
    I_COUNT
};
enum mg_flag {
    F_GQA,
    F_SP,
    F_RC_ACT,
    F_DISTOPT,
    F_BF16,
    F_FP16,
    F_SWIGLU,
    F_UNTIE,
    F_NOBIAS,
    F_OVG,
    F_OVP,
    F_TPOV,
    F_NOPOS,
    F_CKPT_ACT,
    F_FLASH,
    F_COUNT
};
enum mg_str {
    S_RC_GRAN,
    S_NORM,
    S_POS,
    S_TOK,
    S_FP8,
    S_OPT,
    S_ATTN,
    S_IMPL,
    S_CKPT_M,
    S_MERGE,
    S_COUNT
};
enum mg_kind { MG_INT, MG_FLAG, MG_STR };

/* The arguments read, with what each sets. */
static const struct mg_arg {
    const char *name; /* without the dashes, '-' between words */
    enum mg_kind kind;
    int idx; /* enum mg_int, mg_flag or mg_str */
} mg_args[] = {
        {"num-layers", MG_INT, I_LAYERS},
        {"hidden-size", MG_INT, I_HIDDEN},
        {"ffn-hidden-size", MG_INT, I_FFN},
        {"num-attention-heads", MG_INT, I_HEADS},
        {"num-query-groups", MG_INT, I_GROUPS},
        {"kv-channels", MG_INT, I_KVCH},
        {"seq-length", MG_INT, I_SEQ},
        {"max-position-embeddings", MG_INT, I_MAXPOS},
        {"vocab-size", MG_INT, I_VOCAB},
        {"make-vocab-size-divisible-by", MG_INT, I_DIVBY},
        {"micro-batch-size", MG_INT, I_MBS},
        {"global-batch-size", MG_INT, I_GBS},
        {"tensor-model-parallel-size", MG_INT, I_TP},
        {"pipeline-model-parallel-size", MG_INT, I_PP},
        {"num-layers-per-virtual-pipeline-stage", MG_INT, I_VPP_LAYERS},
        {"virtual-pipeline-model-parallel-size", MG_INT, I_VPP},
        {"context-parallel-size", MG_INT, I_CP},
        {"expert-model-parallel-size", MG_INT, I_EP},
        {"expert-tensor-parallel-size", MG_INT, I_ETP},
        {"num-experts", MG_INT, I_EXPERTS},
        {"moe-router-topk", MG_INT, I_TOPK},
        {"train-iters", MG_INT, I_ITERS},
        {"nnodes", MG_INT, I_NNODES},
        {"nproc-per-node", MG_INT, I_NPROC},
        {"decoder-first-pipeline-num-layers", MG_INT, I_FIRST},
        {"decoder-last-pipeline-num-layers", MG_INT, I_LAST},
        {"group-query-attention", MG_FLAG, F_GQA},
        {"sequence-parallel", MG_FLAG, F_SP},
        {"recompute-activations", MG_FLAG, F_RC_ACT},
        {"use-distributed-optimizer", MG_FLAG, F_DISTOPT},
        {"bf16", MG_FLAG, F_BF16},
        {"fp16", MG_FLAG, F_FP16},
        {"swiglu", MG_FLAG, F_SWIGLU},
        {"untie-embeddings-and-output-weights", MG_FLAG, F_UNTIE},
        {"disable-bias-linear", MG_FLAG, F_NOBIAS},
        {"overlap-grad-reduce", MG_FLAG, F_OVG},
        {"overlap-param-gather", MG_FLAG, F_OVP},
        {"tp-comm-overlap", MG_FLAG, F_TPOV},
        {"no-position-embedding", MG_FLAG, F_NOPOS},
        {"checkpoint-activations", MG_FLAG, F_CKPT_ACT},
        {"use-flash-attn", MG_FLAG, F_FLASH},
        {"recompute-granularity", MG_STR, S_RC_GRAN},
        {"normalization", MG_STR, S_NORM},
        {"position-embedding-type", MG_STR, S_POS},
        {"tokenizer-type", MG_STR, S_TOK},
        {"fp8-format", MG_STR, S_FP8},
        {"optimizer", MG_STR, S_OPT},
        {"attention-backend", MG_STR, S_ATTN},
        {"transformer-impl", MG_STR, S_IMPL},
        {"activations-checkpoint-method", MG_STR, S_CKPT_M},
        {"merge-file", MG_STR, S_MERGE},
};

struct mg {
    long v[I_COUNT];        /* integers (0: not given) */
    bool f[F_COUNT];        /* flags given */
    const char *s[S_COUNT]; /* strings (NULL: not given) */
};

static int fail(char *err, size_t elen, const char *fmt, ...)
{
    int n = snprintf(err, elen, "dmlsim import megatron: ");
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < elen) vsnprintf(err + n, elen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* arg's name ("--nproc_per_node=8" -> "nproc-per-node") into name, its "=value" into *eq. */
static void arg_name(const char *arg, char *name, size_t len, const char **eq)
{
    size_t n = strcspn(arg + 2, "=");
    snprintf(name, len, "%.*s", (int)n, arg + 2);
    for (char *c = name; *c; c++)
        if (*c == '_') *c = '-';
    *eq = arg[2 + n] == '=' ? arg + 3 + n : NULL;
}

static const struct mg_arg *mg_find(const char *name)
{
    for (size_t i = 0; i < sizeof mg_args / sizeof mg_args[0]; i++)
        if (strcmp(mg_args[i].name, name) == 0) return &mg_args[i];
    return NULL;
}

/* One known argument and its value (NULL for a flag); argparse keeps the last of repeats. */
static int take(struct mg *g, const struct mg_arg *a, const char *val, char *err, size_t elen)
{
    if (a->kind == MG_FLAG) {
        if (val)
            return fail(err, elen, "--%s takes no value; expected --%s alone", a->name, a->name);
        g->f[a->idx] = true;
        return 0;
    }
    if (val == NULL) return fail(err, elen, "--%s needs a value", a->name);
    if (a->kind == MG_STR) {
        g->s[a->idx] = val;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (errno || end == val || *end || v < 1 || v > (1L << 30))
        return fail(err, elen, "--%s '%s': expected a positive integer", a->name, val);
    g->v[a->idx] = v;
    return 0;
}

/* Splits argv into the known arguments (into g) and the rest, listed in `ignored`. */
static int mg_scan(int argc, char *const *argv, struct mg *g, char *ignored, size_t ilen, char *err,
                   size_t elen)
{
    char name[96];
    size_t used = 0;
    for (int i = 0; i < argc; i++) {
        const char *eq = NULL;
        const struct mg_arg *a = NULL;
        if (strncmp(argv[i], "--", 2) == 0) {
            arg_name(argv[i], name, sizeof name, &eq);
            a = mg_find(name);
        }
        if (a == NULL) {         /* an unknown option and its values, or a stray word */
            if (used + 1 < ilen) /* a list that does not fit is cut */
                used += (size_t)snprintf(ignored + used, ilen - used, "%s%s", used ? " " : "",
                                         argv[i]);
            continue;
        }
        bool has_value = a->kind != MG_FLAG && eq == NULL && i + 1 < argc;
        const char *val = eq ? eq : has_value ? argv[++i] : NULL;
        if (take(g, a, val, err, elen) != 0) return -1;
    }
    return 0;
}

/* Appends a sentence to notes. */
static void note(char *notes, size_t nlen, const char *fmt, ...)
{
    size_t n = strlen(notes);
    if (n + 2 >= nlen) return;
    if (n > 0) notes[n++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes + n, nlen - n, fmt, ap);
    va_end(ap);
}

/* The vocabulary: --vocab-size, else the tokenizer's own: GPT-2's byte-level BPE has 50257
 * tokens (Radford et al. 2019; Hugging Face gpt2 config.json vocab_size), named by
 * --tokenizer-type GPT2BPETokenizer or by its --vocab-file/--merge-file pair; Llama 2's
 * SentencePiece model 32000 (Touvron et al. 2023, "Llama 2", section 2.1: "vocabulary size is 32k
 * tokens"). Megatron-LM pads it (_vocab_size_with_padding): a note says by how much. */
static int mg_vocab(const struct mg *g, struct import_model *m, char *notes, size_t nlen, char *err,
                    size_t elen)
{
    const char *tok = g->s[S_TOK];
    if (g->v[I_VOCAB] > 0)
        m->vocab = g->v[I_VOCAB];
    else if ((tok && strcmp(tok, "GPT2BPETokenizer") == 0) || (!tok && g->s[S_MERGE]))
        m->vocab = 50257;
    else if (tok && strcmp(tok, "Llama2Tokenizer") == 0)
        m->vocab = 32000;
    else
        return fail(err, elen,
                    "the vocabulary comes from the tokenizer %s%s%s, which is not read; "
                    "expected --vocab-size N",
                    tok ? "'" : "", tok ? tok : "file", tok ? "'" : "");
    long mult = (g->v[I_DIVBY] > 0 ? g->v[I_DIVBY] : 128) * (g->v[I_TP] > 0 ? g->v[I_TP] : 1);
    long padded = (m->vocab + mult - 1) / mult * mult;
    if (padded != m->vocab)
        note(notes, nlen,
             "Megatron-LM pads the vocabulary of %ld to %ld (a multiple of %ld); the scenario "
             "keeps %ld, as the presets do.",
             m->vocab, padded, mult, m->vocab);
    return 0;
}

/* Heads, query groups, head width and MLP width. */
static int mg_heads(const struct mg *g, struct import_model *m, char *err, size_t elen)
{
    if (m->hidden % m->heads != 0)
        return fail(err, elen, "--hidden-size %ld is not a multiple of --num-attention-heads %ld",
                    m->hidden, m->heads);
    if (g->v[I_GROUPS] > 0 && !g->f[F_GQA])
        return fail(err, elen,
                    "--num-query-groups %ld without --group-query-attention (Megatron-LM would "
                    "ignore the groups); expected both or neither",
                    g->v[I_GROUPS]);
    m->kv_heads = !g->f[F_GQA] ? m->heads : g->v[I_GROUPS] > 0 ? g->v[I_GROUPS] : 1;
    if (m->heads % m->kv_heads != 0)
        return fail(err, elen,
                    "--num-attention-heads %ld is not a multiple of --num-query-groups "
                    "%ld",
                    m->heads, m->kv_heads);
    m->head_dim = g->v[I_KVCH];
    m->ffn = g->v[I_FFN] > 0  ? g->v[I_FFN]
             : g->f[F_SWIGLU] ? (long)(4.0 * m->hidden * 2 / 3 / 64) * 64
                              : 4 * m->hidden;
    m->experts = g->v[I_EXPERTS];
    m->topk = g->v[I_TOPK] > 0 ? g->v[I_TOPK] : 2;
    if (m->experts > 0 && m->topk > m->experts)
        return fail(err, elen, "--moe-router-topk %ld is more than --num-experts %ld", m->topk,
                    m->experts);
    return 0;
}

/* The model: shape, MLP, norms, positions, head. */
static int mg_model(const struct mg *g, const struct import_opts *o, struct import_model *m,
                    char *notes, size_t nlen, char *err, size_t elen)
{
    static const char *const need[] = {"--num-layers", "--hidden-size", "--num-attention-heads",
                                       "--seq-length"};
    const long have[] = {g->v[I_LAYERS], g->v[I_HIDDEN], g->v[I_HEADS], g->v[I_SEQ]};
    for (int i = 0; i < 4; i++)
        if (have[i] == 0)
            return fail(err, elen, "no %s; expected the model's %s", need[i], need[i]);
    m->layers = g->v[I_LAYERS];
    m->hidden = g->v[I_HIDDEN];
    m->heads = g->v[I_HEADS];
    m->seq = o->seq > 0 ? o->seq : g->v[I_SEQ];
    if (mg_heads(g, m, err, elen) != 0 || mg_vocab(g, m, notes, nlen, err, elen) != 0) return -1;
    const char *norm = g->s[S_NORM] ? g->s[S_NORM] : "LayerNorm";
    if (strcmp(norm, "LayerNorm") != 0 && strcmp(norm, "RMSNorm") != 0)
        return fail(err, elen, "--normalization '%s': expected LayerNorm or RMSNorm", norm);
    m->rmsnorm = strcmp(norm, "RMSNorm") == 0;
    m->gated = g->f[F_SWIGLU];
    m->untied = g->f[F_UNTIE];
    m->bias = !g->f[F_NOBIAS];
    const char *pos = g->s[S_POS] ? g->s[S_POS] : "learned_absolute";
    long maxpos = g->v[I_MAXPOS] > 0 ? g->v[I_MAXPOS] : g->v[I_SEQ];
    m->positions = g->f[F_NOPOS] || strcmp(pos, "learned_absolute") != 0 ? 0 : maxpos;
    if (m->positions > 0 && maxpos < g->v[I_SEQ])
        return fail(err, elen, "--seq-length %ld is over --max-position-embeddings %ld",
                    g->v[I_SEQ], maxpos);
    if (m->positions > 0 && m->positions != m->seq && !m->gated)
        note(notes, nlen,
             "Megatron-LM's position table has %ld rows; the scenario's has one a token of the "
             "sequence (%ld).",
             m->positions, m->seq);
    return 0;
}

/* The world: torchrun's --nnodes x --nproc-per-node, or import's --gpus (both: they agree). */
static int mg_world(const struct mg *g, const struct import_opts *o, struct import_job *j,
                    long *world, char *err, size_t elen)
{
    long gpn = g->v[I_NPROC];
    *world = gpn > 0 ? gpn * (g->v[I_NNODES] > 0 ? g->v[I_NNODES] : 1) : o->gpus;
    if (*world == 0)
        return fail(err, elen,
                    "no world size; expected --gpus N (before --) or torchrun's "
                    "--nnodes and --nproc-per-node among the arguments");
    if (o->gpus > 0 && o->gpus != *world)
        return fail(err, elen,
                    "--gpus %ld but --nnodes x --nproc-per-node is %ld; expected one "
                    "world size",
                    o->gpus, *world);
    char why[256];
    if (import_scen_cluster(o, *world, gpn, j, why, sizeof why) != 0)
        return fail(err, elen, "%s", why);
    return 0;
}

/* Pipeline stages: even, uneven (first and last stages of their own), interleaved. */
static int mg_stages(const struct mg *g, const struct import_model *m, struct import_job *j,
                     char *err, size_t elen)
{
    long first = g->v[I_FIRST], last = g->v[I_LAST], rest = m->layers - first - last;
    long middle = j->pp - (first > 0) - (last > 0);
    if ((first || last) && (rest < 0 || (middle > 0 ? rest % middle : rest) != 0))
        return fail(err, elen,
                    "%ld layers do not split as first %ld, last %ld and %ld even "
                    "stages",
                    m->layers, first, last, middle);
    if (!first && !last && m->layers % j->pp != 0)
        return fail(err, elen,
                    "--num-layers %ld is not a multiple of "
                    "--pipeline-model-parallel-size %ld",
                    m->layers, j->pp);
    j->first_layers = first;
    j->last_layers = last;
    long per = m->layers / j->pp, chunk = g->v[I_VPP_LAYERS];
    if (chunk > 0 && per % chunk != 0)
        return fail(err, elen,
                    "--num-layers-per-virtual-pipeline-stage %ld does not divide the "
                    "%ld layers a stage",
                    chunk, per);
    j->vstages = chunk > 0 ? per / chunk : g->v[I_VPP];
    if (j->vstages > 1 && j->pp == 1)
        return fail(err, elen,
                    "a virtual pipeline without --pipeline-model-parallel-size; "
                    "expected pipeline stages to interleave");
    if (j->vstages == 1) j->vstages = 0;
    return 0;
}

/* The layout and the batch. */
static int mg_layout(const struct mg *g, const struct import_opts *o, const struct import_model *m,
                     struct import_job *j, char *err, size_t elen)
{
    long world;
    if (mg_world(g, o, j, &world, err, elen) != 0) return -1;
    j->tp = g->v[I_TP] > 0 ? g->v[I_TP] : 1;
    j->pp = g->v[I_PP] > 0 ? g->v[I_PP] : 1;
    j->cp = g->v[I_CP] > 0 ? g->v[I_CP] : 1;
    j->ep = g->v[I_EP] > 0 ? g->v[I_EP] : 1;
    if (world % (j->tp * j->pp * j->cp) != 0)
        return fail(err, elen, "%ld GPUs are not a multiple of tp %ld x pp %ld x cp %ld", world,
                    j->tp, j->pp, j->cp);
    j->dp = world / (j->tp * j->pp * j->cp);
    if (m->heads % j->tp != 0 || m->kv_heads % j->tp != 0)
        return fail(err, elen, "%ld heads and %ld query groups do not split over tp %ld", m->heads,
                    m->kv_heads, j->tp);
    if (j->ep > 1 && (m->experts == 0 || m->experts % j->ep != 0 || j->dp % j->ep != 0))
        return fail(err, elen,
                    "--expert-model-parallel-size %ld: expected it to divide "
                    "--num-experts (%ld) and the %ld data-parallel replicas",
                    j->ep, m->experts, j->dp);
    if (g->v[I_ETP] > 0 && g->v[I_ETP] != j->tp)
        return fail(err, elen,
                    "--expert-tensor-parallel-size %ld: the scenario splits experts "
                    "over the tensor ranks (%ld) as the dense layers; expected it equal",
                    g->v[I_ETP], j->tp);
    j->micro = g->v[I_MBS] > 0 ? g->v[I_MBS] : 1;
    long global = g->v[I_GBS] > 0 ? g->v[I_GBS] : j->micro * j->dp;
    if (global % (j->micro * j->dp) != 0)
        return fail(err, elen,
                    "--global-batch-size %ld is not a multiple of micro-batch %ld x "
                    "%ld data-parallel replicas",
                    global, j->micro, j->dp);
    j->microbatches = global / (j->micro * j->dp);
    return mg_stages(g, m, j, err, elen);
}

static int mg_recompute(const struct mg *g, struct import_job *j, char *err, size_t elen)
{
    const char *gran = g->s[S_RC_GRAN];
    j->recompute = g->f[F_CKPT_ACT] || g->s[S_CKPT_M] ? IMPORT_RC_FULL
                   : g->f[F_RC_ACT]                   ? IMPORT_RC_SELECTIVE
                                                      : IMPORT_RC_NONE;
    if (gran == NULL) return 0;
    if (strcmp(gran, "full") != 0 && strcmp(gran, "selective") != 0)
        return fail(err, elen, "--recompute-granularity '%s': expected full or selective", gran);
    j->recompute = strcmp(gran, "full") == 0 ? IMPORT_RC_FULL : IMPORT_RC_SELECTIVE;
    return 0;
}

/* Precision, optimizer, recomputation, Megatron-Core's switches, steps. */
static int mg_train(const struct mg *g, struct import_job *j, char *notes, size_t nlen, char *err,
                    size_t elen)
{
    if (g->f[F_BF16] && g->f[F_FP16])
        return fail(err, elen, "both --bf16 and --fp16; expected one");
    j->dtype = g->s[S_FP8] ? "fp8" : g->f[F_BF16] ? "bf16" : g->f[F_FP16] ? "fp16" : "fp32";
    const char *opt = g->s[S_OPT] ? g->s[S_OPT] : "adam";
    if (strcmp(opt, "adam") != 0 && strcmp(opt, "sgd") != 0)
        return fail(err, elen, "--optimizer '%s': expected adam or sgd", opt);
    j->optimizer = strcmp(opt, "sgd") == 0 ? "momentum" : "adam"; /* --sgd-momentum 0.9 */
    if (mg_recompute(g, j, err, elen) != 0) return -1;
    j->sp = g->f[F_SP] && j->tp > 1;
    if (g->f[F_SP] && j->tp == 1)
        note(notes, nlen, "Sequence parallelism is off: Megatron-LM disables it at tp 1.");
    if (g->f[F_TPOV] && !j->sp)
        return fail(err, elen,
                    "--tp-comm-overlap without --sequence-parallel (and tp > 1); "
                    "expected both, as Megatron-LM does");
    j->tp_overlap = g->f[F_TPOV];
    j->zero1 = g->f[F_DISTOPT];
    if (g->f[F_OVP] && (!j->zero1 || !g->f[F_OVG]))
        return fail(err, elen,
                    "--overlap-param-gather without --use-distributed-optimizer and "
                    "--overlap-grad-reduce; expected all three");
    j->overlap_grad = g->f[F_OVG];
    j->overlap_param = g->f[F_OVP];
    const char *attn = g->s[S_ATTN], *impl = g->s[S_IMPL];
    j->materialised = attn ? strcmp(attn, "unfused") == 0 || strcmp(attn, "local") == 0
                           : impl && strcmp(impl, "local") == 0 && !g->f[F_FLASH];
    j->iters = g->v[I_ITERS];
    j->steps = j->iters > 0 && j->iters < 2 ? j->iters : 2;
    if (j->iters > j->steps)
        note(notes, nlen, "The job trains %ld iterations; the scenario simulates %ld steps.",
             j->iters, j->steps);
    return 0;
}

int import_megatron(int argc, char *const *argv, const struct import_opts *o,
                    struct import_model *m, struct import_job *j, char *notes, size_t nlen,
                    char *ignored, size_t ilen, char *err, size_t elen)
{
    struct mg g;
    memset(&g, 0, sizeof g);
    memset(m, 0, sizeof *m);
    memset(j, 0, sizeof *j);
    notes[0] = ignored[0] = '\0';
    if (mg_scan(argc, argv, &g, ignored, ilen, err, elen) != 0 ||
        mg_model(&g, o, m, notes, nlen, err, elen) != 0 || mg_layout(&g, o, m, j, err, elen) != 0 ||
        mg_train(&g, j, notes, nlen, err, elen) != 0)
        return -1;
    return 0;
}
