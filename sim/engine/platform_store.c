/* platform_store.c - the stores in a generated platform (see platform_store.h). */
#include "platform_store.h"

#include "catalog.h"

double platform_store_rate(double Bps)
{
    return Bps > 0 ? Bps : PLATFORM_STORE_UNBOUNDED_BPS;
}

bool platform_store_used(const struct scenario *sc, const struct store_spec *s)
{
    return s == scenario_store(sc, sc->train.data.present ? sc->train.data.store_id : 0) ||
           s == scenario_store(sc, sc->ckpt.present ? sc->ckpt.store_id : 0);
}

double platform_store_side_Bps(const struct scenario *sc)
{
    if (sc->cluster.store_bw_Bps > 0) return sc->cluster.store_bw_Bps;
    double side = 0;
    for (int i = 0; i < sc->nstores; i++) {
        const struct store_spec *s = &sc->stores[i];
        if (s->kind == STORE_LOCAL || !platform_store_used(sc, s)) continue;
        double r = platform_store_rate(s->p.read_Bps), w = platform_store_rate(s->p.write_Bps);
        side = r > side ? r : side;
        side = w > side ? w : side;
    }
    return side;
}

void platform_store_nvme(const struct scenario *sc, double *read_Bps, double *write_Bps)
{
    *read_Bps = *write_Bps = CATALOG_NVME_BPS;
    for (int i = 0; i < sc->nstores; i++) {
        const struct store_spec *s = &sc->stores[i];
        if (s->kind != STORE_LOCAL || !platform_store_used(sc, s)) continue;
        *read_Bps = platform_store_rate(s->p.read_Bps);
        *write_Bps = platform_store_rate(s->p.write_Bps);
    }
}

void platform_store_disks(FILE *out, const struct scenario *sc)
{
    for (int i = 0; i < sc->nstores; i++) {
        const struct store_spec *s = &sc->stores[i];
        if (s->kind == STORE_LOCAL || !platform_store_used(sc, s)) continue;
        fprintf(out, "<disk id=\"store.%s\" read_bw=\"%.17gBps\" write_bw=\"%.17gBps\"/>", s->name,
                platform_store_rate(s->p.read_Bps), platform_store_rate(s->p.write_Bps));
    }
}
