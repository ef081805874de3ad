/* nccl_topo.h - the communicator as the nccl family lays it out on the platform: nodes, each
 * node's ring orders, the channels' rings and trees, and what their routes cost.
 *
 * Built once per world from its hosts and links (link classes: route.h) and kept as the world's
 * cache (coll_world.topo), for NCCL's own model (struct nccl_system, nccl_tune.h) and for the
 * channels: a node's ring order is rank order behind an NVSwitch and Hamiltonian cycles over
 * direct NVLink pairs otherwise (each run both ways); channel c enters a node at its GPU c of
 * that order and leaves it from GPU c - 1. Trees are NCCL's double binary tree over the nodes
 * with a chain inside each node; CollNet chains hang under the SHARP switch.
 */
#ifndef DMLSIM_NCCL_TOPO_H
#define DMLSIM_NCCL_TOPO_H

#include "coll.h"
#include "coll_replay.h"
#include "nccl_tune.h"

#include <simgrid/forward.h>

#include <stdbool.h>

#define NCCL_TOPO_MAX_CH  32 /* NCCL's MAXCHANNELS */
#define NCCL_TOPO_MAX_CYC 3  /* edge-disjoint cycles looked for in an NVLink mesh */

struct nccl_topo {
    struct nccl_system sys;       /* what NCCL's model knows of the communicator */
    int nnodes;                   /* nodes */
    int *node_start;              /* node -> index of its first entry in `order` (nnodes + 1) */
    int *order;                   /* ranks node by node, each node's in its ring order */
    int *node;                    /* rank -> node */
    int *lpos;                    /* rank -> position in its node's ring order (cycle 0) */
    int *ncyc;                    /* node -> its rings: 1 (behind a switch), or the edge-disjoint
                                     Hamiltonian cycles of its NVLink mesh (each run both ways) */
    int *cyc[NCCL_TOPO_MAX_CYC];  /* cycle k: ranks node by node in that cycle's order */
    int *cpos[NCCL_TOPO_MAX_CYC]; /* cycle k: rank -> its position in it */
    bool mesh;                    /* nodes are NVLink meshes (rings also run in reverse) */
    int depth_max[2];             /* deepest rank of tree 0 / tree 1 (head at chain position 0) */
    sg_host_t *nvs;               /* node -> its NVSwitch host ("nodeN.nvs"), or NULL */
    sg_host_t sharp; /* the network's SHARP aggregation host ("sharp.switch"), or NULL */
    int gmax;        /* GPUs of the largest node */
    double ring_lat[NCCL_TOPO_MAX_CH]
                   [2];    /* channel c's representative ring hops' route latencies, in a
                    node and across nodes (nccl_topo_ring_mean); NAN until computed */
    double ring_bw[2];     /* channel 0's representative hops' route bandwidths, B/s */
    struct coll_gate gate; /* flow-level NVLS and CollNet: ranks wait for the last here */
    int nsocks;            /* socket transport: data sockets per connection (nccl_socket.h) */
    double stream_Bps;     /* socket transport: one socket's TCP stream rate, B/s; 0 when the
                              network is RDMA (no socket transport) */
    double stage_pcie_Bps; /* socket transport: the GPU's PCIe rate to host memory, B/s */
};

/* w's topology, built on first use and kept in w->topo (freed with the world). */
const struct nccl_topo *nccl_topo_of(const struct coll_world *w);
/* Frees t (NULL: nothing). */
void nccl_topo_free(struct nccl_topo *t);

/* GPUs of node n / the rank at position k (taken mod that count) of node n's ring order. */
int nccl_topo_node_size(const struct nccl_topo *t, int n);
int nccl_topo_member(const struct nccl_topo *t, int n, int k);

/* Channel c's ring around rank r: its right and left neighbours and r's position. */
void nccl_topo_ring_of(const struct nccl_topo *t, int r, int c, int *right, int *left, int *pos);

/* The latency of a ring step of channel c under plan p, the mean over the ring's hops: the
 * routes' own when `route`, else what the protocol adds beyond them (nccl_topo_ring_extra).
 * Fills t's cache of the representative routes (their bandwidths: nccl_topo_route_bws). */
double nccl_topo_ring_mean(const struct coll_world *w, struct nccl_topo *t,
                           const struct nccl_plan *p, int c, bool route);
double nccl_topo_ring_extra(const struct coll_world *w, struct nccl_topo *t,
                            const struct nccl_plan *p, int c);

/* The representative routes' bandwidths inside a node and across nodes, B/s (INFINITY where
 * there is no such route). */
void nccl_topo_route_bws(const struct nccl_topo *t, double *bi, double *bx);

/* Channel c's double binary tree / CollNet chain around rank r: parent (-1 at the root; P, the
 * SHARP switch, for CollNet's heads), children kids[0..*nk), depth. */
void nccl_topo_tree_of(const struct nccl_topo *t, int r, int c, int *parent, int *kids, int *nk,
                       int *depth);
void nccl_topo_collnet_of(const struct coll_world *w, int r, int c, int *parent, int *kids, int *nk,
                          int *depth);

/* Socket transport (nccl_socket.h): the rate bound of a connection from rank a to rank b
 * carrying messages of msg_B (0: none, inside a node or over RDMA), and what host staging adds
 * to a network hop of msg_B (0 over RDMA). */
double nccl_topo_conn_Bps(const struct nccl_topo *t, int a, int b, double msg_B);
double nccl_topo_stage_s(const struct nccl_topo *t, double msg_B);

/* The pipeline chunks of a tree or chain carrying `bytes`: one per 512 KiB FIFO slot, 1 to 64. */
int nccl_topo_chunks_for(double bytes);

#endif
