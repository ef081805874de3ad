/* import_hf.c - a Hugging Face config.json read into a scenario's model and job (see import_hf.h).
 * Keys and defaults as transformers' configuration classes have them (LlamaConfig, MistralConfig,
 * MixtralConfig: tie_word_embeddings false, num_key_value_heads = num_attention_heads,
 * attention_bias and mlp_bias false; GPT2Config: n_inner null = 4 x n_embd,
 * tie_word_embeddings true). Keys that do not change the simulation are returned, to be listed. */
#include "import_hf.h"

#include "import_json.h"

#include <xbt/sysdep.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HF_MAX_FILE_B (1L << 20) /* a config.json is a few KB */
#define HF_MAX_KEYS   256

struct hf {
    const char *path;
    const struct json_value *cfg; /* the top object */
    bool used[HF_MAX_KEYS];       /* cfg's members read */
    char *err;
    size_t elen;
};

static int fail_at(struct hf *h, int line, const char *fmt, ...)
{
    int n = snprintf(h->err, h->elen, "%s:%d: ", h->path, line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < h->elen) vsnprintf(h->err + n, h->elen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* The member key (marked read), or NULL. */
static const struct json_value *get(struct hf *h, const char *key)
{
    for (size_t i = 0; i < h->cfg->n && i < HF_MAX_KEYS; i++)
        if (strcmp(h->cfg->keys[i], key) == 0) {
            h->used[i] = true;
            return &h->cfg->items[i];
        }
    return NULL;
}

/* A positive integer member into *out; absent or null: def (0: required). */
static int get_int(struct hf *h, const char *key, long def, long *out)
{
    const struct json_value *v = get(h, key);
    if (v == NULL || v->type == JSON_NULL) {
        if (def == 0)
            return fail_at(h, h->cfg->line, "no \"%s\"; expected it in a %s config", key,
                           "transformers");
        *out = def;
        return 0;
    }
    if (v->type != JSON_NUMBER || v->num < 1 || v->num > (double)(1L << 30) ||
        v->num != (double)(long)v->num)
        return fail_at(h, v->line, "\"%s\": expected a positive integer", key);
    *out = (long)v->num;
    return 0;
}

/* A boolean member into *out; absent: def. */
static int get_bool(struct hf *h, const char *key, bool def, bool *out)
{
    const struct json_value *v = get(h, key);
    *out = def;
    if (v == NULL) return 0;
    if (v->type != JSON_BOOL) return fail_at(h, v->line, "\"%s\": expected true or false", key);
    *out = v->b;
    return 0;
}

/* A string member, or NULL when absent (not a string: an error, *ok false). */
static const char *get_str(struct hf *h, const char *key, bool *ok)
{
    const struct json_value *v = get(h, key);
    *ok = v == NULL || v->type == JSON_STRING || v->type == JSON_NULL;
    if (!*ok) fail_at(h, v->line, "\"%s\": expected a string", key);
    return v && v->type == JSON_STRING ? v->str : NULL;
}

/* The pre-training context: rope_scaling's original_max_position_embeddings when the context was
 * extended after pre-training (Llama 3.1: 8192 of 131072), else max_position_embeddings. */
static long hf_context(struct hf *h, long maxpos)
{
    const struct json_value *rs = get(h, "rope_scaling");
    const struct json_value *orig = json_get(rs, "original_max_position_embeddings");
    return orig && orig->type == JSON_NUMBER && orig->num >= 1 ? (long)orig->num : maxpos;
}

/* LlamaConfig, MistralConfig and MixtralConfig's keys. */
static int hf_llama(struct hf *h, bool moe, const struct import_opts *o, struct import_model *m)
{
    long maxpos;
    bool tie, abias, mbias, ok;
    if (get_int(h, "hidden_size", 0, &m->hidden) || get_int(h, "intermediate_size", 0, &m->ffn) ||
        get_int(h, "num_hidden_layers", 0, &m->layers) ||
        get_int(h, "num_attention_heads", 0, &m->heads) || get_int(h, "vocab_size", 0, &m->vocab) ||
        get_int(h, "num_key_value_heads", m->heads, &m->kv_heads) ||
        get_int(h, "max_position_embeddings", 0, &maxpos) ||
        get_int(h, "head_dim", m->hidden / m->heads, &m->head_dim) ||
        get_bool(h, "tie_word_embeddings", false, &tie) ||
        get_bool(h, "attention_bias", false, &abias) || get_bool(h, "mlp_bias", false, &mbias))
        return -1;
    const char *act = get_str(h, "hidden_act", &ok);
    if (!ok) return -1;
    if (act && strcmp(act, "silu") != 0)
        return fail_at(h, get(h, "hidden_act")->line,
                       "\"hidden_act\": \"%s\": a gated MLP of another activation than SwiGLU's; "
                       "expected \"silu\"",
                       act);
    if (moe && (get_int(h, "num_local_experts", 0, &m->experts) ||
                get_int(h, "num_experts_per_tok", 0, &m->topk)))
        return -1;
    m->untied = !tie;
    m->bias = abias || mbias;
    m->gated = m->rmsnorm = true;
    m->seq = o->seq > 0 ? o->seq : hf_context(h, maxpos);
    return 0;
}

/* GPT2Config's keys. */
static int hf_gpt2(struct hf *h, const struct import_opts *o, struct import_model *m, char *notes,
                   size_t nlen)
{
    bool tie, ok;
    if (get_int(h, "n_embd", 0, &m->hidden) || get_int(h, "n_layer", 0, &m->layers) ||
        get_int(h, "n_head", 0, &m->heads) || get_int(h, "vocab_size", 0, &m->vocab) ||
        get_int(h, "n_positions", 0, &m->positions) ||
        get_int(h, "n_inner", 4 * m->hidden, &m->ffn) ||
        get_bool(h, "tie_word_embeddings", true, &tie))
        return -1;
    const char *act = get_str(h, "activation_function", &ok);
    if (!ok) return -1;
    if (act && strncmp(act, "gelu", 4) != 0)
        return fail_at(h, get(h, "activation_function")->line,
                       "\"activation_function\": \"%s\": expected a GELU (gelu, gelu_new, ...)",
                       act);
    m->kv_heads = m->heads;
    m->untied = !tie;
    m->bias = true;
    m->seq = o->seq > 0 ? o->seq : m->positions;
    if (m->seq != m->positions)
        snprintf(notes, nlen,
                 "The config's position table has %ld rows; the scenario's has one "
                 "a token of the sequence (%ld).",
                 m->positions, m->seq);
    return 0;
}

/* The job: every GPU a data-parallel replica (ZeRO-1, full recomputation), a sequence each per
 * microbatch, torch_dtype's precision. */
static int hf_job(struct hf *h, const struct import_opts *o, struct import_job *j)
{
    static const char *const dtypes[][2] = {
            {"bfloat16", "bf16"}, {"float16", "fp16"}, {"float32", "fp32"}};
    bool ok;
    const char *td = get_str(h, "torch_dtype", &ok);
    if (!ok) return -1;
    j->dtype = td ? NULL : "bf16";
    for (size_t i = 0; td && i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(td, dtypes[i][0]) == 0) j->dtype = dtypes[i][1];
    if (j->dtype == NULL)
        return fail_at(h, get(h, "torch_dtype")->line,
                       "\"torch_dtype\": \"%s\": expected bfloat16, float16 or float32", td);
    long world = o->gpus > 0 ? o->gpus : 8, batch = o->batch > 0 ? o->batch : world;
    char why[256];
    if (batch % world != 0)
        snprintf(why, sizeof why, "--global-batch %ld is not a multiple of the %ld GPUs", batch,
                 world);
    if (batch % world != 0 || import_scen_cluster(o, world, 0, j, why, sizeof why) != 0) {
        snprintf(h->err, h->elen, "dmlsim import hf: %s", why);
        return -1;
    }
    j->tp = j->pp = j->cp = j->ep = 1;
    j->dp = world;
    j->micro = 1;
    j->microbatches = batch / world;
    j->zero1 = true;
    j->recompute = IMPORT_RC_FULL;
    j->optimizer = "adam";
    j->steps = 2;
    return 0;
}

/* The model by its model_type. */
static int hf_model(struct hf *h, const struct import_opts *o, struct import_model *m, char *notes,
                    size_t nlen)
{
    bool ok;
    const char *type = get_str(h, "model_type", &ok);
    if (!ok) return -1;
    if (type == NULL)
        return fail_at(h, h->cfg->line, "no \"model_type\"; expected a transformers config");
    int rc = strcmp(type, "llama") == 0 || strcmp(type, "mistral") == 0 ? hf_llama(h, false, o, m)
             : strcmp(type, "mixtral") == 0                             ? hf_llama(h, true, o, m)
             : strcmp(type, "gpt2") == 0 ? hf_gpt2(h, o, m, notes, nlen)
                                         : fail_at(h, get(h, "model_type")->line,
                                                   "\"model_type\": \"%s\": expected llama, "
                                                   "mistral, mixtral or gpt2",
                                                   type);
    if (rc != 0) return -1;
    if (m->hidden % m->heads != 0 || m->heads % m->kv_heads != 0)
        return fail_at(h, h->cfg->line,
                       "hidden %ld, %ld heads, %ld key/value heads; expected "
                       "heads dividing hidden and key/value heads dividing heads",
                       m->hidden, m->heads, m->kv_heads);
    return 0;
}

/* The file's text (a new string the caller frees), or NULL with a message. */
static char *read_text(const char *path, char *err, size_t elen)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, elen, "%s:0: cannot open: %s; expected a config.json", path, strerror(errno));
        return NULL;
    }
    char *text = xbt_malloc(HF_MAX_FILE_B + 1);
    size_t n = fread(text, 1, HF_MAX_FILE_B + 1, f);
    fclose(f);
    if (n > HF_MAX_FILE_B || memchr(text, '\0', n) != NULL) {
        snprintf(err, elen, "%s:0: %s; expected a config.json (text, under 1 MiB)", path,
                 n > HF_MAX_FILE_B ? "over 1 MiB" : "a NUL byte");
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

int import_hf(const char *path, const struct import_opts *o, struct import_model *m,
              struct import_job *j, char *notes, size_t nlen, char *ignored, size_t ilen, char *err,
              size_t elen)
{
    struct json_value cfg;
    memset(m, 0, sizeof *m);
    memset(j, 0, sizeof *j);
    notes[0] = ignored[0] = '\0';
    char *text = read_text(path, err, elen);
    if (text == NULL) return -1;
    int rc = json_parse(path, text, &cfg, err, elen);
    free(text);
    if (rc != 0) return -1;
    struct hf h = {.path = path, .cfg = &cfg, .err = err, .elen = elen};
    if (cfg.type != JSON_OBJECT)
        rc = fail_at(&h, cfg.line, "the top value is not an object; expected {...}");
    else if (cfg.n > HF_MAX_KEYS)
        rc = fail_at(&h, cfg.line, "%zu keys; expected at most %d", cfg.n, HF_MAX_KEYS);
    else
        rc = hf_model(&h, o, m, notes, nlen) != 0 || hf_job(&h, o, j) != 0 ? -1 : 0;
    if (rc == 0) get(&h, "architectures"); /* the class model_type already named */
    for (size_t i = 0, n = 0; rc == 0 && i < cfg.n; i++)
        if (!h.used[i] && n + 1 < ilen)
            n += (size_t)snprintf(ignored + n, ilen - n, "%s%s", n ? " " : "", cfg.keys[i]);
    json_release(&cfg);
    return rc;
}
