/* model.c - layers and architecture presets (see model.h). Shapes follow the reference
 * implementations named beside each preset; only the shapes are used, no code. */
#include "model.h"

#include "mem.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void model_init(struct model *m, const char *name)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
}

void model_release(struct model *m)
{
    free(m->layers);
    free(m->tables);
    memset(m, 0, sizeof *m);
}

void model_add(struct model *m, const char *name, double params, double fwd_flops, double bwd_flops,
               double act_B)
{
    if (m->nlayers == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->layers = mem_realloc(m->layers, m->cap * sizeof *m->layers);
    }
    struct layer *l = &m->layers[m->nlayers++];
    snprintf(l->name, sizeof l->name, "%s", name);
    l->params = params;
    l->fwd_flops = fwd_flops;
    l->bwd_flops = bwd_flops < 0 ? 2 * fwd_flops : bwd_flops;
    l->act_B = act_B;
    l->gemm_m = l->gemm_n = l->gemm_k = 0;
    l->nfwd = l->nbwd = 0;
    l->emb = 0;
}

void model_add_table(struct model *m, const struct emb_table *t, double elem_B)
{
    m->tables = mem_realloc(m->tables, (m->ntables + 1) * sizeof *m->tables);
    m->tables[m->ntables++] = *t;
    char name[48];
    snprintf(name, sizeof name, "emb.%.40s", t->name);
    /* the bag's sum: pooling - 1 additions of dim elements; its backward copies the gradient */
    model_add(m, name, t->rows * t->dim, (t->pooling - 1) * t->dim, 0, t->pooling * 8);
    model_add_memk(m, KC_EMBED, t->dim, elem_B, t->pooling + 1, 2 * t->pooling + 1);
    m->layers[m->nlayers - 1].emb = (int)m->ntables;
}

double model_table_params(const struct model *m)
{
    double p = 0;
    for (size_t l = 0; l < m->nlayers; l++)
        p += m->layers[l].emb ? m->layers[l].params : 0;
    return p;
}

const struct emb_table *model_layer_table(const struct model *m, const struct layer *l)
{
    return l->emb > 0 ? &m->tables[l->emb - 1] : NULL;
}

static struct kernel *push_kernel(struct kernel *list, int *n, enum kernel_class cls)
{
    if (*n >= LAYER_KERNELS) abort(); /* a preset's layer has more kernels than room: a bug */
    struct kernel *k = &list[(*n)++];
    memset(k, 0, sizeof *k);
    k->cls = cls;
    return k;
}

static void push_gemm(struct kernel *list, int *n, double gm, double gn, double gk, int bdim,
                      double g)
{
    struct kernel *k = push_kernel(list, n, KC_GEMM);
    k->m = gm;
    k->n = gn;
    k->k = gk;
    k->bdim = bdim;
    k->g = g;
}

void model_add_gemm(struct model *m, double gm, double gn, double gk, bool no_dgrad)
{
    struct layer *l = &m->layers[m->nlayers - 1];
    push_gemm(l->fwd, &l->nfwd, gm, gn, gk, 1, 0);
    if (!no_dgrad) push_gemm(l->bwd, &l->nbwd, gk, gn, gm, 1, 0);
    push_gemm(l->bwd, &l->nbwd, gm, gk, gn, 2, 0);
}

void model_add_bgemm(struct model *m, double gm, double gn, double gk, double g)
{
    struct layer *l = &m->layers[m->nlayers - 1];
    push_gemm(l->fwd, &l->nfwd, gm, gn, gk, 3, g);
    push_gemm(l->bwd, &l->nbwd, gm, gk, gn, 3, g); /* dA = dC B^T: m x k over n */
    push_gemm(l->bwd, &l->nbwd, gk, gn, gm, 3, g); /* dB = A^T dC: k x n over m */
}

void model_set_kpad(struct model *m, double kpad)
{
    struct layer *l = &m->layers[m->nlayers - 1];
    for (int i = 0; i < l->nfwd; i++)
        if (l->fwd[i].cls == KC_GEMM && l->fwd[i].k == l->gemm_k) l->fwd[i].kpad = kpad;
}

void model_set_winograd(struct model *m)
{
    struct layer *l = &m->layers[m->nlayers - 1];
    for (int i = 0; i < l->nfwd; i++)
        l->fwd[i].winograd = l->fwd[i].cls == KC_GEMM ? 1 : 0;
    for (int i = 0; i < l->nbwd; i++)
        l->bwd[i].winograd = l->bwd[i].cls == KC_GEMM && l->bwd[i].bdim == 1 ? 2 : 0;
}

void model_add_flash(struct model *m, double s, double hd, double heads, bool causal)
{
    struct layer *l = &m->layers[m->nlayers - 1];
    double f = 4 * s * s * hd * heads * (causal ? 0.5 : 1);
    struct kernel *k = push_kernel(l->fwd, &l->nfwd, KC_ATTN);
    *k = (struct kernel){.cls = KC_ATTN, .m = s, .n = s, .k = hd, .g = heads, .flops = f};
    k = push_kernel(l->bwd, &l->nbwd, KC_ATTN);
    *k = (struct kernel){.cls = KC_ATTN, .m = s, .n = s, .k = hd, .g = heads, .flops = 2.5 * f,
                         .bwd = true};
}

void model_add_memk(struct model *m, enum kernel_class cls, double elems, double elem_B,
                    double fwd_passes, double bwd_passes)
{
    struct layer *l = &m->layers[m->nlayers - 1];
    if (fwd_passes > 0) push_kernel(l->fwd, &l->nfwd, cls)->bytes = elems * elem_B * fwd_passes;
    if (bwd_passes > 0) push_kernel(l->bwd, &l->nbwd, cls)->bytes = elems * elem_B * bwd_passes;
}

const char *kernel_class_name(enum kernel_class c)
{
    static const char *const names[KC_COUNT] = {"gemm",  "norm",  "act",  "softmax",
                                                "eltwise", "embed", "attn", "cast"};
    return c < KC_COUNT ? names[c] : "?";
}

void model_set_gemm(struct model *m, double gm, double gn, double gk)
{
    struct layer *l = &m->layers[m->nlayers - 1];
    l->gemm_m = gm;
    l->gemm_n = gn;
    l->gemm_k = gk;
}

double model_act_bytes(enum gpu_dtype dtype)
{
    return dtype == DTYPE_FP8 ? 2 : model_dtype_bytes(dtype);
}

double model_dtype_bytes(enum gpu_dtype dtype)
{
    switch (dtype) {
    case DTYPE_FP16:
    case DTYPE_BF16:
        return 2;
    case DTYPE_FP8:
        return 1;
    default:
        return 4;
    }
}

/* ---- convolutional nets ------------------------------------------------------------------- */

/* A feature map travelling through a net: channels and spatial size. */
struct fmap {
    int c, h, w;
};

struct builder {
    struct model *m;
    double elem_B;  /* bytes per activation element */
    bool transpose; /* tensor-core convolutions on NCHW tensors: transposed (enum conv_layout) */
    bool autocast;  /* 16-bit under autocast: FP32 ops among the 16-bit ones (fp32_op) */
    bool started;  /* a GEMM was added: later layers need their input gradient */
};

/* Memory passes (reads + writes of the elements) of the memory-bound kernels, forward and
 * backward, counted from what they compute:
 *   normalisation: statistics (1 read), then normalise (1 read, 1 write) = 3; backward: the two
 *     reductions over dy and dy*x (2 reads each), then dx (2 reads, 1 write) = 5... counted as 5
 *     reads/writes of the two inputs and the output gradient;
 *   ReLU / GELU: 1 read, 1 write; backward: dy and the saved input or mask read, dx written = 3;
 *   residual add: 2 reads, 1 write; its backward passes the gradient on (no kernel);
 *   dropout: 1 read, 1 write, 1 mask write = 3; backward: dy and mask read, dx written = 3;
 *   softmax: max and sum (1 read), exponentiate and normalise (1 read, 1 write) = 3; backward:
 *     dy and y read, dx written = 3;
 *   embedding: gather (1 read, 1 write) = 2; backward: scatter-add (1 read of dy, 1 read and
 *     1 write of the rows) = 3. */
#define NORM_PASSES 3, 5
#define ACT_PASSES  2, 3
#define ADD_PASSES  3, 0
#define RESID_PASSES 3, 3 /* a residual add; backward, autograd sums the two gradients of the
                             input the block forked (its shortcut and its branch): 2 reads, 1
                             write */
#define MUL_PASSES 3, 5   /* an elementwise product; backward, dy and both inputs read, both
                             gradients written */
#define DROP_PASSES 3, 3
#define SMAX_PASSES 3, 3
#define EMB_PASSES  2, 3

/* A memory-bound op that autocast runs in FP32 (PyTorch aten/src/ATen/autocast_mode.h,
 * AT_FORALL_FP32 and _SET_OPT_DTYPE: layer_norm, softmax, log_softmax, the losses): its 16-bit
 * input cast to FP32 (2 bytes read, 4 written an element), the op over 4-byte elements, and the
 * next GEMM's cast of its FP32 output back to 16-bit (4 read, 2 written); the backward mirrors
 * the casts. Without autocast (or not in 16-bit): the op alone, at the activations' size. */
static void fp32_op(struct builder *b, enum kernel_class cls, double elems, double fp, double bp)
{
    if (!b->autocast) {
        model_add_memk(b->m, cls, elems, b->elem_B, fp, bp);
        return;
    }
    model_add_memk(b->m, KC_CAST, elems, 6, 1, 1);
    model_add_memk(b->m, cls, elems, 4, fp, bp);
    model_add_memk(b->m, KC_CAST, elems, 6, 1, 1);
}

/* The layer's GEMM: its shape, and its two backward GEMMs (not the first layer's input
 * gradient). */
static void gemm(struct builder *b, double gm, double gn, double gk)
{
    model_set_gemm(b->m, gm, gn, gk);
    model_add_gemm(b->m, gm, gn, gk, !b->started);
    b->started = true;
}

/* cuDNN's tensor-core convolutions in 16-bit take input channels in multiples of 8 and pad the
 * others (NVIDIA, "Convolutional Layers User's Guide", channels: multiples of 8 for FP16): the
 * first convolution's 3 channels compute as 8. */
static void pad_channels(struct builder *b, int c_in, int taps)
{
    if (b->elem_B == 2 && c_in % 8 != 0) model_set_kpad(b->m, (c_in + 7) / 8 * 8.0 * taps);
}

/* NCHW on tensor cores: the forward transposes the convolution's input and output (a read and a
 * write each), the backward the output's gradient, the input's gradient and the input again for
 * the weight gradient (enum conv_layout). */
static void transposes(struct builder *b, struct fmap in, struct fmap out)
{
    if (!b->transpose) return;
    double ni = (double)in.c * in.h * in.w, no = (double)out.c * out.h * out.w;
    model_add_memk(b->m, KC_CAST, 1, 2 * (ni + no) * b->elem_B, 1, 0);
    model_add_memk(b->m, KC_CAST, 1, 2 * (no + 2 * ni) * b->elem_B, 0, 1);
}

static int conv_out(int in, int k, int stride, int pad)
{
    return (in + 2 * pad - k) / stride + 1;
}

/* Convolution (no bias) + batch norm (scale and shift: 2 parameters per channel) + ReLU unless
 * `noact`, as one layer. Returns the output map. */
static struct fmap conv_bn_act(struct builder *b, const char *name, struct fmap in, int c_out,
                               int kh, int kw, int stride, int ph, int pw, bool noact)
{
    struct fmap out = {c_out, conv_out(in.h, kh, stride, ph), conv_out(in.w, kw, stride, pw)};
    double weights = (double)kh * kw * in.c * c_out, elems = (double)c_out * out.h * out.w;
    double flops = 2.0 * weights * out.h * out.w;
    double act = 2.0 * elems * b->elem_B; /* conv output + normalised output */
    model_add(b->m, name, weights + 2.0 * c_out, flops, -1, act);
    gemm(b, c_out, (double)out.h * out.w, (double)in.c * kh * kw);
    pad_channels(b, in.c, kh * kw);
    if (kh == 3 && kw == 3 && stride == 1) model_set_winograd(b->m);
    transposes(b, in, out);
    model_add_memk(b->m, KC_NORM, elems, b->elem_B, NORM_PASSES);
    if (!noact) model_add_memk(b->m, KC_ACT, elems, b->elem_B, ACT_PASSES);
    return out;
}

/* Inception's BasicConv2d and ResNet's first convolutions: conv + BN + ReLU. */
static struct fmap conv_bn(struct builder *b, const char *name, struct fmap in, int c_out, int kh,
                           int kw, int stride, int ph, int pw)
{
    return conv_bn_act(b, name, in, c_out, kh, kw, stride, ph, pw, false);
}

/* Convolution with bias and no normalisation, then ReLU (VGG). */
static struct fmap conv_bias(struct builder *b, const char *name, struct fmap in, int c_out, int k,
                             int pad)
{
    struct fmap out = {c_out, conv_out(in.h, k, 1, pad), conv_out(in.w, k, 1, pad)};
    double weights = (double)k * k * in.c * c_out, elems = (double)c_out * out.h * out.w;
    model_add(b->m, name, weights + c_out, 2.0 * weights * out.h * out.w, -1, elems * b->elem_B);
    gemm(b, c_out, (double)out.h * out.w, (double)in.c * k * k);
    pad_channels(b, in.c, k * k);
    if (k == 3) model_set_winograd(b->m);
    transposes(b, in, out);
    model_add_memk(b->m, KC_ACT, elems, b->elem_B, ACT_PASSES);
    return out;
}

static void dense(struct builder *b, const char *name, double n_in, double n_out)
{
    model_add(b->m, name, n_in * n_out + n_out, 2.0 * n_in * n_out, -1, n_out * b->elem_B);
    gemm(b, n_out, 1, n_in);
}

/* Max pooling, as PyTorch's max_pool2d_with_indices runs it, on the last layer: forward reads the
 * input and writes the output and its argmax (int64, 8 bytes an element); backward zero-fills the
 * input's gradient, then reads the output's gradient and the indices and scatters. */
static struct fmap pool(struct builder *b, struct fmap in, int k, int stride, int pad)
{
    struct fmap out = {in.c, conv_out(in.h, k, stride, pad), conv_out(in.w, k, stride, pad)};
    double ni = (double)in.c * in.h * in.w, no = (double)out.c * out.h * out.w, e = b->elem_B;
    model_add_memk(b->m, KC_ELTWISE, 1, ni * e + no * (e + 8), 1, 0);
    model_add_memk(b->m, KC_ELTWISE, 1, ni * e + no * (e + 8) + no * e, 0, 1);
    return out;
}

/* ResNet v1.5 (torchvision resnet.py shapes: the stride sits on the 3x3 of a bottleneck). */
static void resnet(struct builder *b, const int blocks[4])
{
    char n[48];
    struct fmap x = {3, 224, 224};
    x = conv_bn(b, "conv1", x, 64, 7, 7, 2, 3, 3);
    x = pool(b, x, 3, 2, 1);
    int planes = 64;
    for (int s = 0; s < 4; s++, planes *= 2) {
        for (int i = 0; i < blocks[s]; i++) {
            int stride = (i == 0 && s > 0) ? 2 : 1;
            struct fmap in = x;
            snprintf(n, sizeof n, "layer%d.%d.conv1", s + 1, i);
            x = conv_bn(b, n, in, planes, 1, 1, 1, 0, 0);
            snprintf(n, sizeof n, "layer%d.%d.conv2", s + 1, i);
            x = conv_bn(b, n, x, planes, 3, 3, stride, 1, 1);
            if (i == 0) {
                snprintf(n, sizeof n, "layer%d.%d.downsample", s + 1, i);
                conv_bn_act(b, n, in, planes * 4, 1, 1, stride, 0, 0, true);
            }
            snprintf(n, sizeof n, "layer%d.%d.conv3", s + 1, i);
            x = conv_bn_act(b, n, x, planes * 4, 1, 1, 1, 0, 0, true);
            /* the block's output: residual add, then ReLU */
            double elems = (double)x.c * x.h * x.w;
            model_add_memk(b->m, KC_ELTWISE, elems, b->elem_B, RESID_PASSES);
            model_add_memk(b->m, KC_ACT, elems, b->elem_B, ACT_PASSES);
        }
    }
    dense(b, "fc", x.c, 1000);
}

/* VGG-16, configuration D (Simonyan & Zisserman 2015, Table 1; torchvision vgg16). */
static void vgg16(struct builder *b)
{
    static const int cfg[] = {64, 64,  0,   128, 128, 0,   256, 256, 256,
                              0,  512, 512, 512, 0,   512, 512, 512, 0};
    struct fmap x = {3, 224, 224};
    char n[48];
    int k = 0;
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        if (cfg[i] == 0) {
            x = pool(b, x, 2, 2, 0);
            continue;
        }
        snprintf(n, sizeof n, "conv%d", ++k);
        x = conv_bias(b, n, x, cfg[i], 3, 1);
    }
    dense(b, "fc6", (double)x.c * x.h * x.w, 4096);
    model_add_memk(b->m, KC_ACT, 4096, b->elem_B, ACT_PASSES);
    dense(b, "fc7", 4096, 4096);
    model_add_memk(b->m, KC_ACT, 4096, b->elem_B, ACT_PASSES);
    dense(b, "fc8", 4096, 1000);
}

/* Inception v3 (Szegedy et al. 2016; torchvision inception.py shapes), without the auxiliary
 * classifier. Every convolution is a BasicConv2d: conv without bias + batch norm. */
static struct fmap inc_a(struct builder *b, const char *p, struct fmap x, int pool_features)
{
    char n[64];
#define NAME(s) (snprintf(n, sizeof n, "%s.%s", p, s), n)
    struct fmap b1 = conv_bn(b, NAME("b1x1"), x, 64, 1, 1, 1, 0, 0);
    struct fmap b5 = conv_bn(b, NAME("b5x5_1"), x, 48, 1, 1, 1, 0, 0);
    b5 = conv_bn(b, NAME("b5x5_2"), b5, 64, 5, 5, 1, 2, 2);
    struct fmap b3 = conv_bn(b, NAME("b3x3dbl_1"), x, 64, 1, 1, 1, 0, 0);
    b3 = conv_bn(b, NAME("b3x3dbl_2"), b3, 96, 3, 3, 1, 1, 1);
    b3 = conv_bn(b, NAME("b3x3dbl_3"), b3, 96, 3, 3, 1, 1, 1);
    struct fmap bp = conv_bn(b, NAME("branch_pool"), x, pool_features, 1, 1, 1, 0, 0);
    return (struct fmap){b1.c + b5.c + b3.c + bp.c, b1.h, b1.w};
}

static struct fmap inc_b(struct builder *b, const char *p, struct fmap x)
{
    char n[64];
    struct fmap b3 = conv_bn(b, NAME("b3x3"), x, 384, 3, 3, 2, 0, 0);
    struct fmap bd = conv_bn(b, NAME("b3x3dbl_1"), x, 64, 1, 1, 1, 0, 0);
    bd = conv_bn(b, NAME("b3x3dbl_2"), bd, 96, 3, 3, 1, 1, 1);
    bd = conv_bn(b, NAME("b3x3dbl_3"), bd, 96, 3, 3, 2, 0, 0);
    return (struct fmap){b3.c + bd.c + x.c, b3.h, b3.w};
}

static struct fmap inc_c(struct builder *b, const char *p, struct fmap x, int c7)
{
    char n[64];
    struct fmap b1 = conv_bn(b, NAME("b1x1"), x, 192, 1, 1, 1, 0, 0);
    struct fmap b7 = conv_bn(b, NAME("b7x7_1"), x, c7, 1, 1, 1, 0, 0);
    b7 = conv_bn(b, NAME("b7x7_2"), b7, c7, 1, 7, 1, 0, 3);
    b7 = conv_bn(b, NAME("b7x7_3"), b7, 192, 7, 1, 1, 3, 0);
    struct fmap bd = conv_bn(b, NAME("b7x7dbl_1"), x, c7, 1, 1, 1, 0, 0);
    bd = conv_bn(b, NAME("b7x7dbl_2"), bd, c7, 7, 1, 1, 3, 0);
    bd = conv_bn(b, NAME("b7x7dbl_3"), bd, c7, 1, 7, 1, 0, 3);
    bd = conv_bn(b, NAME("b7x7dbl_4"), bd, c7, 7, 1, 1, 3, 0);
    bd = conv_bn(b, NAME("b7x7dbl_5"), bd, 192, 1, 7, 1, 0, 3);
    struct fmap bp = conv_bn(b, NAME("branch_pool"), x, 192, 1, 1, 1, 0, 0);
    return (struct fmap){b1.c + b7.c + bd.c + bp.c, b1.h, b1.w};
}

static struct fmap inc_d(struct builder *b, const char *p, struct fmap x)
{
    char n[64];
    struct fmap b3 = conv_bn(b, NAME("b3x3_1"), x, 192, 1, 1, 1, 0, 0);
    b3 = conv_bn(b, NAME("b3x3_2"), b3, 320, 3, 3, 2, 0, 0);
    struct fmap b7 = conv_bn(b, NAME("b7x7x3_1"), x, 192, 1, 1, 1, 0, 0);
    b7 = conv_bn(b, NAME("b7x7x3_2"), b7, 192, 1, 7, 1, 0, 3);
    b7 = conv_bn(b, NAME("b7x7x3_3"), b7, 192, 7, 1, 1, 3, 0);
    b7 = conv_bn(b, NAME("b7x7x3_4"), b7, 192, 3, 3, 2, 0, 0);
    return (struct fmap){b3.c + b7.c + x.c, b3.h, b3.w};
}

static struct fmap inc_e(struct builder *b, const char *p, struct fmap x)
{
    char n[64];
    struct fmap b1 = conv_bn(b, NAME("b1x1"), x, 320, 1, 1, 1, 0, 0);
    struct fmap b3 = conv_bn(b, NAME("b3x3_1"), x, 384, 1, 1, 1, 0, 0);
    struct fmap b3a = conv_bn(b, NAME("b3x3_2a"), b3, 384, 1, 3, 1, 0, 1);
    struct fmap b3b = conv_bn(b, NAME("b3x3_2b"), b3, 384, 3, 1, 1, 1, 0);
    struct fmap bd = conv_bn(b, NAME("b3x3dbl_1"), x, 448, 1, 1, 1, 0, 0);
    bd = conv_bn(b, NAME("b3x3dbl_2"), bd, 384, 3, 3, 1, 1, 1);
    struct fmap bda = conv_bn(b, NAME("b3x3dbl_3a"), bd, 384, 1, 3, 1, 0, 1);
    struct fmap bdb = conv_bn(b, NAME("b3x3dbl_3b"), bd, 384, 3, 1, 1, 1, 0);
    struct fmap bp = conv_bn(b, NAME("branch_pool"), x, 192, 1, 1, 1, 0, 0);
#undef NAME
    return (struct fmap){b1.c + b3a.c + b3b.c + bda.c + bdb.c + bp.c, b1.h, b1.w};
}

static void inception_v3(struct builder *b)
{
    struct fmap x = {3, 299, 299};
    x = conv_bn(b, "Conv2d_1a_3x3", x, 32, 3, 3, 2, 0, 0);
    x = conv_bn(b, "Conv2d_2a_3x3", x, 32, 3, 3, 1, 0, 0);
    x = conv_bn(b, "Conv2d_2b_3x3", x, 64, 3, 3, 1, 1, 1);
    x = pool(b, x, 3, 2, 0);
    x = conv_bn(b, "Conv2d_3b_1x1", x, 80, 1, 1, 1, 0, 0);
    x = conv_bn(b, "Conv2d_4a_3x3", x, 192, 3, 3, 1, 0, 0);
    x = pool(b, x, 3, 2, 0);
    x = inc_a(b, "Mixed_5b", x, 32);
    x = inc_a(b, "Mixed_5c", x, 64);
    x = inc_a(b, "Mixed_5d", x, 64);
    x = inc_b(b, "Mixed_6a", x);
    x = inc_c(b, "Mixed_6b", x, 128);
    x = inc_c(b, "Mixed_6c", x, 160);
    x = inc_c(b, "Mixed_6d", x, 160);
    x = inc_c(b, "Mixed_6e", x, 192);
    x = inc_d(b, "Mixed_7a", x);
    x = inc_e(b, "Mixed_7b", x);
    x = inc_e(b, "Mixed_7c", x);
    dense(b, "fc", x.c, 1000);
}

/* ---- transformers ------------------------------------------------------------------------- */

/* A transformer block as one tensor-parallel rank holds it (t = 1: the whole block). */
struct block_shape {
    double h, s, a;       /* hidden, tokens, attention heads */
    double kv;            /* key/value heads (grouped-query attention; a: multi-head) */
    double ffn;           /* MLP width */
    bool llama;           /* SwiGLU, RMSNorm, no biases (gpt_config.llama) */
    double experts, topk; /* MoE: MLPs, and those a token goes through (experts 0: dense) */
    double ep;            /* expert-parallel ranks: a rank holds experts / ep of them */
    double t;             /* tensor-parallel ranks */
    bool sp;              /* sequence parallelism */
    int attn;             /* enum attention_impl */
    bool causal;          /* a decoder's causal mask (GPT, Llama); BERT attends both ways */
};

static struct block_shape block_of(const struct gpt_config *g, double s)
{
    double t = g->tp > 1 ? g->tp : 1;
    return (struct block_shape){.h = g->hidden, .s = s, .a = g->heads,
                                .kv = g->kv_heads > 0 ? g->kv_heads : g->heads,
                                .ffn = g->ffn > 0 ? g->ffn : 4.0 * g->hidden, .llama = g->llama,
                                .experts = g->experts, .topk = g->experts > 0 ? g->topk : 1,
                                .ep = g->ep > 1 ? g->ep : 1, .t = t, .sp = g->sp && t > 1,
                                .attn = g->attention, .causal = true};
}

/* The weights of one rank's experts in a block. */
static double experts_of(const struct block_shape *z)
{
    return z->experts > 0 ? z->experts / z->ep * (z->llama ? 3 : 2) * z->h * z->ffn / z->t : 0;
}

double model_expert_params(const struct gpt_config *g)
{
    struct block_shape z = block_of(g, g->seq);
    return experts_of(&z);
}

/* Parameters of one rank's share of a block: attention QKV (h x (h + 2 kv h/a)) and output
 * (h x h), MLP (2 or, gated, 3 matrices of h x ffn, per expert), a router (h x experts,
 * replicated), biases (GPT) and two norms (LayerNorm 2h each, RMSNorm h). GPT's: 12h^2 + 13h. */
static double block_params(const struct block_shape *z)
{
    double h = z->h, qkv = h + 2 * z->kv * h / z->a, E = z->experts > 0 ? z->experts / z->ep : 1;
    double mats = z->llama ? 3 : 2;
    double w = (h * qkv + h * h) / z->t + (z->experts > 0 ? experts_of(z) + h * z->experts
                                                          : mats * h * z->ffn / z->t);
    double bias = z->llama ? 0 : qkv / z->t + h + E * (z->ffn / z->t + h);
    return w + bias + (z->llama ? 2 * h : 4 * h);
}

/* Activation bytes a rank keeps per sample of a block for its backward, at 16-bit: Korthikanti
 * et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models"), eq. 1
 * sbh(34 + 5as/h) on one GPU, eq. 2 sbh(10 + 24/t + 5as/(ht)) under tensor parallelism, eq. 4
 * sbh/t (34 + 5as/h) with sequence parallelism. Derived for GPT's block; taken for every one. The
 * 5as/h term is the a s^2 scores the materialised path keeps (softmax output 2, dropout mask 1,
 * dropout output 2 bytes each); FlashAttention keeps none of them, only the softmax's
 * logsumexp, 4 bytes (FP32) per query and head: + 4 a s / t. */
static double block_act_B(const struct block_shape *z, double elem_B)
{
    double sh = z->s * z->h, t = z->t, flash = z->attn == ATTN_FLASH;
    double att = flash ? 0 : 5 * z->a * z->s / z->h;
    double per = z->sp ? sh / t * (34 + att) : sh * (10 + 24 / t + att / t);
    return per * elem_B / 2 + (flash ? 4 * z->a * z->s / t : 0);
}

/* One block: attention (QKV and output projections, two norms) and an MLP (GELU of 4h for GPT,
 * SwiGLU for Llama; per token, topk of the experts' MLPs for a mixture), split over t ranks as
 * Megatron splits it (QKV and the MLP's first GEMMs by columns, the output projection and the
 * MLP's last by rows, heads a / t each). FLOPs per token: 2 x the GEMMs' weights plus 2 x 2 x s
 * x h / t for the attention scores and the weighted sum. */
static void transformer_block(struct builder *b, const char *name, const struct block_shape *z)
{
    double h = z->h, s = z->s, t = z->t, hd = h / z->a, qkv = h + 2 * z->kv * hd;
    double k = z->topk, mats = z->llama ? 3 : 2, at = z->a / t, e = b->elem_B;
    double gemm_w = h * qkv / t + h * h / t + k * mats * h * z->ffn / t +
                    (z->experts > 0 ? h * z->experts : 0);
    double fwd = s * (2 * gemm_w + 4 * s * h / t);
    model_add(b->m, name, block_params(z), fwd, -1, block_act_B(z, e));
    double sh = s * h, shn = z->sp ? sh / t : sh, scores = s * s * at, mlp = s * k * z->ffn / t;
    model_set_gemm(b->m, z->ffn / t, s * k, h); /* the MLP's first GEMM: the layer's shape */
    /* the kernels in the order they run: attention, then the MLP */
    fp32_op(b, KC_NORM, shn, NORM_PASSES);
    model_add_gemm(b->m, qkv / t, s, h, false); /* QKV projection (column-parallel) */
    if (z->attn == ATTN_FLASH) {
        model_add_flash(b->m, s, hd, at, z->causal); /* scores, softmax, dropout, sum: fused */
    } else {
        model_add_bgemm(b->m, s, s, hd, at); /* scores: a / t heads of s x s */
        fp32_op(b, KC_SOFTMAX, scores, SMAX_PASSES);
        if (!z->llama) model_add_memk(b->m, KC_ELTWISE, scores, e, DROP_PASSES);
        model_add_bgemm(b->m, s, hd, s, at); /* weighted sum of the values */
    }
    model_add_gemm(b->m, h, s, h / t, false); /* output projection (row-parallel) */
    if (!z->llama) model_add_memk(b->m, KC_ELTWISE, shn, e, DROP_PASSES); /* GPT's dropout */
    model_add_memk(b->m, KC_ELTWISE, shn, e, RESID_PASSES);
    fp32_op(b, KC_NORM, shn, NORM_PASSES);
    if (z->experts > 0) model_add_gemm(b->m, z->experts, s, h, false); /* the router */
    model_add_gemm(b->m, z->ffn / t, s * k, h, false); /* the MLP's first (column-parallel) */
    if (z->llama) model_add_gemm(b->m, z->ffn / t, s * k, h, false); /* SwiGLU's gate */
    model_add_memk(b->m, KC_ACT, mlp, e, ACT_PASSES);                   /* GELU, or SiLU */
    if (z->llama) model_add_memk(b->m, KC_ELTWISE, mlp, e, MUL_PASSES); /* SwiGLU's product */
    model_add_gemm(b->m, h, s * k, z->ffn / t, false); /* the MLP's last (row-parallel) */
    if (!z->llama) model_add_memk(b->m, KC_ELTWISE, shn, e, DROP_PASSES);
    model_add_memk(b->m, KC_ELTWISE, shn, e, RESID_PASSES);
}

void model_attention_core(const struct gpt_config *g, enum gpu_dtype dtype, struct model *m)
{
    struct builder b = {.m = m, .elem_B = model_act_bytes(dtype), .started = true};
    struct block_shape z = block_of(g, g->seq);
    double s = z.s, at = z.a / z.t, hd = z.h / z.a, scores = s * s * at;
    model_init(m, "attention-core");
    model_add(m, "attention-core", 0, s * 4 * s * z.h / z.t, -1, 0);
    model_set_gemm(m, s, s * at, hd);
    if (z.attn == ATTN_FLASH) {
        model_add_flash(m, s, hd, at, z.causal);
        return;
    }
    model_add_bgemm(m, s, s, hd, at); /* scores */
    model_add_bgemm(m, s, hd, s, at); /* weighted sum of the values */
    model_add_memk(m, KC_SOFTMAX, scores, b.elem_B, SMAX_PASSES);
    if (!z.llama) model_add_memk(m, KC_ELTWISE, scores, b.elem_B, DROP_PASSES);
}

struct gpt_config model_gpt_defaults(void)
{
    /* GPT-2 small (Radford et al. 2019; Hugging Face "gpt2" config) */
    return (struct gpt_config){
            .layers = 12, .hidden = 768, .heads = 12, .seq = 1024, .vocab = 50257};
}

/* The large transformers. GPT-3 175B: Brown et al. 2020, Table 2.1 (96 layers, d_model 12288,
 * 96 heads, context 2048, d_ff = 4 d_model; GPT-2's 50257-token vocabulary). Llama 3: Dubey et
 * al. 2024, "The Llama 3 Herd of Models", Table 3 (layers, model and FFN dimensions, heads, 8
 * key/value heads; 8192 tokens in pre-training), vocabulary 128256 (meta-llama/llama-models
 * sku_list.py). Mixtral 8x7B: Hugging Face transformers' MixtralConfig defaults
 * (mistralai/Mixtral-8x7B-v0.1: hidden 4096, intermediate 14336, 32 layers, 32 heads, 8 key/
 * value heads, 8 experts, 2 a token, vocabulary 32000), 4096 tokens. */
static const struct {
    const char *name;
    struct gpt_config g;
} large[] = {
        {"gpt3-175b", {.layers = 96, .hidden = 12288, .heads = 96, .seq = 2048, .vocab = 50257}},
        {"llama3-8b", {.layers = 32, .hidden = 4096, .heads = 32, .seq = 8192, .vocab = 128256,
                       .ffn = 14336, .kv_heads = 8, .llama = true}},
        {"llama3-70b", {.layers = 80, .hidden = 8192, .heads = 64, .seq = 8192, .vocab = 128256,
                        .ffn = 28672, .kv_heads = 8, .llama = true}},
        {"llama3-405b", {.layers = 126, .hidden = 16384, .heads = 128, .seq = 8192,
                         .vocab = 128256, .ffn = 53248, .kv_heads = 8, .llama = true}},
        {"mixtral-8x7b", {.layers = 32, .hidden = 4096, .heads = 32, .seq = 4096, .vocab = 32000,
                          .ffn = 14336, .kv_heads = 8, .llama = true, .experts = 8, .topk = 2}},
};

bool model_transformer_shape(const char *name, struct gpt_config *g)
{
    for (size_t i = 0; i < sizeof large / sizeof large[0]; i++)
        if (strcmp(name, large[i].name) == 0) {
            *g = large[i].g;
            return true;
        }
    if (strcmp(name, "gpt") == 0) {
        *g = model_gpt_defaults();
        return true;
    }
    if (strcmp(name, "bert-large") == 0) {
        *g = (struct gpt_config){.layers = 24, .hidden = 1024, .heads = 16, .seq = 512,
                                 .vocab = 30522};
        return true;
    }
    return false;
}

/* A decoder: token embeddings (+ learned positions, GPT), blocks, a final norm and the output
 * projection (GPT: tied to the embedding, no parameters of its own; Llama: its own), the
 * vocabulary split over the tensor-parallel ranks (Megatron's vocabulary-parallel embedding). */
static void decoder(struct builder *b, const struct gpt_config *g)
{
    double h = g->hidden, s = g->seq, t = g->tp > 1 ? g->tp : 1, v = g->vocab / t;
    struct block_shape z = block_of(g, s);
    char n[48];
    model_add(b->m, "embed", v * h + (g->llama ? 0 : s * h), 0, 0, s * h * b->elem_B);
    model_add_memk(b->m, KC_EMBED, (g->llama ? 1 : 2) * s * h, b->elem_B, EMB_PASSES);
    if (!g->llama) model_add_memk(b->m, KC_ELTWISE, s * h, b->elem_B, ADD_PASSES);
    b->started = true; /* the embeddings learn: every GEMM after them has its input gradient */
    for (int i = 0; i < g->layers; i++) {
        snprintf(n, sizeof n, "block%d", i);
        transformer_block(b, n, &z);
    }
    model_add(b->m, "ln_f+lm_head", (g->llama ? h + v * h : 2 * h), 2 * s * h * v, -1,
              s * v * b->elem_B);
    fp32_op(b, KC_NORM, s * h, NORM_PASSES);
    gemm(b, v, s, h);
    fp32_op(b, KC_SOFTMAX, s * v, SMAX_PASSES); /* the loss's softmax */
}

/* BERT-large (Devlin et al. 2019; Hugging Face BertModel shapes): 24 blocks of 1024, 16 heads,
 * vocabulary 30522, 512 positions, 2 token types, embedding layer norm, pooler; attention both
 * ways (no causal mask). Heads as benchmarked runs train them (Hugging Face BertForPreTraining,
 * BertForQuestionAnswering): pre-training, the masked-LM transform (dense h x h, GELU, layer
 * norm) and decoder (h x vocabulary, tied to the word embeddings, its own bias) over every token
 * with the loss's softmax, and next-sentence prediction (h x 2 on the pooled token); SQuAD, the
 * span classifier (h x 2 over every token). */
static void bert_heads(struct builder *b, int head, double s, double h)
{
    if (head == BERT_HEAD_PRETRAINING) {
        model_add(b->m, "cls.predictions", h * h + h + 2 * h + 30522, 2 * s * h * (h + 30522), -1,
                  s * (2 * h + 30522) * b->elem_B);
        gemm(b, h, s, h);
        model_add_memk(b->m, KC_ACT, s * h, b->elem_B, ACT_PASSES);
        fp32_op(b, KC_NORM, s * h, NORM_PASSES);
        model_add_gemm(b->m, 30522, s, h, false);
        fp32_op(b, KC_SOFTMAX, s * 30522, SMAX_PASSES);
        dense(b, "cls.seq_relationship", h, 2);
    } else if (head == BERT_HEAD_SQUAD) {
        model_add(b->m, "qa_outputs", 2 * h + 2, 2 * s * h * 2, -1, s * 2 * b->elem_B);
        gemm(b, 2, s, h);
    }
}

static void bert_large(struct builder *b, const struct gpt_config *cfg, int seq)
{
    double h = 1024, s = seq;
    struct gpt_config g;
    model_transformer_shape("bert-large", &g);
    g.tp = cfg ? cfg->tp : 1;
    g.attention = cfg ? cfg->attention : ATTN_FLASH;
    struct block_shape z = block_of(&g, s);
    z.causal = false;
    char n[48];
    model_add(b->m, "embeddings", 30522 * h + 512 * h + 2 * h + 2 * h, 0, 0, s * h * b->elem_B);
    model_add_memk(b->m, KC_EMBED, 3 * s * h, b->elem_B, EMB_PASSES); /* word, position, type */
    model_add_memk(b->m, KC_ELTWISE, 2 * s * h, b->elem_B, ADD_PASSES);
    fp32_op(b, KC_NORM, s * h, NORM_PASSES);
    b->started = true; /* the embeddings learn: every GEMM after them has its input gradient */
    for (int i = 0; i < 24; i++) {
        snprintf(n, sizeof n, "layer%d", i);
        transformer_block(b, n, &z);
    }
    dense(b, "pooler", h, h);
    bert_heads(b, cfg ? cfg->head : BERT_HEAD_NONE, s, h);
}

int model_preset(const char *name, const struct gpt_config *g, enum gpu_dtype dtype,
                 struct model *m)
{
    static const int r50[4] = {3, 4, 6, 3}, r101[4] = {3, 4, 23, 3}, r152[4] = {3, 8, 36, 3};
    struct gpt_config def = model_gpt_defaults();
    /* FP8 training keeps activations in BF16 (Transformer Engine casts GEMM inputs only) */
    int layout = g && g->layout != LAYOUT_AUTO ? g->layout
                 : model_dtype_bytes(dtype) < 4  ? LAYOUT_NHWC
                                                 : LAYOUT_NCHW;
    struct builder b = {.m = m, .elem_B = dtype == DTYPE_FP8 ? 2 : model_dtype_bytes(dtype),
                        .transpose = layout == LAYOUT_NCHW && dtype != DTYPE_FP32,
                        .autocast = g && g->autocast && model_dtype_bytes(dtype) == 2};
    model_init(m, name);
    if (strcmp(name, "resnet50") == 0)
        resnet(&b, r50);
    else if (strcmp(name, "resnet101") == 0)
        resnet(&b, r101);
    else if (strcmp(name, "resnet152") == 0) /* He et al. 2016, Table 1: 3, 8, 36, 3 blocks */
        resnet(&b, r152);
    else if (strcmp(name, "vgg16") == 0)
        vgg16(&b);
    else if (strcmp(name, "inception-v3") == 0)
        inception_v3(&b);
    else if (strcmp(name, "bert-large") == 0)
        bert_large(&b, g, g ? g->seq : 512);
    else if (strcmp(name, "gpt") == 0)
        decoder(&b, g ? g : &def);
    else if (model_transformer_shape(name, &def))
        decoder(&b, g ? g : &def);
    else
        return -1;
    return 0;
}

const char *model_preset_names(void)
{
    return "resnet50, resnet101, vgg16, inception-v3, bert-large, gpt, gpt3-175b, llama3-8b, "
           "llama3-70b, llama3-405b, mixtral-8x7b, resnet152, dlrm-dcnv2, two-tower";
}

#define SUM_FIELD(m, field) \
    double s = 0; \
    for (size_t i = 0; i < (m)->nlayers; i++) \
        s += (m)->layers[i].field; \
    return s

double model_params(const struct model *m)
{
    SUM_FIELD(m, params);
}

double model_fwd_flops(const struct model *m)
{
    SUM_FIELD(m, fwd_flops);
}

double model_bwd_flops(const struct model *m)
{
    SUM_FIELD(m, bwd_flops);
}

double model_act_B(const struct model *m)
{
    SUM_FIELD(m, act_B);
}

static bool is_mixed(enum gpu_dtype dtype)
{
    return model_dtype_bytes(dtype) < 4;
}

static double opt_state_B(enum optimizer opt)
{
    return opt == OPT_ADAM ? 8 : opt == OPT_MOMENTUM ? 4 : 0; /* FP32 moments */
}

double model_optimizer_bytes(enum gpu_dtype dtype, enum optimizer opt)
{
    return opt_state_B(opt) + (is_mixed(dtype) ? 4 : 0);
}

struct memory_need model_memory(const struct model *m, enum gpu_dtype dtype, enum optimizer opt,
                                double batch)
{
    return model_memory_placed(m, dtype, opt, batch, true, 0);
}

/* Elements of the rows a batch looks up (before deduplication), and of a cache of cache_rows rows
 * of each table, over every table: at most the table. */
static double batch_rows_elems(const struct model *m, double batch, double cache_rows)
{
    double e = 0;
    for (size_t t = 0; t < m->ntables; t++) {
        const struct emb_table *x = &m->tables[t];
        e += fmin(batch * x->pooling + cache_rows, x->rows) * x->dim;
    }
    return e;
}

struct memory_need model_memory_placed(const struct model *m, enum gpu_dtype dtype,
                                       enum optimizer opt, double batch, bool tables_on_gpu,
                                       double cache_rows)
{
    double tp = model_table_params(m), e = model_dtype_bytes(dtype);
    double st = opt_state_B(opt) + (is_mixed(dtype) ? 4 : 0);
    double p = model_params(m) - (tables_on_gpu ? 0 : tp);
    double rows = tables_on_gpu ? 0 : batch_rows_elems(m, batch, cache_rows);
    struct memory_need need;
    need.weights_B = (p + rows) * e;
    need.grads_B = (p + rows) * e;
    need.optimizer_B = p * st;
    need.act_B = model_act_B(m) * batch;
    need.total_B = need.weights_B + need.grads_B + need.optimizer_B + need.act_B;
    need.tables_B = tables_on_gpu ? tp * (2 * e + st) : rows * 2 * e;
    need.tables_on_gpu = tables_on_gpu;
    return need;
}

double model_update_bytes_per_param(enum gpu_dtype dtype, enum optimizer opt)
{
    /* read weight + gradient + state, write weight + state */
    double e = model_dtype_bytes(dtype), st = opt_state_B(opt) + (is_mixed(dtype) ? 4 : 0);
    return 2 * e + e + 2 * st;
}

const char *model_optimizer_name(enum optimizer opt)
{
    return opt == OPT_ADAM ? "adam" : opt == OPT_MOMENTUM ? "momentum" : "sgd";
}

int model_check_fit(const struct model *m, enum gpu_dtype dtype, enum optimizer opt, double batch,
                    const struct gpu_model *gpu, char *why, size_t len)
{
    return model_check_fit_placed(m, dtype, opt, batch, true, 0, gpu, why, len);
}

int model_check_fit_placed(const struct model *m, enum gpu_dtype dtype, enum optimizer opt,
                           double batch, bool tables_on_gpu, double cache_rows,
                           const struct gpu_model *gpu, char *why, size_t len)
{
    struct memory_need need =
            model_memory_placed(m, dtype, opt, batch, tables_on_gpu, cache_rows);
    if (need.total_B <= gpu->mem_B) return 0;
    int n = snprintf(why, len,
                     "%s (%.0f parameters, %s, %s) with batch %.0f needs %.2f GB per GPU (weights "
                     "%.2f + gradients %.2f + optimizer %.2f + activations %.2f GB); a %s has "
                     "%.2f GB",
                     m->name, model_params(m), catalog_dtype_name(dtype), model_optimizer_name(opt),
                     batch, need.total_B / 1e9, need.weights_B / 1e9, need.grads_B / 1e9,
                     need.optimizer_B / 1e9, need.act_B / 1e9, gpu->name, gpu->mem_B / 1e9);
    if (m->ntables > 0 && n > 0 && (size_t)n < len)
        snprintf(why + n, len - (size_t)n, "; of it, %s of %zu embedding table(s): %.2f GB",
                 tables_on_gpu ? "the whole" : "the rows a batch pulls and a cache keeps",
                 m->ntables, need.tables_B / 1e9);
    return -1;
}
