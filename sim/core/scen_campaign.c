/* scen_campaign.c - <campaign> and <failure> (scen_campaign.h). */
#include "scen_campaign.h"

#include "campaign_causes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The job this campaign plays: hybrid, with a step-counted checkpoint to the remote store. */
static enum dmlsim_err check_job(struct reader *r, xmlNodePtr n, const struct scenario *sc)
{
    if (sc->train.strategy != STRAT_HYBRID)
        return attr_fail(r, n,
                         "<campaign>: a campaign plays a job whose restart dmlsim simulates; "
                         "expected <training strategy=\"hybrid\">");
    if (!sc->ckpt.present || sc->ckpt.every_steps < 1 || sc->ckpt.target != CKPT_REMOTE)
        return attr_fail(r, n,
                         "<campaign>: the job restarts from its checkpoints; expected a "
                         "<checkpoint every=\"N steps\" target=\"remote\"> before it");
    if (!sc->has_cluster)
        return attr_fail(r, n,
                         "<campaign>: its costs are simulated on the cluster with a spare node "
                         "added; expected a generated <cluster>");
    return DMLSIM_OK;
}

static bool good_name(const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len >= sizeof(((struct camp_cause *)0)->name)) return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-')) return false;
    return true;
}

/* detect="watchdog" (the job's simulated watchdog, -1) or a time. */
static enum dmlsim_err read_detect(struct reader *r, xmlNodePtr n, double *out)
{
    char *d = attr_dup(n, "detect");
    enum dmlsim_err rc = DMLSIM_OK;
    if (d != NULL && strcmp(d, "watchdog") == 0)
        *out = -1;
    else if (d != NULL && units_parse(d, UNIT_TIME, UNIT_NONNEG, out) != UNIT_OK)
        rc = attr_fail(r, n,
                       "<failure detect=\"%s\">: expected watchdog (the job's, simulated) "
                       "or a time >= 0 such as 30s",
                       d);
    free(d);
    return rc;
}

static enum dmlsim_err read_slow(struct reader *r, xmlNodePtr n, struct camp_cause *c)
{
    enum dmlsim_err rc;
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "slow-factor", &c->slow_factor), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "slow-for", &c->slow_s), out);
    if (c->kind == CAMP_SLOW && (c->slow_factor <= 1 || c->slow_s <= 0))
        return attr_fail(r, n,
                         "<failure kind=\"slow\">: expected slow-factor > 1 (how many times "
                         "slower the GPU computes) and slow-for=\"TIME\" (how long)");
    if (c->kind != CAMP_SLOW && (c->slow_factor > 0 || c->slow_s > 0))
        return attr_fail(r, n, "<failure slow-factor slow-for>: expected kind=\"slow\" with them");
out:
    return rc;
}

static enum dmlsim_err read_failure(struct reader *r, xmlNodePtr n, struct campaign_spec *cs)
{
    struct camp_cause c = {.detect_s = -1, .source = "the scenario"}; /* kind, scope: below */
    enum dmlsim_err rc;
    char *name = attr_dup(n, "cause");
    bool ok = good_name(name);
    if (ok) snprintf(c.name, sizeof c.name, "%s", name);
    free(name);
    if (!ok)
        return attr_fail(r, n,
                         "<failure cause>: expected a name of 1 to 31 characters a-z, 0-9 "
                         "and -");
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "per-gpu-hour", &c.per_gpu_hour), out);
    c.kind = (enum camp_kind)attr_get_choice(n, "kind", campaign_kind_names, CAMP_KINDS);
    c.scope = (enum camp_scope)attr_get_choice(n, "scope", campaign_scope_names, CAMP_SCOPES);
    DMLSIM_CHECK_GOTO(rc, read_detect(r, n, &c.detect_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "repair", &c.repair_s), out);
    DMLSIM_CHECK_GOTO(rc, read_slow(r, n, &c), out);
    int i = 0;
    while (i < cs->ncauses && strcmp(cs->causes[i].name, c.name) != 0)
        i++;
    if (i == CAMP_MAX_CAUSES)
        return attr_fail(r, n, "<failure>: expected at most %d causes in all", CAMP_MAX_CAUSES);
    cs->causes[i] = c;
    if (i == cs->ncauses) cs->ncauses++;
    cs->nfailures++;
out:
    return rc;
}

static enum dmlsim_err read_sizes(struct reader *r, xmlNodePtr n, struct campaign_spec *cs)
{
    enum dmlsim_err rc;
    long v;
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "duration", &cs->duration_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "steps", &cs->steps), out);
    if (cs->steps == 0 && cs->duration_s == 0)
        return attr_fail(r, n,
                         "<campaign>: expected duration=\"TIME\" (such as 54d), "
                         "steps=\"N\", or both (it ends at the first)");
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "replications", &v), out);
    cs->replications = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "spares", &v), out);
    cs->spares = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "rack-nodes", &v), out);
    cs->rack_nodes = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "failure-scale", &cs->failure_scale), out);
    cs->policy = attr_get_is(n, "on-shortage", "shrink") ? CAMP_SHRINK : CAMP_WAIT;
out:
    return rc;
}

enum dmlsim_err scen_campaign_read(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct campaign_spec *cs = &sc->camp;
    enum dmlsim_err rc;
    memset(cs, 0, sizeof *cs);
    cs->present = true;
    cs->line = (int)attr_line(n);
    DMLSIM_CHECK_GOTO(rc, check_job(r, n, sc), out);
    DMLSIM_CHECK_GOTO(rc, read_sizes(r, n, cs), out);
    char *mix = attr_dup(n, "failures");
    snprintf(cs->mix, sizeof cs->mix, "%s",
             mix ? mix : attr_spec_get("campaign", "failures")->def_text);
    free(mix);
    size_t nrows = 0;
    const struct camp_cause *rows = campaign_causes(cs->mix, &nrows);
    for (size_t i = 0; i < nrows; i++)
        cs->causes[cs->ncauses++] = rows[i];
    for (xmlNodePtr f = n->children; f != NULL; f = f->next)
        if (f->type == XML_ELEMENT_NODE) DMLSIM_CHECK_GOTO(rc, read_failure(r, f, cs), out);
out:
    return rc;
}
