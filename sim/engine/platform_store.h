/* platform_store.h - what a scenario's stores (<storage>) put into a generated platform.
 *
 * A remote store (object store, parallel file system) that <data> or <checkpoint> names becomes
 * a disk of its own on the storage host, "store.NAME", reading and writing at the store's
 * aggregate rates, and the storage machine's side of the network (its PCIe, NIC and switch
 * port) carries the fastest of them, as <cluster store-bw> does for the default store: the
 * service's many servers stand as that one machine, so the store's own rates, its requests and
 * the clients' links are what limit a transfer. A local store (an NVMe preset) sets every node's
 * NVMe disk. Without stores the platform is the one the scenario always had.
 */
#ifndef DMLSIM_PLATFORM_STORE_H
#define DMLSIM_PLATFORM_STORE_H

#include "scenario.h"

#include <stdio.h>

/* A rate of 0 (no limit of the store's own) as written into the platform: far above any link. */
#define PLATFORM_STORE_UNBOUNDED_BPS 1e15

/* The rate of the storage machine's network side: store-bw when given, else the fastest
 * aggregate rate of the remote stores used, else 0 (the cluster's classes). */
double platform_store_side_Bps(const struct scenario *sc);

/* A node's NVMe read and write rates: the local store's when one is used, else the catalog's. */
void platform_store_nvme(const struct scenario *sc, double *read_Bps, double *write_Bps);

/* The storage host's extra disks, one per remote store used (after its default "store" disk). */
void platform_store_disks(FILE *out, const struct scenario *sc);

/* A store's rate as a disk bandwidth (0: PLATFORM_STORE_UNBOUNDED_BPS). */
double platform_store_rate(double Bps);

/* Whether store s is used by <data> or <checkpoint>. */
bool platform_store_used(const struct scenario *sc, const struct store_spec *s);

#endif
