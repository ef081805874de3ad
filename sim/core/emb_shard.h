/* emb_shard.h - embedding tables sharded over data-parallel GPUs: the DLRM / TorchRec layout's
 * placement, memory and all-to-all bytes (the all-reduce strategy's embeddings="sharded").
 *
 * DLRM runs its embedding tables model-parallel and its MLPs data-parallel (Naumov et al. 2019,
 * "Deep Learning Recommendation Model for Personalization and Recommendation Systems",
 * arXiv:1906.00091, section "Parallelism" and its butterfly-shuffle figure: each device holds
 * whole tables, and a personalized all-to-all turns the owners' lookups for the global minibatch
 * into each device's slice of it; the dense gradients are all-reduced). Neo (Mudigere et al.,
 * ISCA'22, "Software-Hardware Co-design for Fast and Scalable Training of Deep Learning
 * Recommendation Models") shards tables table-wise, row-wise and column-wise next to data
 * parallelism ("4D parallelism") and fuses the embeddings' backward with their optimizer (hybrid
 * kernel fusion, FBGEMM's table-batched embeddings: no table gradient is materialised, only the
 * looked-up rows are updated; row-wise Adagrad keeps one FP32 state a row: TorchRec's
 * torchrec/optim/rowwise_adagrad.py, "state for an embedding row, rather than every single
 * parameter"). TorchRec is the open implementation (docs: "TorchRec Concepts", sharding types;
 * torchrec.distributed.sharding: each sharding's create_input_dist / create_lookup /
 * create_output_dist). Table-wise (tw_sharding.py), input_dist is an all-to-all of the IDs
 * (TwSparseFeaturesDist: KJTAllToAll, split by features per rank) and output_dist an all-to-all of
 * the pooled embeddings (TwPooledEmbeddingDist: PooledEmbeddingsAllToAll, split by
 * dim_sum_per_rank), whose backward is the all-to-all of their gradients. Row-wise
 * (rw_sharding.py), a table is split into one block of rows per rank of the world, the IDs
 * bucketised to their blocks before the all-to-all, and the shards' partial bags reduce-scattered
 * (RwPooledEmbeddingDist): each shard sends b x dim of partial sums to every other rank, as here.
 *
 * The placement here is TorchRec's greedy planner reduced to memory: a table whose weights and
 * optimizer state exceed a GPU's room (its memory less the dense replica's) is split by rows over
 * all P GPUs; the others go whole, largest first, each to the GPU that holds the fewest bytes so
 * far (ties: the lowest rank). A row-wise shard is looked up by a 1/P share of the table's IDs
 * (uniform IDs over equal blocks: Zipf's hot rows would load the first block more; not modelled).
 * Weights are in the training dtype (FBGEMM's FP32 or FP16 weights, no FP32 master copy: its FP16
 * update rounds stochastically); the optimizer state is row-wise Adagrad's 4 B a row unless the
 * scenario's optimizer is plain SGD (none). Not modelled: TorchRec's planner balances its
 * estimated lookup and communication costs as well as memory (on DLRM-DCNv2 over 8 GPUs the
 * memory-only greedy puts the 19 smallest tables on one GPU, whose pooled all-to-all then sends
 * about 6 x the mean); column-wise and data-parallel (replicated small) tables; MLPerf's
 * reference optimizer for the tables, FBGEMM's EXACT_ADAGRAD (a state per element, not per row).
 */
#ifndef DMLSIM_EMB_SHARD_H
#define DMLSIM_EMB_SHARD_H

#include "catalog.h"
#include "model.h"

#include <stdio.h>

/* Where the tables of a model are on P GPUs, and what each GPU holds and exchanges. */
struct emb_plan {
    int P;            /* GPUs */
    size_t ntables;   /* the model's tables */
    int *owner;       /* per table: the GPU holding it whole, or -1: split by rows over all */
    double *gpu_B;    /* per GPU: bytes of table weights and optimizer state it holds */
    double *gpu_pool; /* per GPU: IDs a sample sends it (its whole tables' pooling, plus 1/P of
                         each row-wise table's) */
    double *gpu_dim;  /* per GPU: elements of the pooled vectors it produces per sample of
                         another GPU's batch (its whole tables' dims, plus each row-wise table's
                         dim: a partial bag) */
    double room_B;    /* a GPU's memory less the dense replica's: room for tables */
    double dense_B;   /* the dense replica's memory per GPU (model_memory of the dense view) */
};

/* Bytes one table takes on the GPUs that hold it: weights and row-wise optimizer state. */
double emb_table_bytes(const struct emb_table *t, enum gpu_dtype dtype, enum optimizer opt);

/* The model without its tables: each table's layer kept (its name, no parameters, no kernels,
 * no activations), every other layer as is; a new model (model_release). */
void emb_dense_view(const struct model *m, struct model *dm);

/* Places m's tables on P GPUs of mem_B bytes each for training in dtype with opt and batch
 * samples a GPU (release with emb_plan_release). */
void emb_plan_build(const struct model *m, int P, enum gpu_dtype dtype, enum optimizer opt,
                    double batch, double mem_B, struct emb_plan *p);
void emb_plan_release(struct emb_plan *p);

/* The memory of GPU g: the dense replica, its tables' weights (in weights_B) and row state (in
 * optimizer_B), and the all-to-all buffers of its lookups for the global batch (in act_B);
 * tables_B is its tables' part. */
struct memory_need emb_plan_memory(const struct model *m, const struct emb_plan *p,
                                   enum gpu_dtype dtype, enum optimizer opt, double batch, int g);

/* The GPU that needs the most memory (the lowest of equals). */
int emb_plan_worst(const struct model *m, const struct emb_plan *p, enum gpu_dtype dtype,
                   enum optimizer opt, double batch);

/* Bytes GPU i sends GPU j (i != j) per step, each GPU with `batch` samples: the IDs (8 B each,
 * int64 as TorchRec's KeyedJaggedTensor), and the pooled embeddings of elem_B bytes an element
 * (the forward's output all-to-all; its backward sends as many from j to i). */
double emb_plan_ids_B(const struct emb_plan *p, int i, int j, double batch);
double emb_plan_pooled_B(const struct emb_plan *p, int i, int j, double batch, double elem_B);

/* The tables GPU g holds as a model of their lookups for training in dtype with opt: one layer a
 * table (a row-wise shard: its rows / P, pooling / P), each with FBGEMM's fused backward and
 * optimizer (the scatter of model_add_table plus the looked-up rows' state read and written);
 * a new model (model_release), with no layer if g holds no table. */
void emb_plan_gpu_model(const struct model *m, const struct emb_plan *p, int g,
                        enum gpu_dtype dtype, enum optimizer opt, struct model *out);

/* 0 if every GPU's memory fits mem_B; else -1 and, in why, the GPU that needs the most, what it
 * holds and how much it lacks. */
int emb_plan_check(const struct model *m, const struct emb_plan *p, enum gpu_dtype dtype,
                   enum optimizer opt, double batch, double mem_B, const char *gpu_name, char *why,
                   size_t len);

/* The "# tables" and "# memory/gpu" lines of a sharded run: where each table is, each GPU's
 * bytes (its memory line for the GPU that needs the most). */
void emb_plan_print(FILE *out, const struct model *m, const struct emb_plan *p,
                    enum gpu_dtype dtype, enum optimizer opt, double batch);

#endif
