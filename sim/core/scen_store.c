/* scen_store.c - <storage> and the store references (see scen_store.h). */
#include "scen_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct store_spec *scenario_store(const struct scenario *sc, int id)
{
    return id > 0 && id <= sc->nstores ? &sc->stores[id - 1] : NULL;
}

/* The attributes that override the preset's numbers, in storage.h's units. */
static enum dmlsim_err store_attrs(struct reader *r, xmlNodePtr n, struct store_params *p)
{
    enum dmlsim_err rc;
    long v;
    DMLSIM_CHECK_GOTO(
            rc,
            attr_quantity(r, n, "read-bw", UNIT_BANDWIDTH, UNIT_NONNEG, p->read_Bps, &p->read_Bps),
            out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_quantity(r, n, "write-bw", UNIT_BANDWIDTH, UNIT_NONNEG, p->write_Bps,
                                    &p->write_Bps),
                      out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_quantity(r, n, "connection-rate", UNIT_BANDWIDTH, UNIT_NONNEG,
                                    p->conn_Bps, &p->conn_Bps),
                      out);
    DMLSIM_CHECK_GOTO(
            rc, attr_quantity(r, n, "latency", UNIT_TIME, UNIT_NONNEG, p->latency_s, &p->latency_s),
            out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_quantity(r, n, "request-overhead", UNIT_TIME, UNIT_NONNEG, p->request_s,
                                    &p->request_s),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "get-rate", 0, true, p->get_per_s, &p->get_per_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "put-rate", 0, true, p->put_per_s, &p->put_per_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "connections", 1, 4096, p->connections, &v), out);
    p->connections = (int)v;
    DMLSIM_CHECK_GOTO(
            rc, attr_quantity(r, n, "part-size", UNIT_SIZE, UNIT_NONNEG, p->part_B, &p->part_B),
            out);
out:
    return rc;
}

enum dmlsim_err scen_store_read(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    enum dmlsim_err rc = DMLSIM_OK;
    char *name = attr_dup(n, "name"), *preset = attr_dup(n, "preset");
    const struct store_preset *pr = storage_preset(preset ? preset : "server-ssd");
    if (pr == NULL) {
        rc = attr_fail(r, n, "<storage preset=\"%s\">: unknown preset; expected one of: %s", preset,
                       storage_preset_names());
        goto out;
    }
    if (name == NULL || name[0] == '\0' || strlen(name) >= sizeof sc->stores[0].name) {
        rc = attr_fail(r, n, "<storage name=\"%s\">: expected a name of 1 to %zu characters",
                       name ? name : "", sizeof sc->stores[0].name - 1);
        goto out;
    }
    for (int i = 0; i < sc->nstores; i++)
        if (strcmp(sc->stores[i].name, name) == 0) {
            rc = attr_fail(r, n,
                           "<storage name=\"%s\">: the name of the store of line %d; "
                           "expected a new name",
                           name, sc->stores[i].line);
            goto out;
        }
    if (sc->nstores == SCEN_MAX_STORES) {
        rc = attr_fail(r, n, "<storage>: more than %d stores; expected at most %d", SCEN_MAX_STORES,
                       SCEN_MAX_STORES);
        goto out;
    }
    struct store_spec *s = &sc->stores[sc->nstores];
    *s = (struct store_spec){
            .preset = pr->name, .kind = pr->kind, .p = pr->p, .line = (int)attr_line(n)};
    snprintf(s->name, sizeof s->name, "%s", name);
    DMLSIM_CHECK_GOTO(rc, store_attrs(r, n, &s->p), out);
    sc->nstores++;
out:
    free(name);
    free(preset);
    return rc;
}

/* The names of the stores, for a message. */
static const char *store_names(const struct scenario *sc, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < sc->nstores && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", sc->stores[i].name);
    return sc->nstores ? buf : "(none: add a <storage name=\"NAME\"> element)";
}

/* The local store the scenario names elsewhere than in `self`, or 0: a node has one NVMe. */
static int other_local(const struct scenario *sc, int self)
{
    int ids[2] = {sc->train.data.store_id, sc->ckpt.store_id};
    for (int i = 0; i < 2; i++) {
        const struct store_spec *s = scenario_store(sc, ids[i]);
        if (s && s->kind == STORE_LOCAL && ids[i] != self) return ids[i];
    }
    return 0;
}

enum dmlsim_err scen_store_ref(struct reader *r, xmlNodePtr n, const struct scenario *sc,
                               const char *elem, int *id)
{
    enum dmlsim_err rc = DMLSIM_OK;
    char *name = attr_dup(n, "store"), buf[SCEN_MAX_STORES * 34];
    *id = 0;
    for (int i = 0; name && i < sc->nstores && *id == 0; i++)
        if (strcmp(sc->stores[i].name, name) == 0) *id = i + 1;
    const struct store_spec *s = scenario_store(sc, *id);
    int other = s && s->kind == STORE_LOCAL ? other_local(sc, *id) : 0;
    if (name && *id == 0)
        rc = attr_fail(r, n, "<%s store=\"%s\">: unknown store; expected one of: %s", elem, name,
                       store_names(sc, buf, sizeof buf));
    else if (other)
        rc = attr_fail(r, n,
                       "<%s store=\"%s\">: a node has one local drive, already the store \"%s\"; "
                       "expected the same local store",
                       elem, name, scenario_store(sc, other)->name);
    free(name);
    return rc;
}
