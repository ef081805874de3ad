/* scen_data.c - <data> (the input pipeline) and <numerics> (see scen_data.h). */
#include "scen_data.h"

#include "mem.h"
#include "scen_store.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* hidden="256,128": comma-separated unit counts ("" or absent: none). */
static enum dmlsim_err read_hidden(struct reader *r, xmlNodePtr n, struct numerics_spec *nm)
{
    char *h = attr_dup(n, "hidden");
    enum dmlsim_err rc = DMLSIM_OK;
    char *save = NULL;
    for (char *t = h ? strtok_r(h, ",", &save) : NULL; t && rc == DMLSIM_OK;
         t = strtok_r(NULL, ",", &save)) {
        long v;
        if (nm->nhidden == NUMERICS_MAX_HIDDEN || units_parse_long(t, 1, 100000, &v) != 0)
            rc = attr_fail(r, n,
                           "<numerics hidden=\"%s\">: expected up to %d comma-separated unit "
                           "counts of 1 to 100000, such as \"256,128\"",
                           t, NUMERICS_MAX_HIDDEN);
        else
            nm->hidden[nm->nhidden++] = (int)v;
    }
    free(h);
    return rc;
}

enum dmlsim_err scen_data_read_numerics(struct reader *r, xmlNodePtr n, struct numerics_spec *nm)
{
    enum dmlsim_err rc;
    long v;
    nm->present = true;
    nm->line = (int)attr_line(n);
    char *dir = attr_dup(n, "dir");
    if (dir == NULL && attr_get_is(n, "dataset", "idx")) {
        rc = attr_fail(r, n,
                       "<numerics dataset=\"idx\">: expected dir=\"FOLDER\" of its IDX files");
        goto out;
    }
    nm->dir = dir ? attr_path(r, dir) : mem_strdup(attr_spec_get("numerics", "dir")->def_text);
    free(dir);
    DMLSIM_CHECK_GOTO(rc, read_hidden(r, n, nm), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "lr", &nm->lr), out);
    nm->lr_linear = attr_get_is(n, "lr-scaling", "linear");
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "warmup", &v), out);
    nm->warmup = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "target-accuracy", &nm->target), out);
    if (nm->target > attr_get_max(n, "target-accuracy")) {
        rc = attr_fail(r, n, "<numerics target-accuracy=\"%g\">: expected a fraction in [0, 1]",
                       nm->target);
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "eval-every", &v), out);
    nm->eval_every = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "train-examples", &v), out);
    nm->train_n = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "test-examples", &v), out);
    nm->test_n = (int)v;
    nm->cost_model = attr_dup(n, "cost-model");
    struct model probe;
    if (nm->cost_model && model_preset(nm->cost_model, NULL, DTYPE_FP32, &probe) != 0) {
        rc = attr_fail(r, n, "<numerics cost-model=\"%s\">: unknown preset; expected one of: %s",
                       nm->cost_model, model_preset_names());
        goto out;
    }
    if (nm->cost_model) model_release(&probe);
out:
    return rc;
}

/* <data preset>: the dataset's defaults, or the sizes given (a sample of 1 B, free to decode). */
static enum dmlsim_err data_dataset(struct reader *r, xmlNodePtr n, struct data_spec *d)
{
    enum dmlsim_err rc = DMLSIM_OK;
    char *p = attr_dup(n, "preset");
    const struct dataset *ds = p ? catalog_dataset(p) : NULL;
    if (p && ds == NULL)
        rc = attr_fail(r, n, "<data preset=\"%s\">: unknown dataset; expected one of: %s", p,
                       catalog_dataset_names());
    free(p);
    if (rc != DMLSIM_OK) return rc;
    long v;
    DMLSIM_CHECK_GOTO(
            rc,
            attr_get_int_def(r, n, "samples",
                             ds ? (long)ds->samples : (long)attr_spec_get("data", "samples")->def,
                             &v),
            out);
    d->samples = (double)v;
    DMLSIM_CHECK_GOTO(
            rc,
            attr_get_quantity_def(r, n, "sample-size",
                                  ds ? ds->sample_B : attr_spec_get("data", "sample-size")->def,
                                  &d->sample_B),
            out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_get_quantity_def(r, n, "decoded-size", ds ? ds->decoded_B : d->sample_B,
                                            &d->decoded_B),
                      out);
    DMLSIM_CHECK_GOTO(
            rc,
            attr_get_quantity_def(r, n, "decode",
                                  ds ? ds->decode_s : attr_spec_get("data", "decode")->def,
                                  &d->decode_s),
            out);
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "sample-sigma", &d->sample_sigma), out);
    if (d->sample_sigma > attr_get_max(n, "sample-sigma"))
        rc = attr_fail(r, n,
                       "<data sample-sigma=\"%g\">: expected at most %g (the mean of the "
                       "largest of a batch's samples grows as e^(sigma^2))",
                       d->sample_sigma, attr_get_max(n, "sample-sigma"));
out:
    return rc;
}

static const char *const data_formats[] = {"idx", "webdataset", "mds", "parquet"};
static const char *const data_sources[] = {"local-nvme", "remote", "memory"};
static const char *const data_caches[] = {"none", "memory", "nvme"};
static const char *const data_shuffles[] = {"none", "epoch", "buffer"}; /* enum data_shuffle */

const char *scenario_data_format_name(enum data_format f)
{
    return data_formats[f];
}

const char *scenario_data_source_name(enum data_source s)
{
    return data_sources[s];
}

const char *scenario_data_cache_name(enum data_cache c)
{
    return data_caches[c];
}

/* <data cache>: a tier in front of the remote store, with its capacity. */
static enum dmlsim_err data_cache(struct reader *r, xmlNodePtr n, struct data_spec *d)
{
    enum dmlsim_err rc = DMLSIM_OK;
    d->cache = (enum data_cache)attr_get_choice(n, "cache", data_caches, ATTR_N_OF(data_caches));
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "cache-capacity", &d->cache_B), out);
    if (d->cache != CACHE_NONE && d->source != DATA_REMOTE)
        rc = attr_fail(r, n,
                       "<data cache=\"%s\">: a cache tier sits in front of the remote store; "
                       "expected source=\"remote\"",
                       data_caches[d->cache]);
    else if (d->cache != CACHE_NONE && d->cache_B <= 0)
        rc = attr_fail(r, n, "<data cache=\"%s\">: expected cache-capacity=\"SIZE\" > 0",
                       data_caches[d->cache]);
    else if (d->cache != CACHE_NONE && d->samples > DATA_CACHE_MAX_SAMPLES)
        rc = attr_fail(r, n,
                       "<data samples=\"%.0f\">: a cache tracks at most %.0f samples; expected "
                       "fewer samples, or no cache",
                       d->samples, (double)DATA_CACHE_MAX_SAMPLES);
out:
    return rc;
}

/* A shard's samples when its writer closes it at `limit` bytes, samples of S bytes each:
 * WebDataset's ShardWriter starts a new shard once the size reached maxsize (the sample that
 * crosses it stays: ceil), MosaicML's MDSWriter and parquet-mr's row groups before a sample
 * would pass the limit (floor); at least one. */
static double shard_of_bytes(enum data_format f, double limit, double S)
{
    double k = f == DATA_WEBDATASET ? ceil(limit / S) : floor(limit / S);
    return k < 1 ? 1 : k;
}

/* <data shard-samples | shard-bytes>: how the writer cut the dataset into shards (row groups). */
static enum dmlsim_err data_shards(struct reader *r, xmlNodePtr n, struct data_spec *d)
{
    enum dmlsim_err rc = DMLSIM_OK;
    long v;
    bool by_samples = xmlHasProp(n, (const xmlChar *)"shard-samples") != NULL;
    if (by_samples && xmlHasProp(n, (const xmlChar *)"shard-bytes"))
        return attr_fail(r, n,
                         "<data>: a shard is cut by samples or by bytes; expected one of "
                         "shard-samples and shard-bytes");
    /* MDS: MDSWriter's size_limit, 1 << 26 B (mosaicml/streaming, "Dataset Conversion Guide") */
    DMLSIM_CHECK_GOTO(rc,
                      attr_get_quantity_def(r, n, "shard-bytes",
                                            d->format == DATA_MDS && !by_samples ? 67108864.0 : 0,
                                            &d->shard_B),
                      out);
    /* webdataset: 5,000 samples a shard (the seed notes' SHARD_SIZE); parquet: pyarrow's row
     * group of 1 Mi rows (apache/arrow #34280) */
    DMLSIM_CHECK_GOTO(rc,
                      attr_get_int_def(r, n, "shard-samples",
                                       d->format == DATA_PARQUET
                                               ? 1L << 20
                                               : (long)attr_spec_get("data", "shard-samples")->def,
                                       &v),
                      out);
    d->shard_samples =
            d->shard_B > 0 ? shard_of_bytes(d->format, d->shard_B, d->sample_B) : (double)v;
    if (d->shard_B > 0 && d->format == DATA_IDX)
        rc = attr_fail(r, n,
                       "<data shard-bytes>: an IDX file is one file, not shards; expected "
                       "format=\"webdataset\", \"mds\" or \"parquet\"");
out:
    return rc;
}

/* <data store>: the store's kind is the source (a local drive: local-nvme, else remote); *st is
 * the store, or NULL. */
static enum dmlsim_err data_store(struct reader *r, xmlNodePtr n, const struct scenario *sc,
                                  struct data_spec *d, const struct store_spec **st)
{
    enum dmlsim_err rc = scen_store_ref(r, n, sc, "data", &d->store_id);
    *st = scenario_store(sc, d->store_id);
    if (rc != DMLSIM_OK || *st == NULL) return rc;
    enum data_source want = (*st)->kind == STORE_LOCAL ? DATA_LOCAL_NVME : DATA_REMOTE;
    if (xmlHasProp(n, (const xmlChar *)"source") && d->source != want)
        return attr_fail(r, n,
                         "<data store=\"%s\">: a store of kind %s and source=\"%s\"; expected "
                         "source=\"%s\" or none",
                         (*st)->name, storage_kind_name((*st)->kind),
                         scenario_data_source_name(d->source), scenario_data_source_name(want));
    d->source = want;
    return rc;
}

/* <data>: the format's access pattern, where it lives, and the loader. */
enum dmlsim_err scen_data_read(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct data_spec *d = &sc->train.data;
    enum dmlsim_err rc;
    long v;
    d->present = true;
    d->seed = sc->seed;
    d->line = (int)attr_line(n);
    DMLSIM_CHECK_GOTO(rc, data_dataset(r, n, d), out);
    d->format =
            (enum data_format)attr_get_choice(n, "format", data_formats, ATTR_N_OF(data_formats));
    d->source =
            (enum data_source)attr_get_choice(n, "source", data_sources, ATTR_N_OF(data_sources));
    DMLSIM_CHECK_GOTO(rc, data_shards(r, n, d), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "columns", &d->columns), out);
    if (d->columns > attr_get_max(n, "columns")) {
        rc = attr_fail(r, n,
                       "<data columns=\"%g\">: expected the selected columns' share of a "
                       "row's bytes, in (0, 1]",
                       d->columns);
        goto out;
    }
    const struct store_spec *st;
    DMLSIM_CHECK_GOTO(rc, data_store(r, n, sc, d, &st), out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_get_quantity_def(r, n, "request-latency",
                                            st                             ? st->p.latency_s
                                            : d->source == DATA_REMOTE     ? CATALOG_OBJECT_REQUEST_S
                                            : d->source == DATA_LOCAL_NVME ? CATALOG_NVME_REQUEST_S
                                                                           : 0,
                                            &d->request_s),
                      out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_get_quantity_def(r, n, "connection-rate",
                                            st ? st->p.conn_Bps : CATALOG_OBJECT_CONN_BPS,
                                            &d->conn_Bps),
                      out);
    DMLSIM_CHECK_GOTO(rc, data_cache(r, n, d), out);
    d->shuffle = attr_get_choice(n, "shuffle", data_shuffles, ATTR_N_OF(data_shuffles));
    d->by_class = attr_get_is(n, "layout", "by-class");
    /* WebDataset's default buffer: _shuffle(data, bufsize=1000, ...), webdataset/filters.py */
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "shuffle-buffer", &v), out);
    d->shuffle_buffer = (int)v;
    /* PyTorch's DataLoader defaults: num_workers 0 (in the training loop), prefetch_factor 2 */
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "loader-workers", &v), out);
    d->workers = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "prefetch", &v), out);
    d->prefetch = (int)v;
    d->pinned = attr_get_is(n, "pin-memory", "yes");
    d->gds = attr_get_is(n, "gds", "yes");
    if (d->gds && (d->source != DATA_LOCAL_NVME || d->decode_s > 0))
        rc = attr_fail(r, n,
                       "<data gds=\"yes\">: GPUDirect Storage reads a node's NVMe into GPU "
                       "memory, where no CPU decodes; expected source=\"local-nvme\" and "
                       "decode=\"0s\" (stored tensors)");
out:
    return rc;
}
