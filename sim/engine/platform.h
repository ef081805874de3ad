/* platform.h - from a scenario to a loaded SimGrid platform: cluster generator, user platforms,
 * network-model configuration, host and link maps.
 *
 * Node anatomy of a generated cluster (zone "nodeN", Full routing):
 *   - one host per GPU, "nodeN.gpuJ" (speed: the GPU's FP32 peak, property gpu=<catalog name>),
 *     and one CPU host "nodeN.cpu";
 *   - every GPU and the CPU have a PCIe link to the node's PCIe switch ("nodeN.gpuJ.<pcie>",
 *     "nodeN.cpu.<pcie>"); with an NVSwitch intra class (nvlink3 and later) every GPU also has
 *     an NVLink link to the NVSwitches ("nodeN.gpuJ.<nvlink>"); NICs hang off the PCIe switch
 *     ("nodeN.nicK.<nic>") and lead to the network; GPU j uses NIC j mod nics-per-node
 *     (GPUDirect RDMA path) when nics-per-node divides gpus-per-node. With k = nics-per-node /
 *     gpus-per-node > 1 NICs per GPU, GPU j owns NICs jk .. jk + k - 1 (as on nodes with two
 *     NICs per GPU under its PCIe switch: NCCL's ncclTopoGetLocal gives a GPU the nets of its
 *     best path type as its local nets), written as one link "nodeN.nicA-B.<nic>" (A = jk,
 *     B = A + k - 1) of k times the class's rate and one NIC's latency, that the GPU's (and for
 *     GPU 0 the CPU's) traffic to the network crosses. NCCL spreads a GPU's channels over its
 *     local nets (NCCL 2.2x src/graph/search.cc, ncclTopoGetLocalNet: channel c takes local
 *     net (dev + c mod ceil(localNets / localGpus)) mod localNets, dev bit-mirrored: a GPU's
 *     channels alternate between its two NICs), so under load each of the k carries 1/k of
 *     the GPU's traffic, which is what the group link gives; it differs when fewer than k flows
 *     leave the GPU (one flow can take the group's whole rate; at flow level a GPU's channels
 *     to one peer are one flow anyway) and for faults (the group fails as one link). SimGrid
 *     has one route per host pair, so k NICs as separate links would need a host per GPU and
 *     NIC. NCCL's model sees the group as k rails (coll_nccl.c). Any other count is
 *     refused (platform_nics_problem);
 *   - with a mesh intra class (nvlink1, nvlink2: P100, V100) there is no NVSwitch: the GPUs are
 *     wired as in a DGX-1 hybrid cube mesh (table and sources in platform_gen.c), one direct link
 *     per connected pair, "nodeN.gpuA-gpuB.<nvlink>" with A < B (UP from A to B), of k times
 *     the class's per-NVLink rate for a pair of k NVLinks and one whole hop's latency. Pairs
 *     without NVLink go over PCIe as in a PCIe-only server (in a DGX-1 that path also crosses
 *     the CPU sockets). A node of G < 8 GPUs is the sub-mesh of GPUs 0..G-1; more than 8 is a
 *     scenario error;
 *   - with an NVLink SHARP class (nvlink4, nvlink5: third-generation NVSwitch and later, which
 *     reduce in the switch, as NCCL's NVLS algorithm uses) the node also has a host "nodeN.nvs"
 *     (properties role=nvswitch, node=N; it runs nothing modelled), with routes nodeN.gpuJ ->
 *     nodeN.nvs = the GPU's NVLink link UP and back = DOWN; no other route touches it;
 *   - the switches themselves are non-blocking: a route lists only the links into and out of them.
 * Parameter-server machines (ps-nodes="K"): zones "psI" with one CPU host "psI.cpu" (property
 * role=ps), its PCIe link and one NIC, attached to the network like a node (after the worker nodes
 * in leaf order). A node's CPU host carries role=cpu and node=N; GPU hosts carry gpu and node.
 * Between nodes: star = one non-blocking switch, so nothing but the two NIC links; fat-tree = leaf
 * switches of nodes-per-leaf nodes, each joined to every spine by a SPLITDUPLEX bundle link of
 * the NIC class ("leafL-spineS.<nic>", capacity = leaf down capacity / (oversubscription x
 * spines)); a route between leaves climbs to spine (a + b) mod spines (a fixed ECMP hash).
 * Every link is SPLITDUPLEX (all these wires are full duplex) and is named "<where>.<class>", so
 * the class of any link on a route is the text after its last dot (SimGrid appends _UP/_DOWN).
 * User platforms may follow the same convention to get link classes in the output.
 *
 * Network model: CM02 without crosstraffic and with TCP-gamma off (exact alpha-beta: an
 * uncontended transfer of S bytes takes sum(latency) + S / min(bandwidth)). network-model="LV08"
 * means TCP realism, which only TCP-class links should get; SimGrid's LV08 is one global model,
 * so a generated cluster keeps CM02 and writes its TCP-class links (kind LINK_TCP: NICs,
 * switches, fat-tree uplinks) with LV08's factors applied, latency x13.01 and bandwidth x0.97
 * (SimGrid 3.32, "Configuring SimGrid", network/model), leaving NVLink, PCIe and RDMA links
 * exact. LV08's RTT-weighted sharing (weight-S) and crosstraffic are not reproduced. A user's
 * platform file cannot be told apart by class, so it gets SimGrid's own LV08 on every link, as
 * before (factors, weight-S 20537 and crosstraffic included).
 */
#ifndef DMLSIM_PLATFORM_H
#define DMLSIM_PLATFORM_H

#include "catalog.h"
#include "error.h"
#include "fault.h"
#include "scenario.h"

#include <simgrid/forward.h>

#include <stddef.h>
#include <stdio.h>

struct platform {
    size_t ngpus;                    /* GPU hosts, in rank order */
    sg_host_t *gpus;                 /* rank -> host (natural name order) */
    const struct gpu_model **models; /* rank -> GPU model */
    sg_host_t *ps_hosts;             /* hosts with property role=ps, natural name order */
    size_t nps;                      /* number of ps_hosts */
    sg_host_t *cpu_hosts;            /* hosts with property role=cpu (a node's CPU), name order */
    size_t ncpus;                    /* number of cpu_hosts */
    sg_host_t storage;               /* the checkpoint store / rendezvous host (role=storage) */
    size_t nnodes;                   /* worker nodes: 1 + the largest node property of a GPU,
                                        CPU or NVSwitch host (0 when no host carries one) */
    sg_host_t *nvswitch;             /* node index -> its host with role=nvswitch (NVLink SHARP
                                        classes), NULL where the node has none; nnodes entries */
    char *description;               /* one line for the "#" header */
};

/* NULL when cluster c's NICs can be placed: nics-per-node a divisor of gpus-per-node (GPU j on
 * NIC j mod nics) or a multiple (k per GPU), or no network. Else why not, into buf ("12 NICs on
 * 8 GPUs per node; expected a divisor or a multiple of 8"); returns buf. */
const char *platform_nics_problem(const struct cluster_spec *c, char *buf, size_t len);

/* What a generated cluster needs beyond the scenario's own checks (platform_nics_problem), as a
 * FILE:LINE error at <cluster>; DMLSIM_OK for a user's platform. platform_open calls it. */
enum dmlsim_err platform_check_cluster(const struct scenario *sc, struct dmlsim_error *err);

/* Writes the generated SimGrid platform XML (v4.1) of sc->cluster to `out`. */
void platform_write(const struct scenario *sc, FILE *out);

/* Writes it to `path` atomically (a temporary file renamed into place; nothing is left behind on
 * failure). Needs sc->has_cluster. */
enum dmlsim_err platform_write_file(const struct scenario *sc, const char *path,
                                    struct dmlsim_error *err);

/* Sets SimGrid's network configuration for the scenario; call after simgrid_init() and before
 * platform_load(). (Stack guard pages are decided by platform_setup, which counts the GPUs.) */
void platform_configure(const struct scenario *sc);

/* One line saying which network model the scenario gets (see the design note above), for the
 * "# network" header line. Static storage. */
const char *platform_network_model(const struct scenario *sc);

/* A platform before it is loaded: the generated or user document, and the names in it. */
struct platform_doc;

/* Generates the scenario's platform (or checks the user's file: well-formed, no id twice in its
 * namespace, known GPUs, positive rates) and, when the scenario has faults, reads the document
 * and the names a fault plan may target (natural order; release with platform_names_release).
 * First, before anything is written, the host memory the simulation will take (the platform's
 * hosts, links and routes, counted from the scenario for a generated one; its document when
 * the fault plan reads it; the actors the run will start) is estimated, and a simulation
 * larger than this machine's physical memory is refused at <cluster> or <platform>. The
 * temporary folder it writes in is $TMPDIR/dmlsim-run-PID-XXXXXX; folders of dead processes
 * are removed first. Release the document with platform_close, also on failure. */
enum dmlsim_err platform_open(const struct scenario *sc, struct platform_doc **doc,
                              struct fault_names *names, struct dmlsim_error *err);
void platform_names_release(struct fault_names *names);

/* Writes the plan's link faults as SimGrid state/bandwidth profiles and its stragglers as extra
 * pstates of their hosts (fault_plan_pstate), loads the platform into SimGrid and maps the GPUs.
 * The plan is only read. Returns a new platform owned by the caller (platform_free). */
enum dmlsim_err platform_load(const struct scenario *sc, struct platform_doc *doc,
                              const struct fault_plan *plan, struct platform **out,
                              struct dmlsim_error *err);
void platform_close(struct platform_doc *doc);

/* All three: open the document, build the fault plan against its names (plain data, before the
 * engine starts; fault_plan_release), load the platform with the plan's profiles. Between the
 * first two it decides SimGrid's stack guard pages: when the actors the run will start would
 * need more memory mappings with guard pages (two each) than vm.max_map_count allows, the run
 * goes without (contexts/guard-size:0, one line on stderr), or, if --cfg set a guard size, is
 * refused. A user's platform loaded must route what the scenario sends (its workers, parameter
 * servers, store and node CPUs; every pair of up to 512 workers): a missing route is a FILE:LINE
 * error naming the host, not SimGrid's abort at the first transfer. Signals are never held
 * longer than a folder's creation. */
enum dmlsim_err platform_setup(const struct scenario *sc, struct fault_plan *plan,
                               struct platform **pf, struct dmlsim_error *err);

/* Removes the temporary folder of the platform being set up, if any; async-signal-safe, for an
 * interrupt handler that then exits. */
void platform_interrupt(void);

void platform_free(struct platform *pf);

/* The CPU host of the node `gpu` belongs to (property node), or NULL. */
sg_host_t platform_node_cpu(const struct platform *pf, sg_host_t gpu);

/* The first disk of host h (a node's NVMe, the store's disk), or NULL. */
sg_disk_t platform_host_disk(sg_host_t h);

/* Natural order of host names: digit runs compare as numbers (node2 < node10). */
int platform_name_cmp(const char *a, const char *b);

#endif
