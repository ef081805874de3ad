/* netcal.h - calibration of the simulated network from measured collectives.
 *
 * A calibration profile or nccl-tests log holds measured times of collectives on some GPUs and
 * scope (one node: NVLink/PCIe; several: the NICs). netcal turns them into a correction the nccl
 * family applies to the calls of the same scope: for each measured (operation, scope) a curve
 * f(S) = measured / simulated-uncalibrated at the measured sizes, interpolated linearly in log S
 * (clamped at the ends), by which a call dilates its wire bytes and protocol latencies. The
 * uncalibrated times come from simulating the measured configuration (netcal_fit, done by the
 * CLI in child processes); the fit is refined by re-simulating with the correction until the
 * calibrated times reproduce the measured ones at the fitted sizes.
 */
#ifndef DMLSIM_NETCAL_H
#define DMLSIM_NETCAL_H

#include <stddef.h>

struct netcal_curve {
    int op;         /* enum coll_op */
    int multinode;  /* 0: one node (intra-node links), 1: several nodes (network) */
    char gpu[32];   /* catalog GPU the measurement ran on */
    int nranks;     /* ranks measured */
    int nodes;      /* nodes measured */
    size_t n;       /* points */
    double *size_B; /* ascending sizes */
    double *factor; /* measured / simulated at each size */
};

struct netcal {
    struct netcal_curve *curves; /* one per (op, scope) */
    size_t ncurves;
    char source[256]; /* where the measurements came from */
};

/* The factor for a call of `op` on a world spanning `nodes` nodes, of size_B bytes: the curve of
 * that op and scope (else of all-reduce of that scope), interpolated in log size; 1 if none. */
double netcal_factor(const struct netcal *nc, int op, int nodes, double size_B);

/* Adds a curve (copies the arrays, sorted by size). */
void netcal_add(struct netcal *nc, const struct netcal_curve *c);

void netcal_release(struct netcal *nc);

#endif
