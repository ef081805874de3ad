/* model.h - a neural network as the simulator sees it: layers with parameters, FLOPs and
 * activations, built from explicit layers or computed from an architecture preset.
 *
 * Presets are computed from layer shapes, never typed-in totals: a convolution of k_h x k_w over
 * c_in -> c_out channels has k_h*k_w*c_in*c_out weights (+ c_out bias, or + 2*c_out for a
 * following batch norm's scale and shift) and costs 2*k_h*k_w*c_in*c_out*H_out*W_out FLOPs per
 * sample (one multiply-add = 2 FLOPs); a dense layer n_in -> n_out has n_in*n_out + n_out
 * parameters and costs 2*n_in*n_out; a transformer block of hidden size h over s tokens has
 * 12h^2 + 13h parameters and costs s*(24h^2 + 4sh) FLOPs forward. Backward = 2 x forward (the
 * gradients with respect to inputs and to weights are one GEMM each) unless a layer says otherwise.
 *
 * Activations are the bytes a layer keeps per sample for its backward pass: for convolutional
 * nets, the outputs of each convolution and of its normalisation (2 x c_out*H_out*W_out elements);
 * for transformers, Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
 * Transformer Models", eq. 1): s*h*(34 + 5*a*s/h) bytes per block at 16-bit, scaled by the
 * dtype's size / 2.
 */
#ifndef DMLSIM_MODEL_H
#define DMLSIM_MODEL_H

#include "catalog.h"
#include "emb_ids.h"

#include <stdbool.h>
#include <stddef.h>

/* What a GPU kernel is limited by, and what it is: one class per line of the compute breakdown. */
enum kernel_class {
    KC_GEMM,    /* GEMMs and convolutions (implicit GEMM): tensor cores */
    KC_NORM,    /* batch / layer normalisation */
    KC_ACT,     /* activations (ReLU, GELU) */
    KC_SOFTMAX, /* attention softmax */
    KC_ELTWISE, /* residual adds, dropout */
    KC_EMBED,   /* embedding lookups and their gradient scatter */
    KC_ATTN,    /* fused attention (FlashAttention): scores, softmax and weighted sum in one */
    KC_CAST,    /* precision casts: FP8 quantisation of GEMM inputs (Transformer Engine) */
    KC_COUNT
};

/* One kernel of a layer's forward or backward pass, per sample of the batch. A GEMM multiplies an
 * M x K by a K x N matrix, N growing with the batch (N = n x batch): a convolution as implicit
 * GEMM has M = c_out, N = batch x H_out x W_out, K = c_in x k_h x k_w. A memory-bound kernel moves
 * `bytes` per sample: the elements it reads and writes, counted from its algorithm. */
struct kernel {
    enum kernel_class cls;
    double m, n, k; /* GEMM shape for one sample; 0 for memory-bound kernels; KC_ATTN: queries,
                       keys, head dimension */
    int bdim;       /* GEMM: the dimension the batch multiplies: 1 n (forward, input gradient),
                       2 k (the weight gradient sums over the batch), 3 the count (a batched
                       GEMM of g products per sample: attention's, one per head) */
    double bytes;   /* memory-bound: bytes moved per sample */
    double g;       /* bdim 3 and KC_ATTN: products (heads) per sample */
    double kpad;    /* GEMM: the K it really computes when the library pads it (cuDNN pads a
                       convolution's input channels to 8 for 16-bit tensor cores); 0: k */
    double flops;   /* KC_ATTN: FLOPs it executes per sample (a causal mask halves them; the
                       backward recomputes the scores: 2.5 x the forward) */
    bool bwd;       /* KC_ATTN: the backward kernel */
    int winograd;   /* GEMM: a 3x3 stride-1 convolution's forward (1) or input gradient (2),
                       which cuDNN can run as Winograd (kcost.h); 0: neither */
};

#define LAYER_KERNELS 32 /* kernels of one pass of one layer, at most */

struct layer {
    char name[48];    /* e.g. "layer3.2.conv2" */
    double params;    /* trainable parameters */
    double fwd_flops; /* forward FLOPs per sample */
    double bwd_flops; /* backward FLOPs per sample */
    double act_B;     /* activation bytes kept per sample for the backward pass */
    double gemm_m;    /* its main GEMM, per sample: M x N x K (conv: c_out x H_out W_out x */
    double gemm_n;    /*   c_in k_h k_w as im2col; dense: n_out x 1 x n_in; transformer */
    double gemm_k;    /*   block: the MLP's 4h x s x h); 0 when it has none */
    struct kernel fwd[LAYER_KERNELS]; /* the forward's kernels (presets; none: one GEMM of
                                         fwd_flops at the layer's GEMM shape) */
    struct kernel bwd[LAYER_KERNELS]; /* the backward's */
    int nfwd, nbwd;
    int emb; /* 1 + the index of the embedding table whose lookups this layer is; 0: dense */
};

/* An embedding table of a recommendation model: rows x dim parameters, of which each sample looks
 * up `pooling` rows (summed into one vector: an embedding bag, as DLRM's), their IDs drawn as
 * emb_ids.h says. A table's lookups are one layer of the model (layer.emb): its parameters are
 * the table's; its forward gathers the rows, its backward scatters their gradients. */
struct emb_table {
    char name[48];
    double rows;          /* IDs, one row each */
    double dim;           /* elements per row */
    double pooling;       /* rows looked up per sample */
    enum emb_dist dist;   /* how its IDs are drawn */
    double zipf_s;        /* EMB_ZIPF: the exponent */
    const uint64_t *file; /* EMB_FILE: the IDs drawn from (not owned: the scenario's) */
    size_t nfile;         /* ... and how many */
};

struct model {
    char name[48];        /* preset name or the scenario's model name */
    struct layer *layers; /* in forward order */
    size_t nlayers;       /* number of layers */
    size_t cap;           /* allocated layers */
    struct emb_table *tables; /* embedding tables (owned), in the order of their layers */
    size_t ntables;           /* number of them */
};

enum optimizer {
    OPT_SGD,      /* plain SGD: no state */
    OPT_MOMENTUM, /* SGD with momentum: one FP32 buffer */
    OPT_ADAM,     /* Adam: two FP32 moments */
};

struct gpt_config {
    int layers;   /* transformer blocks */
    int hidden;   /* hidden size h */
    int heads;    /* attention heads a */
    int seq;      /* sequence length s (tokens per sample) */
    int vocab;    /* vocabulary size */
    int ffn;      /* MLP width (0: 4h) */
    int kv_heads; /* key/value heads, grouped-query attention (0: heads) */
    bool llama;   /* Llama-style: SwiGLU MLP (gate, up, down), RMSNorm, no biases, rotary
                     positions, an output head of its own; else GPT-2/3: GELU MLP, LayerNorm,
                     biases, learned positions, the head tied to the embedding */
    int experts;  /* mixture of experts: MLPs per block (0: dense) ... */
    int topk;     /* ... and those each token goes through */
    int tp;       /* tensor-parallel ranks the blocks are split over (0 or 1: none): Megatron's
                     column- then row-parallel GEMMs, heads split, vocabulary split */
    bool sp;      /* sequence parallelism: norms, dropouts and residuals over s / tp */
    int ep;       /* expert-parallel ranks the experts are split over (0 or 1: none) */
    int attention; /* ATTN_FLASH (0, the default) or ATTN_MATERIALISED */
    int head;      /* bert-large: BERT_HEAD_NONE (encoder and pooler), _PRETRAINING, _SQUAD */
    int layout;    /* CNNs: enum conv_layout */
    bool autocast; /* 16-bit training as PyTorch's autocast runs it (kcost.h): layer norms and
                      softmaxes in FP32, with casts around them */
    int ids;       /* recommendation presets: how their tables' IDs are drawn (enum emb_dist) */
    double zipf;   /* ... the Zipf exponent for EMB_ZIPF */
};

/* The memory layout of a CNN's activations. cuDNN's tensor-core convolutions work in NHWC; on
 * NCHW tensors they transpose the input and the output of every convolution, forward and backward
 * (NVIDIA, "Convolutional Layers User's Guide", tensor layouts: "NCHW ... requires transposes").
 * LAYOUT_AUTO is what NVIDIA DeepLearningExamples' PyTorch ResNet-50 does: channels-last (NHWC)
 * under mixed precision, NCHW in FP32 and TF32. FP32 runs on the SIMT cores: no transposes. */
enum conv_layout { LAYOUT_AUTO, LAYOUT_NCHW, LAYOUT_NHWC };

enum bert_head { BERT_HEAD_NONE, BERT_HEAD_PRETRAINING, BERT_HEAD_SQUAD };

/* How a transformer's attention runs. FlashAttention (Dao 2023, FlashAttention-2, section 3;
 * Shah et al. 2024, FlashAttention-3): one fused kernel forward and one backward, the scores never
 * written to memory (the backward recomputes them: 5 matrix products against the forward's 2,
 * 2.5 x its FLOPs), a causal mask skipping the blocks above the diagonal (half the products), and
 * only the output and the softmax's logsumexp kept; needs compute capability 8.0 (Ampere) or
 * later. Materialised: the scores as batched GEMMs, softmax and dropout kernels over the a s^2
 * scores, which are kept for the backward (Korthikanti et al. 2022's 5as/h term). */
enum attention_impl { ATTN_FLASH, ATTN_MATERIALISED };

/* Builds preset `name` ("resnet50", "resnet101", "resnet152", "vgg16", "inception-v3",
 * "bert-large", "gpt", and the large transformers of model_large_presets) for activations of `dtype`; `gpt` (for
 * "gpt", the sequence length of "bert-large" and the large transformers, and the tensor
 * parallelism of any transformer) may be NULL for the defaults. With gpt->tp > 1 the model is
 * one tensor-parallel rank's share. Returns 0, or -1 for an unknown name. */
int model_preset(const char *name, const struct gpt_config *gpt, enum gpu_dtype dtype,
                 struct model *m);

/* The preset names, "a, b, c" (with the recommendation presets, which model_preset_any builds:
 * model_recsys.h). */
const char *model_preset_names(void);

/* The defaults of a GPT-style preset (GPT-2 small: 12 x 768, 12 heads, 1024 tokens, 50257). */
struct gpt_config model_gpt_defaults(void);

/* The experts' parameters of one block as one rank of g holds them (its experts / ep, their
 * matrices / tp); 0 for a dense model. */
double model_expert_params(const struct gpt_config *g);

/* One layer: the attention core of one of g's blocks as a tensor rank runs it (the scores and
 * weighted-sum GEMMs of a / tp heads, the softmax, GPT's attention dropout): what selective
 * recomputation runs again in the backward (Korthikanti et al. 2022, section 4.1). */
void model_attention_core(const struct gpt_config *g, enum gpu_dtype dtype, struct model *m);

/* The shape of a transformer preset ("gpt", "bert-large", or a large one: "gpt3-175b",
 * "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b"), into *g; false for any other. */
bool model_transformer_shape(const char *name, struct gpt_config *g);

/* Sets the GEMM shape of the last layer added. */
void model_set_gemm(struct model *m, double gm, double gn, double gk);

/* Adds a GEMM (M x K by K x n-per-sample) to the last layer's forward, and its two backward GEMMs
 * (the input gradient, K x M by M x n, unless `no_dgrad`: the first layer has no input to
 * differentiate; and the weight gradient, M x n by n x K): each as many FLOPs as the forward. */
void model_add_gemm(struct model *m, double gm, double gn, double gk, bool no_dgrad);

/* Adds a batched GEMM (g products of M x K by K x N per sample) to the last layer's forward, and
 * its two backward batched GEMMs (dA = dC B^T: M x K over N; dB = A^T dC: K x N over M). */
void model_add_bgemm(struct model *m, double gm, double gn, double gk, double g);

/* The last layer's forward GEMM computes K = kpad (the library's padding of its input). */
void model_set_kpad(struct model *m, double kpad);

/* Marks the last layer's forward and input-gradient GEMMs as Winograd-capable (3x3, stride 1). */
void model_set_winograd(struct model *m);

/* Adds FlashAttention's forward and backward kernels over `heads` heads of s queries and keys of
 * dimension hd to the last layer (enum attention_impl). */
void model_add_flash(struct model *m, double s, double hd, double heads, bool causal);

/* Adds a memory-bound kernel of class `cls` over `elems` elements per sample of `elem_B` bytes,
 * reading and writing them `fwd_passes` times in the forward and `bwd_passes` in the backward
 * (0: none). */
void model_add_memk(struct model *m, enum kernel_class cls, double elems, double elem_B,
                    double fwd_passes, double bwd_passes);

const char *kernel_class_name(enum kernel_class c);

/* Appends table t and the layer of its lookups ("emb.NAME"), for activations of elem_B bytes:
 * a memory-bound gather forward (the pooled rows read, the bag written: (pooling + 1) x dim
 * elements) and a scatter-add backward (the bag's gradient read, each row read and written:
 * (2 pooling + 1) x dim), as FBGEMM's table-batched embedding kernels run them; it keeps the
 * sample's IDs (8 B each) for its backward. */
void model_add_table(struct model *m, const struct emb_table *t, double elem_B);

/* The embedding tables' parameters (0 for a dense model). */
double model_table_params(const struct model *m);

/* The table a layer looks up, or NULL for a dense layer. */
const struct emb_table *model_layer_table(const struct model *m, const struct layer *l);

/* Appends a layer (bwd_flops < 0 means 2 x fwd_flops). */
void model_add(struct model *m, const char *name, double params, double fwd_flops, double bwd_flops,
               double act_B);

void model_init(struct model *m, const char *name);
void model_release(struct model *m);

double model_params(const struct model *m);
double model_fwd_flops(const struct model *m); /* per sample */
double model_bwd_flops(const struct model *m); /* per sample */
double model_act_B(const struct model *m);     /* per sample */

/* Bytes per element of a dtype: fp32/tf32 4, fp16/bf16 2, fp8 1. */
double model_dtype_bytes(enum gpu_dtype dtype);

/* Bytes per activation element when training in `dtype`: as model_dtype_bytes, but FP8 training
 * keeps its activations in BF16 (Transformer Engine casts only GEMM inputs): 2. */
double model_act_bytes(enum gpu_dtype dtype);

struct memory_need {
    double weights_B;   /* parameters in the training dtype */
    double grads_B;     /* gradients in the training dtype */
    double optimizer_B; /* optimizer state, plus an FP32 master copy in mixed precision */
    double act_B;       /* activations for the per-GPU batch */
    double total_B;     /* the sum */
    double tables_B;    /* of the sum, the embedding tables' weights, gradients and optimizer
                           state (off the GPU: the rows a batch looks up, at most) */
    bool tables_on_gpu; /* the tables are on every GPU (else on the parameter server) */
};

/* Memory per GPU for data parallelism (every GPU holds the whole model). FP32: 4 B weights + 4 B
 * gradients + optimizer (SGD 0, momentum 4, Adam 8 B) per parameter. 16-bit mixed precision: 2 + 2
 * + 4 B FP32 master weights + optimizer, i.e. 16 B per parameter with Adam (Rajbhandari et al.,
 * ZeRO, SC'20, section 3.1). */
struct memory_need model_memory(const struct model *m, enum gpu_dtype dtype, enum optimizer opt,
                                double batch);

/* As model_memory, with the embedding tables on the GPU (tables_on_gpu) or off it, on the
 * parameter server's hosts: the GPU then holds only the rows its batch looks up (batch x pooling
 * rows of each table, before deduplication: an upper bound) and their gradients, and a cache of
 * cache_rows rows of each table (0: none), no optimizer state for them (the shards update the
 * rows). */
struct memory_need model_memory_placed(const struct model *m, enum gpu_dtype dtype,
                                       enum optimizer opt, double batch, bool tables_on_gpu,
                                       double cache_rows);

/* Bytes of optimizer state per parameter: its moments in FP32 (SGD 0, momentum 4, Adam 8), plus
 * the FP32 master copy (4) in mixed precision. */
double model_optimizer_bytes(enum gpu_dtype dtype, enum optimizer opt);

/* Bytes of optimizer-update memory traffic per parameter (read weights, gradients and state,
 * write weights and state), for the memory-bound update kernel. */
double model_update_bytes_per_param(enum gpu_dtype dtype, enum optimizer opt);

const char *model_optimizer_name(enum optimizer opt);

/* Does the model fit one `gpu` for this training setup? Returns 0 if so; otherwise -1 and, in
 * why, "NAME (N parameters, DTYPE, OPT) with batch B needs X GB per GPU (weights .. + gradients
 * .. + optimizer .. + activations .. GB); a GPU has Y GB". */
int model_check_fit(const struct model *m, enum gpu_dtype dtype, enum optimizer opt, double batch,
                    const struct gpu_model *gpu, char *why, size_t len);

/* As model_check_fit with the tables placed as model_memory_placed says; the reason then also
 * says where the tables are and how much of the total they are. */
int model_check_fit_placed(const struct model *m, enum gpu_dtype dtype, enum optimizer opt,
                           double batch, bool tables_on_gpu, double cache_rows,
                           const struct gpu_model *gpu, char *why, size_t len);

#endif
