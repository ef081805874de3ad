/* scen_fault.c - <checkpoint>, <recovery>, the <faults> children and <expect> (scen_fault.h). */
#include "scen_fault.h"

#include "mem.h"
#include "scen_store.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A time attribute that may be absent (its row's default, -1), or that this element does not
 * have (the common attributes of scen_fault_read; the DTD admits no value then). */
static enum dmlsim_err opt_time(struct reader *r, xmlNodePtr n, const char *name, double *out)
{
    *out = -1;
    if (attr_spec_find((const char *)n->name, name) == NULL) return DMLSIM_OK;
    return attr_get_quantity(r, n, name, out);
}

enum dmlsim_err scen_fault_read_checkpoint(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct checkpoint_spec *c = &sc->ckpt;
    enum dmlsim_err rc = DMLSIM_OK;
    c->present = true;
    c->line = (int)attr_line(n);
    char *every = attr_dup(n, "every"), *num_end = NULL;
    long steps = strtol(every, &num_end, 10);
    while (num_end && *num_end == ' ')
        num_end++;
    if (num_end && num_end != every && strcmp(num_end, "steps") == 0 && steps >= 1) {
        c->every_steps = (int)steps;
    } else if (units_parse(every, UNIT_TIME, UNIT_POSITIVE, &c->every_s) != UNIT_OK) {
        rc = attr_fail(r, n, "<checkpoint every=\"%s\">: expected \"N steps\" with N >= 1 or %s",
                       every, units_expected(UNIT_TIME));
    }
    free(every);
    char *a = attr_dup(n, "mode");
    c->async = a && strcmp(a, "async") == 0;
    free(a);
    a = attr_dup(n, "target");
    c->target = !a || strcmp(a, "remote") == 0 ? CKPT_REMOTE
                : strcmp(a, "cache") == 0      ? CKPT_CACHE
                                               : CKPT_LOCAL_NVME;
    if (rc == DMLSIM_OK) rc = scen_store_ref(r, n, sc, "checkpoint", &c->store_id);
    const struct store_spec *st = scenario_store(sc, c->store_id);
    if (rc == DMLSIM_OK && st && a == NULL && st->kind == STORE_LOCAL)
        c->target = CKPT_LOCAL_NVME; /* a local store's checkpoints go to the node's drive */
    if (rc == DMLSIM_OK && st && (st->kind == STORE_LOCAL) != (c->target == CKPT_LOCAL_NVME))
        rc = attr_fail(
                r, n,
                "<checkpoint store=\"%s\">: a store of kind %s and target=\"%s\"; expected %s",
                st->name, storage_kind_name(st->kind), a ? a : "remote",
                st->kind == STORE_LOCAL ? "target=\"local-nvme\""
                                        : "target=\"remote\" or \"cache\"");
    free(a);
    return rc;
}

enum dmlsim_err scen_fault_read_recovery(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct recovery_spec *rs = &sc->rec;
    enum dmlsim_err rc;
    long v;
    rs->line = (int)attr_line(n);
    rs->elastic = attr_get_is(n, "policy", "elastic");
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "rendezvous-timeout", &rs->rendezvous_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "replacement-timeout", &rs->replacement_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "straggler-threshold", &rs->straggler_threshold),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "straggler-steps", &v), out);
    rs->straggler_steps = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "max-restarts", &v), out);
    rs->max_restarts = (int)v;
    rs->from_survivor = attr_get_is(n, "restore-from", "survivor");
    rs->skip_lost = attr_get_is(n, "lost-batches", "skip");
    rs->per_side = attr_get_is(n, "rendezvous", "per-side");
    rs->present = true;
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "restart-time", &rs->restart_s), out);
    if (rs->restart_s > MAX_RESTART_S)
        rc = attr_fail(r, n, "<recovery restart-time=\"%gs\">: expected at most %gs (an hour)",
                       rs->restart_s, MAX_RESTART_S);
out:
    return rc;
}

static enum dmlsim_err read_straggler(struct reader *r, xmlNodePtr n, struct scenario *sc,
                                      struct fault_spec *f)
{
    (void)sc;
    enum dmlsim_err rc;
    double until = -1, from = -1;
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "sigma", &f->sigma), out);
    if (xmlHasProp(n, (const xmlChar *)"jitter")) {
        /* sigma 4: the mean slow-down factor is already e^8 ~ 3000 (jitter's mean, README) */
        if (f->sigma <= 0 || f->sigma > attr_get_max(n, "sigma"))
            return attr_fail(r, n,
                             "<straggler jitter=\"lognormal\" sigma=\"%g\">: expected sigma in "
                             "(0, %g]",
                             f->sigma, attr_get_max(n, "sigma"));
        return DMLSIM_OK;
    }
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "factor", &f->factor), out);
    if (f->host == NULL || f->factor <= 1)
        return attr_fail(r, n,
                         "<straggler>: expected host=\"...\" and factor > 1, or "
                         "jitter=\"lognormal\" sigma=\"...\"");
    DMLSIM_CHECK_GOTO(rc, opt_time(r, n, "from", &from), out);
    DMLSIM_CHECK_GOTO(rc, opt_time(r, n, "until", &until), out);
    f->at_s = from < 0 ? 0 : from;
    if (until >= 0 && until <= f->at_s)
        return attr_fail(r, n, "<straggler until=\"...\">: expected until after from");
    f->for_s = until < 0 ? -1 : until - f->at_s;
out:
    return rc;
}

/* The generic reader (faultkind.h's READ `window`): a window from at="TIME" for for="TIME"
 * (absent: to the end) on host="NAME" (a host, or a node's hosts), link="NAME" or node="NAME"
 * (its NIC links), exactly one of them; the common attributes were read. */
static enum dmlsim_err read_window(struct reader *r, xmlNodePtr n, struct scenario *sc,
                                   struct fault_spec *f)
{
    (void)sc;
    if (f->at_s < 0 || f->step >= 0 ||
        (f->host != NULL) + (f->link != NULL) + (f->node != NULL) != 1)
        return attr_fail(r, n,
                         "<%s>: expected at=\"TIME\" and exactly one of host=\"NAME\", "
                         "link=\"NAME\" and node=\"NAME\"",
                         (const char *)n->name);
    return opt_time(r, n, "for", &f->for_s);
}

/* link-down and degrade: a window (read_window) on a link or a node's NIC links. */
static enum dmlsim_err read_link_fault(struct reader *r, xmlNodePtr n, struct scenario *sc,
                                       struct fault_spec *f)
{
    enum dmlsim_err rc;
    if ((f->link == NULL) == (f->node == NULL))
        return attr_fail(r, n, "<%s>: expected exactly one of link=\"NAME\" and node=\"NAME\"",
                         (const char *)n->name);
    DMLSIM_CHECK_GOTO(rc, read_window(r, n, sc, f), out);
    if (f->kind == FS_DEGRADE) {
        DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "factor", &f->factor), out);
        if (f->factor > attr_get_max(n, "factor"))
            return attr_fail(r, n, "<degrade factor=\"%g\">: expected a bandwidth factor in (0, 1]",
                             f->factor);
    }
out:
    return rc;
}

static enum dmlsim_err read_mtbf(struct reader *r, xmlNodePtr n, struct scenario *sc,
                                 struct fault_spec *f)
{
    (void)sc;
    enum dmlsim_err rc;
    f->weibull = attr_get_is(n, "distribution", "weibull");
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "mtbf", &f->mtbf_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "repair", &f->restart_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "until", &f->until_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "shape", &f->shape), out);
out:
    return rc;
}

/* Does one name contain the other ("node1" holds "node1.gpu0"), or are they equal? */
static bool names_overlap(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b), n = na < nb ? na : nb;
    return strncmp(a, b, n) == 0 && (na == nb || (na < nb ? b : a)[n] == '.');
}

/* Partition groups: two or more, separated by |, each a non-empty comma list of names, no name
 * in two places. */
static enum dmlsim_err check_groups(struct reader *r, xmlNodePtr n, const char *groups)
{
    char *copy = mem_strdup(groups), *names[256];
    int ngroups = 1, nnames = 0;
    const char *why = NULL;
    for (char *p = copy, *grp = copy; grp && !why; grp = p) {
        p = strchr(grp, '|');
        if (p) *p++ = '\0', ngroups++;
        for (char *q = grp, *name = grp; name && !why; name = q) {
            q = strchr(name, ',');
            if (q) *q++ = '\0';
            if (name[0] == '\0') why = "an empty group or name";
            for (int i = 0; i < nnames && !why; i++)
                if (names_overlap(names[i], name)) why = "a name in two places";
            if (!why && nnames == (int)(sizeof names / sizeof names[0])) why = "over 256 names";
            if (!why) names[nnames++] = name;
        }
    }
    if (!why && ngroups < 2) why = "one group";
    enum dmlsim_err rc = DMLSIM_OK;
    if (why)
        rc = attr_fail(r, n,
                       "<partition groups=\"%s\">: %s; expected two or more groups of distinct "
                       "names separated by |, such as \"node0,node1|node2\"",
                       groups, why);
    free(copy);
    return rc;
}

/* The readers of the <faults> children (faultkind.h: read_NAME of each row): the kind-specific
 * attributes and rules of one child, after scen_fault_read has read the common ones. */
static enum dmlsim_err read_crash(struct reader *r, xmlNodePtr n, struct scenario *sc,
                                  struct fault_spec *f)
{
    (void)sc;
    if ((f->at_s < 0) == (f->step < 0))
        return attr_fail(r, n, "<crash>: expected exactly one of at=\"TIME\" and step=\"N\"");
    return DMLSIM_OK;
}

static enum dmlsim_err read_link_down(struct reader *r, xmlNodePtr n, struct scenario *sc,
                                      struct fault_spec *f)
{
    return read_link_fault(r, n, sc, f);
}

static enum dmlsim_err read_degrade(struct reader *r, xmlNodePtr n, struct scenario *sc,
                                    struct fault_spec *f)
{
    return read_link_fault(r, n, sc, f);
}

static enum dmlsim_err read_partition(struct reader *r, xmlNodePtr n, struct scenario *sc,
                                      struct fault_spec *f)
{
    (void)sc;
    enum dmlsim_err rc = DMLSIM_OK;
    DMLSIM_CHECK_GOTO(rc, opt_time(r, n, "heal-after", &f->for_s), out);
    return check_groups(r, n, f->groups);
out:
    return rc;
}

static enum dmlsim_err read_corrupt(struct reader *r, xmlNodePtr n, struct scenario *sc,
                                    struct fault_spec *f)
{
    (void)sc;
    enum dmlsim_err rc = DMLSIM_OK;
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "probability", &f->probability), out);
    if (f->probability > attr_get_max(n, "probability") ||
        ((f->step < 0 || f->host == NULL) && f->probability <= 0))
        return attr_fail(r, n,
                         "<corrupt-batch>: expected host=\"...\" step=\"N\", or a "
                         "probability in (0, 1]");
    return DMLSIM_OK;
out:
    return rc;
}

/* <corrupt-shard shard="K">: the pipeline's format has shards, and K is one of them. */
static enum dmlsim_err read_corrupt_shard(struct reader *r, xmlNodePtr n, struct scenario *sc,
                                          struct fault_spec *f)
{
    const struct data_spec *d = &sc->train.data;
    if (!d->present || d->format == DATA_IDX)
        return attr_fail(r, n,
                         "<corrupt-shard>: a shard of the input pipeline's files; expected a "
                         "<data format=\"webdataset\", \"mds\" or \"parquet\"> in <training>");
    long v, shards = (long)ceil(d->samples / d->shard_samples);
    enum dmlsim_err rc = attr_get_int_within(r, n, "shard", shards - 1, 0, &v);
    f->shard = v;
    return rc;
}

/* <cache-crash node at [restart-after]>: the pipeline has a cache tier. */
static enum dmlsim_err read_cache_crash(struct reader *r, xmlNodePtr n, struct scenario *sc,
                                        struct fault_spec *f)
{
    const struct data_spec *d = &sc->train.data;
    if (!d->present || d->cache == CACHE_NONE)
        return attr_fail(r, n,
                         "<cache-crash>: the cache tier of the input pipeline; expected a "
                         "<data cache=\"memory\" or \"nvme\"> in <training>");
    if (f->at_s < 0 || f->node == NULL || strlen(f->node) >= 64) /* a host name: fault_event */
        return attr_fail(r, n, "<cache-crash>: expected node=\"NAME\" and at=\"TIME\"");
    return DMLSIM_OK;
}

/* The <faults> children by kind, and their readers (faultkind.h). */
#define ELEMENT_ROW(kind, element, targets, read, plan, start, end) [kind] = element,
static const char *const fault_elements[FS_KIND_COUNT] = {FAULT_SPEC_KINDS(ELEMENT_ROW)};
#undef ELEMENT_ROW

#define READ_ROW(kind, element, targets, read, plan, start, end) [kind] = read_##read,
static enum dmlsim_err (*const read_of[FS_KIND_COUNT])(struct reader *, xmlNodePtr,
                                                       struct scenario *, struct fault_spec *) = {
        FAULT_SPEC_KINDS(READ_ROW)};
#undef READ_ROW

const char *scenario_fault_element(enum fault_spec_kind k)
{
    return (size_t)k < FS_KIND_COUNT ? fault_elements[k] : "?";
}

int scenario_partition_groups(const struct fault_spec *f)
{
    int n = 1;
    for (const char *p = f->groups; p && *p; p++)
        n += *p == '|';
    return n;
}

int scenario_partition_group(const struct fault_spec *f, const char *name)
{
    size_t len = strlen(name);
    int g = 0;
    for (const char *p = f->groups; p && *p;) {
        size_t n = strcspn(p, ",|");
        if (n == len && strncmp(p, name, len) == 0) return g;
        p += n;
        if (*p == '|') g++;
        if (*p) p++;
    }
    return 0;
}

void scenario_partition_link(const struct fault_spec *f, int g, char *buf, size_t len)
{
    snprintf(buf, len, "partition.line%d.g%d", f->line, g);
}

enum dmlsim_err scen_fault_read(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    enum dmlsim_err rc = DMLSIM_OK;
    long v;
    sc->faults = mem_realloc(sc->faults, (sc->nfaults + 1) * sizeof *sc->faults);
    struct fault_spec *f = &sc->faults[sc->nfaults++];
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < FS_KIND_COUNT; i++)
        if (strcmp((const char *)n->name, fault_elements[i]) == 0)
            f->kind = (enum fault_spec_kind)i;
    f->line = (int)attr_line(n);
    f->host = attr_dup(n, "host");
    f->link = attr_dup(n, "link");
    f->node = attr_dup(n, "node");
    f->groups = attr_dup(n, "groups");
    f->step = -1;
    DMLSIM_CHECK_GOTO(rc, opt_time(r, n, "at", &f->at_s), out);
    v = -1; /* a step: <crash> and <corrupt-batch> only */
    if (attr_spec_find((const char *)n->name, "step") != NULL)
        DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "step", &v), out);
    f->step = (int)v;
    DMLSIM_CHECK_GOTO(rc, opt_time(r, n, "restart-after", &f->restart_s), out);
    if (f->step >= 0 && sc->train.strategy != STRAT_NONE && f->step >= sc->train.steps)
        return attr_fail(r, n,
                         "<%s step=\"%d\">: the run has steps 0 to %d, so it would never "
                         "happen; expected a step below %d",
                         (const char *)n->name, f->step, sc->train.steps - 1, sc->train.steps);
    rc = read_of[f->kind](r, n, sc, f);
out:
    return rc;
}

enum dmlsim_err scen_fault_read_expect(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    sc->expects = mem_realloc(sc->expects, (sc->nexpects + 1) * sizeof *sc->expects);
    struct expect_spec *e = &sc->expects[sc->nexpects++];
    e->metric = attr_dup(n, "metric");
    e->line = (int)attr_line(n);
    e->min = -INFINITY;
    e->max = INFINITY;
    if (sc->train.strategy == STRAT_NONE)
        return attr_fail(r, n,
                         "<expect>: metrics describe training; expected a <training> in the "
                         "scenario");
    /* the metric's name: expect_validate (the strategies' metrics are above this layer) */
    static const char *const bound[] = {"min", "max"};
    double *dst[] = {&e->min, &e->max};
    for (int i = 0; i < 2; i++) {
        char *v = attr_dup(n, bound[i]);
        if (v && units_parse_real(v, dst[i]) != 0) {
            enum dmlsim_err rc =
                    attr_fail(r, n, "<expect %s=\"%s\">: expected a plain number", bound[i], v);
            free(v);
            return rc;
        }
        free(v);
    }
    if (e->min == -INFINITY && e->max == INFINITY)
        return attr_fail(r, n, "<expect metric=\"%s\">: expected min=\"...\" or max=\"...\"",
                         e->metric);
    if (e->min > e->max)
        return attr_fail(r, n,
                         "<expect metric=\"%s\" min=\"%g\" max=\"%g\">: empty range; expected "
                         "min <= max",
                         e->metric, e->min, e->max);
    return DMLSIM_OK;
}
