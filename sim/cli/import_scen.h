/* import_scen.h - what `dmlsim import` learned from a foreign configuration (a Megatron-LM
 * command line, a Hugging Face config.json), and the scenario written from it.
 *
 * The scenario format describes a transformer as a preset (model.h: gpt3-175b, llama3-8b,
 * llama3-70b, llama3-405b, mixtral-8x7b, whose sequence length may be set) or as preset="gpt"
 * with its own layers, hidden, heads, seq and vocab (GPT-2/3 style: GELU MLP of 4h, LayerNorm,
 * biases, learned positions, the head tied to the embedding). So an import is a match: a
 * Llama-style model (SwiGLU, RMSNorm, no biases, rotary positions, its own output head) must be
 * one of the presets' shapes exactly, a GPT-style one is written as preset="gpt" (or gpt3-175b
 * when it is that one). Anything else is refused with one line naming what the format lacks
 * (grouped-query attention or an MLP width of its own outside the presets, a SwiGLU model of
 * another shape, ...): importing it as a near preset would simulate another model. */
#ifndef DMLSIM_IMPORT_SCEN_H
#define DMLSIM_IMPORT_SCEN_H

#include <stdbool.h>
#include <stdio.h>

/* A decoder-only transformer as the source describes it. */
struct import_model {
    long layers;    /* transformer blocks */
    long hidden;    /* hidden size h */
    long heads;     /* attention heads a */
    long kv_heads;  /* key/value heads (grouped-query attention; = heads without it) */
    long head_dim;  /* a head's width when the source sets it (0: h / a) */
    long ffn;       /* MLP width */
    long vocab;     /* vocabulary (unpadded) */
    long seq;       /* training sequence length, tokens */
    long positions; /* learned position table's rows (0: none, rotary) */
    bool gated;     /* SwiGLU MLP (three matrices), else GELU (two) */
    bool untied;    /* the output head has its own weights */
    bool bias;      /* linear layers have biases */
    bool rmsnorm;   /* RMSNorm, else LayerNorm */
    long experts;   /* mixture of experts: MLPs a block (0: dense) */
    long topk;      /* experts a token goes through */
};

enum import_recompute { IMPORT_RC_NONE, IMPORT_RC_SELECTIVE, IMPORT_RC_FULL };

/* The job: cluster, parallel layout, batch, precision. */
struct import_job {
    long nodes, gpus_per_node;      /* the cluster: nodes x GPUs a node */
    const char *gpu, *nic;          /* catalog names (import's --gpu, --nic) */
    long nics;                      /* NICs a node (import's --nics, default one a GPU up to 64) */
    long tp, pp, cp, ep, dp;        /* the layout: tp x cp x pp x dp GPUs */
    long vstages;                   /* interleaved 1F1B model chunks a rank (0: plain 1F1B) */
    long first_layers, last_layers; /* uneven first and last pipeline stages (0: even) */
    long micro;                     /* samples a microbatch */
    long microbatches;              /* microbatches a step on each replica */
    long steps;                     /* steps the scenario simulates */
    long iters;                     /* the job's training iterations (0: not given) */
    bool sp, zero1, overlap_grad, overlap_param, tp_overlap; /* Megatron-Core's switches */
    bool materialised; /* attention scores materialised (no fused attention kernel) */
    enum import_recompute recompute;
    const char *dtype;     /* fp32, fp16, bf16 or fp8 */
    const char *optimizer; /* adam, momentum or sgd */
};

/* import's own options (the cluster a source does not describe, and overrides). */
struct import_opts {
    long gpus;          /* --gpus: the job's GPUs (0: from the source) */
    long gpus_per_node; /* --gpus-per-node (0: the source's, else 8) */
    const char *gpu;    /* --gpu: a catalog GPU (default h100) */
    const char *nic;    /* --nic: a network class (default ib-ndr) */
    long nics;          /* --nics: NICs a node (0: one a GPU, at most 64) */
    long seq;           /* --seq: the training sequence length (0: the source's) */
    long batch;         /* --global-batch: sequences a step (hf; 0: one a GPU) */
};

/* The cluster of `world` GPUs, gpn a node (0: o's or 8), into j; -1 with a reason in why. */
int import_scen_cluster(const struct import_opts *o, long world, long gpn, struct import_job *j,
                        char *why, size_t len);

/* The preset that is m, with the sequence length m->seq, into *preset (a static name); -1 with a
 * one-line reason in why when none is. */
int import_scen_match(const struct import_model *m, const char **preset, char *why, size_t len);

/* The parameters of the model the scenario will describe (as the loader builds it). */
double import_scen_params(const char *preset, const struct import_model *m);

/* Writes the scenario to out: a comment (source, what was kept and what not), then the XML. */
void import_scen_write(FILE *out, const char *source, const char *preset,
                       const struct import_model *m, const struct import_job *j, const char *notes);

#endif
