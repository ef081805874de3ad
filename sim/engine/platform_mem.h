/* platform_mem.h - resource bounds of a simulation, estimated before anything is generated or
 * loaded (internal to the platform module; callers use platform.h).
 *
 * The host memory a run takes is counted from what its platform holds (struct pf_size: for a
 * generated cluster from the scenario alone, for a user's file from the file, platform_user.h)
 * and the actors the scenario starts, with per-element costs fitted on measured runs; a run that
 * would not fit this machine is refused before minutes of set-up. The same actor count decides
 * whether SimGrid's stack guard pages fit under vm.max_map_count.
 */
#ifndef DMLSIM_PLATFORM_MEM_H
#define DMLSIM_PLATFORM_MEM_H

#include "error.h"
#include "scenario.h"

/* What a platform holds once SimGrid has loaded it, for the memory estimate (doubles: a cluster
 * of 2^20 nodes x 256 GPUs is counted without overflow, and nothing is generated to count it). */
struct pf_size {
    double gpus;   /* GPU hosts */
    double hosts;  /* hosts and routers */
    double links;  /* links (a SPLITDUPLEX link counts once) */
    double zones;  /* zones */
    double routes; /* routes and zone routes */
    double hops;   /* link_ctn elements of the routes */
    double file_B; /* the platform file's bytes (generated: estimated) */
};

/* The generated platform's size: the counts platform_write's loops make (hops of a node's
 * routes taken as 3 on average, of a zone route as 3), without writing anything, into *z. */
void platform_mem_generated_size(const struct scenario *sc, struct pf_size *z);

/* DMLSIM_OK when the simulation (platform z, the fault plan's copy of its document, the actors)
 * fits this machine's physical memory; else a DMLSIM_EVALUE error at <cluster> or <platform>. */
enum dmlsim_err platform_mem_check(const struct scenario *sc, const struct pf_size *z,
                                   struct dmlsim_error *err);

/* Decides SimGrid's stack guard pages for the actors of a run on ngpus GPUs (see platform.h,
 * platform_setup): may set contexts/guard-size:0 with one line on stderr, or refuse a guard size
 * set by --cfg at <training> (DMLSIM_EVALUE). Also tunes glibc's mmap use without guard pages. */
enum dmlsim_err platform_mem_choose_guard_pages(const struct scenario *sc, double ngpus,
                                                struct dmlsim_error *err);

#endif
