/* hybrid_input.h - the hybrid strategy's batches: which ranks read them, the input pipeline
 * (<data>) they wait for, and the corrupt batches and shards they skip.
 *
 * As Megatron-LM: each data-parallel replica d trains on batches of its own, a step's global
 * batch being dp x m microbatches of b samples (the <parallel microbatches> m, batch-per-gpu b;
 * megatron/legacy/data/data_samplers.py, MegatronPretrainingSampler: each step's global batch in
 * order, replica d taking samples [d b, (d + 1) b) of each dp b). The microbatch is read where
 * the model needs it: pretrain_gpt.py's get_batch returns nothing on the middle stages, and
 * get_batch_on_this_tp_rank (megatron/training/utils.py) has tensor rank 0 take the next batch
 * from the data iterator and broadcast it to its tensor group. Here the reader of replica d is
 * its first stage's tensor rank 0 (par_rank(p, 0, 0, d)), once per microbatch, before that
 * microbatch's forward of virtual stage 0; its wait shows in the step's input time. With an input
 * pipeline the stage's other tensor ranks wait for the reader's microbatch there too (the
 * broadcast's wait; its few bytes a token are left out), counted as input, not as tensor-parallel
 * time (the bubble, the pipeline phase neither computing nor in collectives, holds the waits).
 * With context parallelism the reader is context rank 0's, and the first stage's other context
 * ranks wait for it as its other tensor ranks do (the index t passed to hyin_before is
 * t + tp c). Megatron-LM has each context rank's tensor rank 0 take the same microbatch from
 * its own data iterator and keep its 2 of the 2 cp sequence chunks (megatron/training/utils.py,
 * get_batch_on_this_tp_rank, then get_batch_on_this_cp_rank): the same samples, so one read a
 * replica here, the other context ranks' reads left out as the labels' are.
 * The run's input fraction (run.h) counts each reader's wait for its replica's tp pp GPUs: the
 * pipeline it feeds waits with it. Left
 * out: the last stage's own read of the same batch for its labels (the labels are the tokens
 * shifted by one, so the same bytes again). Traced, a replica's waits for its batch are on its
 * reader's track and the pipeline's tracks follow the ranks' (loader_set_tracks).
 *
 * The input pipeline (loader.h) has one lane per replica, on its reader's GPU (and that GPU's
 * node's CPU, NVMe, PCIe): lane d's batch k is the replica's microbatch k = step m + mb, so the
 * samples go round the replicas as the sampler hands them out. The pipeline is the strategy's
 * own, handed to the run skeleton (runkit_input), since RUNKIT_INPUT feeds every worker.
 *
 * A replica's batch of a step is read once (the first of its ranks to need it reads it, at that
 * time): <corrupt-batch> on its reader's host at that step makes the whole batch corrupt (every
 * sample skipped, as worker.h's worker_read_batch does for a worker), and the samples of its
 * microbatches in corrupt shards are skipped (the pipeline's corrupt_in, at the microbatch's
 * data position). A microbatch's kernels on every rank of the replica scale with the samples it
 * trains on (none: no kernels), as the all-reduce's do; its messages and collectives run as
 * usual, so a skipped batch adds nothing to the reduced gradient (PyTorch's skip of a
 * non-finite loss) and the step goes on. Accounting counts the steps every rank finished only
 * (a failed step is lost work, its reads not counted): per step dp b m samples read, those
 * trained on consumed, the rest skipped; a rank's gradient computed and applied when its
 * replica trained on at least one sample.
 */
#ifndef DMLSIM_HYBRID_INPUT_H
#define DMLSIM_HYBRID_INPUT_H

#include "job.h"
#include "parallel.h"
#include "runkit.h"

struct hy_input {
    struct runkit *kit;
    const struct parallel_spec *p;
    int P, dp, m, b, steps;
    struct platform pf;   /* the job's, its first dp GPUs the readers (the pipeline's lanes) */
    sg_host_t *readers;   /* per replica: its reader's GPU host */
    int *reader_track;    /* per replica, with <data>: its reader's rank (its waits' trace track) */
    int *read_step;       /* per replica: the step whose batch it read (-1: none yet) */
    int *good;            /* per replica: the samples of that step's batch it trains on */
    int *good_done;       /* ... of the step every rank finished last (hyin_step_done) */
    int *mb_good;         /* per replica and microbatch (d m + mb): ... of that microbatch */
    double *wait;         /* per replica: its reader's wait for that step's microbatches */
    sg_sem_t *got;        /* per replica, with a pipeline and tp > 1: a microbatch the reader got,
                             released once per other tensor rank of the first stage */
    double *step_good;    /* per step: samples trained on, all replicas */
    double *step_skipped; /* per step: samples skipped (corrupt batches and shards) */
    double *step_ranks;   /* per step: ranks whose replica trained on some sample */
    double *step_input;   /* per step: the longest reader's wait */
};

/* What the strategy refuses with batches: a <corrupt-batch host> that reads none (not a first
 * stage's tensor rank 0). */
enum dmlsim_err hyin_check(const struct job *j, struct dmlsim_error *err);

/* Sets in up for kit's job (its <parallel> p), and the input pipeline when <data> is present. */
void hyin_open(struct hy_input *in, struct runkit *kit, const struct parallel_spec *p);

/* A restart's layout p of job j, resuming at step `from`: the replicas' readers and arrays anew,
 * the steps' figures before `from` kept. */
void hyin_relayout(struct hy_input *in, const struct job *j, const struct parallel_spec *p,
                   int from);

/* Rank (t, s, d) is about to run operation op of step `step`: reads replica d's batch of the
 * step if none of its ranks did, and, before a microbatch's forward of virtual stage 0, waits for
 * it: the reader from the pipeline, the stage's other tensor ranks for the reader. Sets *scale the
 * factor of the operation's kernels: the microbatch's samples trained on over b. Returns false
 * when the wait for the reader timed out (<training timeout>). */
bool hyin_before(struct hy_input *in, int t, int s, int d, int step, const struct pp_op *op,
                 double *scale);

/* The samples replica d trains on in the step its ranks are in (its batch read). */
int hyin_good(const struct hy_input *in, int d);

/* Every rank finished the step (the last to arrive calls it, before releasing the others, who
 * may read the next step's batches at once): the replicas' good samples kept in good_done. */
void hyin_step_done(struct hy_input *in);

/* The job failed: a reader waiting for a batch that cannot come goes on (loader_finish), and so
 * do the ranks waiting for a reader. */
void hyin_finish(struct hy_input *in);

/* Steps from `step` on will run again (a restart from a checkpoint): their reads are forgotten,
 * and each replica reads its batch again. */
void hyin_rewind(struct hy_input *in, int step);

/* The samples and gradients of the first `done` steps into rec, and the pipeline's report
 * (after rec->total_s is set). */
void hyin_account(const struct hy_input *in, struct run_record *rec, int done);

void hyin_release(struct hy_input *in);

#endif
