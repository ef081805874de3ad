/* hybrid_input.c - the hybrid strategy's batches (see hybrid_input.h). */
#include "hybrid_input.h"

#include "inject.h"
#include "loader.h"

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reader of replica d: its first stage's tensor rank 0 (of context rank 0). */
static int reader_rank(const struct parallel_spec *p, int d)
{
    return par_rank(p, 0, 0, d);
}

/* The per-replica arrays of layout p of job j (in->dp, in->m set): each replica's reader, no
 * batch read yet. */
static void replicas_new(struct hy_input *in, const struct job *j, const struct parallel_spec *p)
{
    in->readers = xbt_new(sg_host_t, in->dp);
    in->read_step = xbt_new(int, in->dp);
    in->good = xbt_new0(int, in->dp);
    in->good_done = xbt_new0(int, in->dp);
    in->mb_good = xbt_new0(int, in->dp * in->m);
    in->wait = xbt_new0(double, in->dp);
    in->got = xbt_new0(sg_sem_t, in->dp);
    for (int d = 0; d < in->dp; d++) {
        in->readers[d] = j->pf->gpus[reader_rank(p, d)];
        in->read_step[d] = -1;
    }
}

/* A <corrupt-batch host> on a GPU that reads no batch: into why. */
static bool corrupt_host_reads(const struct job *j, const char *host, char *why, size_t len)
{
    const struct parallel_spec *p = &j->sc->train.par;
    int k = 0, t, c, s, d;
    while (k < job_workers(j) && strcmp(sg_host_get_name(j->pf->gpus[k]), host) != 0)
        k++;
    if (k == job_workers(j)) return true; /* no worker there: the plan's own check says so */
    par_coords_cp(p, k, &t, &c, &s, &d);
    if (t == 0 && c == 0 && s == 0) return true;
    snprintf(why, len,
             "<corrupt-batch host=\"%s\">: it is rank %d (tensor rank %d of stage %d, replica %d), "
             "which reads no batch under strategy=\"hybrid\"; expected the host of a first "
             "stage's tensor rank 0, which reads its replica's batches (replica %d: %s)",
             host, k, t, s, d, d, sg_host_get_name(j->pf->gpus[reader_rank(p, d)]));
    return false;
}

enum dmlsim_err hyin_check(const struct job *j, struct dmlsim_error *err)
{
    const struct scenario *sc = j->sc;
    char why[384];
    for (size_t i = 0; i < sc->nfaults; i++) {
        const struct fault_spec *f = &sc->faults[i];
        if (f->kind == FS_CORRUPT && f->probability <= 0 &&
            !corrupt_host_reads(j, f->host, why, sizeof why))
            return dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: %s", sc->path, f->line, why);
    }
    return DMLSIM_OK;
}

void hyin_open(struct hy_input *in, struct runkit *kit, const struct parallel_spec *p)
{
    const struct job *j = kit->j;
    const struct train_spec *ts = &j->sc->train;
    *in = (struct hy_input){.kit = kit,
                            .p = p,
                            .P = job_workers(j),
                            .dp = p->dp,
                            .m = p->microbatches,
                            .b = ts->batch,
                            .steps = ts->steps};
    replicas_new(in, j, p);
    double **per_step[] = {&in->step_good, &in->step_skipped, &in->step_ranks, &in->step_input};
    for (size_t i = 0; i < sizeof per_step / sizeof per_step[0]; i++)
        *per_step[i] = xbt_new0(double, in->steps > 0 ? in->steps : 1);
    if (!ts->data.present) return;
    in->pf = *j->pf; /* the loader's lane d feeds the platform's GPU d: replica d's reader */
    in->pf.gpus = in->readers;
    in->pf.ngpus = (size_t)in->dp;
    for (int d = 0; d < in->dp && p->tp * par_cp(p) > 1; d++)
        in->got[d] = sg_sem_init(0);
    long long N = j->nm ? j->nm->train.n : (long long)ts->data.samples; /* as runkit_open's */
    struct loader *l =
            loader_new(&ts->data, j->plan, &in->pf, in->dp, in->b, N, kit->rec, kit->traffic);
    loader_set_store(l, scenario_store(j->sc, ts->data.store_id));
    /* traced: a replica's waits on its reader's track, the lanes' tracks after the P ranks' */
    in->reader_track = xbt_new(int, in->dp);
    for (int d = 0; d < in->dp; d++)
        in->reader_track[d] = reader_rank(p, d);
    loader_set_tracks(l, in->P, in->reader_track, "replica");
    runkit_input(kit, l);
}

/* A restart's layout p of job j (hybrid_recover.h): the replicas' readers and arrays anew, the
 * steps' figures before `from` kept (the steps from it on run again). No input pipeline:
 * <data> with <recovery> is refused (hyrec_check). */
void hyin_relayout(struct hy_input *in, const struct job *j, const struct parallel_spec *p,
                   int from)
{
    assert(in->kit->loader == NULL);
    free(in->readers);
    free(in->read_step);
    free(in->good);
    free(in->good_done);
    free(in->mb_good);
    free(in->wait);
    free(in->got);
    in->p = p;
    in->P = job_workers(j);
    in->dp = p->dp;
    in->m = p->microbatches;
    replicas_new(in, j, p);
    hyin_rewind(in, from);
}

/* Replica d reads its batch of `step`: the plan's corrupt batch on its reader's host, else the
 * samples of each microbatch in corrupt shards (the pipeline's hook), skipped. */
static void read_batch(struct hy_input *in, int d, int step)
{
    struct run_record *rec = in->kit->rec;
    const struct input_hook *h = &in->kit->input;
    bool corrupt = inject_corrupt(&in->kit->inj, in->readers[d], step);
    if (corrupt)
        run_event_add(rec, simgrid_get_clock(), RUN_FAULT, step, in->P,
                      "corrupt batch skipped: %s step %d", sg_host_get_name(in->readers[d]), step);
    in->good[d] = 0;
    for (int mb = 0; mb < in->m; mb++) {
        int bad = corrupt      ? in->b
                  : h->corrupt ? h->corrupt(h->ctx, d, step * in->m + mb, in->P)
                               : 0;
        in->mb_good[d * in->m + mb] = in->b - bad;
        in->good[d] += in->b - bad;
    }
    in->read_step[d] = step;
    in->wait[d] = 0;
    in->step_good[step] += in->good[d];
    in->step_skipped[step] += in->m * in->b - in->good[d];
    if (in->good[d] > 0) in->step_ranks[step] += in->P / in->dp;
}

/* The reader of replica d takes microbatch mb of `step` from the pipeline and hands it on. */
static void reader_wait(struct hy_input *in, int d, int step, int mb)
{
    double t0 = simgrid_get_clock();
    worker_before_forward(&in->kit->input, d, step * in->m + mb);
    in->wait[d] += simgrid_get_clock() - t0;
    if (in->wait[d] > in->step_input[step]) in->step_input[step] = in->wait[d];
    for (int t = 1; in->got[d] && t < in->p->tp * par_cp(in->p); t++)
        sg_sem_release(in->got[d]);
}

bool hyin_before(struct hy_input *in, int t, int s, int d, int step, const struct pp_op *op,
                 double *scale)
{
    if (in->read_step[d] != step) read_batch(in, d, step);
    *scale = (double)in->mb_good[d * in->m + op->mb] / in->b;
    if (s != 0 || op->chunk != 0 || op->backward || in->kit->loader == NULL) return true;
    if (t == 0) {
        reader_wait(in, d, step, op->mb);
        return true;
    }
    /* the broadcast from the reader */
    return sg_sem_acquire_timeout(in->got[d], in->kit->j->sc->train.timeout_s) == 0;
}

int hyin_good(const struct hy_input *in, int d)
{
    return in->good[d];
}

void hyin_step_done(struct hy_input *in)
{
    memcpy(in->good_done, in->good, (size_t)in->dp * sizeof *in->good);
}

void hyin_finish(struct hy_input *in)
{
    if (in->kit->loader) loader_finish(in->kit->loader);
    for (int d = 0; d < in->dp; d++) /* every wait of the step's microbatches ends */
        for (int k = 0; in->got[d] && k < in->p->tp * par_cp(in->p) * in->m; k++)
            sg_sem_release(in->got[d]);
}

void hyin_rewind(struct hy_input *in, int step)
{
    for (int d = 0; d < in->dp; d++)
        if (in->read_step[d] >= step) in->read_step[d] = -1;
    for (int s = step; s < in->steps; s++)
        in->step_good[s] = in->step_skipped[s] = in->step_ranks[s] = in->step_input[s] = 0;
}

void hyin_account(const struct hy_input *in, struct run_record *rec, int done)
{
    for (int s = 0; s < done; s++) {
        rec->read_samples += (double)in->dp * in->m * in->b;
        rec->consumed_samples += in->step_good[s];
        rec->skipped_samples += in->step_skipped[s];
        rec->computed += in->step_ranks[s];
        rec->applied += in->step_ranks[s];
    }
    if (in->kit->loader == NULL) return;
    loader_report(in->kit->loader, rec);
    /* a reader's wait holds up its replica's pipeline: its tp pp GPUs wait for input with it */
    rec->input_wait_run_s *= (double)in->P / in->dp;
}

void hyin_release(struct hy_input *in)
{
    double *per_step[] = {in->step_good, in->step_skipped, in->step_ranks, in->step_input};
    for (size_t i = 0; i < sizeof per_step / sizeof per_step[0]; i++)
        free(per_step[i]);
    free(in->readers);
    free(in->reader_track);
    free(in->read_step);
    free(in->good);
    free(in->good_done);
    free(in->mb_good);
    free(in->wait);
    for (int d = 0; d < in->dp; d++)
        if (in->got[d]) sg_sem_destroy(in->got[d]);
    free(in->got);
}
