/* order.h - which sample of the dataset a worker's batch holds: the sampling order of the input
 * pipeline (<data shuffle>), shared by the loader (sizes, cache) and <numerics> (the examples it
 * trains on), so the pipeline's order is what is learnt. Plain data, deterministic from the seed.
 *
 * Worker r of P, at data position s, takes the slots g = (s P + r) b + j, j < b (every worker its
 * own slice of each step's global batch; an epoch is N slots). The sample in a slot:
 *   none    g mod N (the file's order);
 *   epoch   MosaicML MDS's epoch-consistent shuffle: pi_e(g mod N) with pi_e a permutation of the
 *           N samples drawn for epoch e = g / N (Fisher-Yates on SplitMix64 from the seed and e),
 *           so each epoch reads every sample once, and a run resumed at a position reads each
 *           sample of the epoch's remaining slots once (the order is a function of the position);
 *   buffer  WebDataset's shuffle buffer (webdataset/filters.py _shuffle): each worker's stream
 *           of slots, in order, goes through a buffer of K samples; an output is a uniformly
 *           drawn buffered sample, replaced by the stream's next. A sample leaves at most K - 1
 *           places away from where it came in: quality grows with K, and so does the memory,
 *           K samples a loader worker. */
#ifndef DMLSIM_ORDER_H
#define DMLSIM_ORDER_H

#include <stdint.h>

enum data_shuffle { SHUFFLE_NONE, SHUFFLE_EPOCH, SHUFFLE_BUFFER };

struct order_stream; /* a worker's shuffle buffer (order.c) */

struct order {
    enum data_shuffle kind;
    long long N;            /* samples */
    int P, b;               /* workers, batch */
    unsigned long seed;
    int K;                  /* buffer: samples in it */
    long long ring;         /* buffer: outputs remembered per worker */
    long long epoch[2];     /* epoch: the epochs whose permutations are kept, or -1 */
    long long *perm[2];     /* ... and those permutations (N each) */
    struct order_stream *streams; /* buffer: one per worker */
    double moved, outputs;  /* buffer: |output place - input place| summed, over outputs */
};

/* An order of kind for P workers of batch b over N samples (release with order_release). */
void order_init(struct order *o, enum data_shuffle kind, long long N, int P, int b,
                unsigned long seed, int K);
void order_release(struct order *o);

/* The sample in slot j of worker r's batch at data position s. */
long long order_sample(struct order *o, int r, long long s, int j);

/* SplitMix64 (Steele, Lea and Flood, OOPSLA 2014): the next 64 random bits of state *x, the
 * generator of every draw here (and of the loader's sample sizes). */
uint64_t order_splitmix(uint64_t *x);

#endif
