/* catalog.c - link and GPU tables (see catalog.h). Every number names its source beside it;
 * "derived" means computed from the figures named beside it. */
#include "catalog.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define GB 1e9
#define US 1e-6
#define TF 1e12

/* Hop latencies. NCCL 2.30 src/graph/tuning.cc per-hop latencies for the LL protocol (the lowest
 * a real transfer sees): NVLink 0.6 us, PCI 1.0 us, NET 2.7 us. IB/RoCE back to back: about 2 us
 * ib_write_lat (RDMA-Tutorial issue #8), consistent with NET 2.7 us including the GPU side.
 * TCP: netperf TCP_RR 12,507 transactions/s => 80 us round trip, 40 us one way (grpc/grpc issue
 * #7988). */
#define LAT_NVLINK (0.6 * US)
#define LAT_PCI    (1.0 * US)
#define LAT_RDMA   (2.7 * US)
#define LAT_TCP    (40.0 * US)

/* One TCP stream (iperf -P 1), what a socket of NCCL's socket transport gets: 25 GbE, iperf3
 * single stream 13.7, 13.1 and 12.8 Gb/s in three 20 s runs (esnet/iperf issue #1088), mean
 * 13.2 Gb/s; 100 GbE about 36 Gb/s (iperf issue #55, as tcp-100g's source says). A stream is
 * limited by the one core that drives it (the kernel's copies and TCP processing), not by the NIC:
 * 10 and 40 GbE carry the 25 GbE figure (derived; at 10 GbE it is above the line rate, so no limit
 * there). */
#define STREAM_25G  (13.2 / 8 * GB)
#define STREAM_100G (36.0 / 8 * GB)

/* Ratios used to derive effective rates where no measurement of that exact class is at hand. */
#define EFF_IB 0.936 /* 11.7 / 12.5 GB/s ib_write_bw on 100 Gb IB (perftest issue #225) */
#define EFF_TCP \
    0.964             /* 96.4 / 100 Gb/s iperf2 with 16 streams (iperf issue #286); NCCL's socket \
                         transport also opens several streams per peer */
#define EFF_NVL 0.822 /* 370 / 450 GB/s: NVLink4 ring busbw over line rate (nccl-tests #212) */
#define NVL2_LINK \
    (48.48 / 2 * GB) /* one NVLink2: 48.48 GB/s unidirectional P2P writes between two V100 SXM2 \
                        joined by 2 NVLinks (4 GPUs, 6 links each, all pairs connected), \
                        p2pBandwidthLatencyTest, aistabci/abci2.0benchmark \
                        pt2pt/intra_vnode/intra_vnode.out */
#define EFF_NVL_CE \
    (24.24 / 25.0) /* NVL2_LINK over NVLink2's 25 GB/s line rate: copy-engine efficiency of one \
                      link, used for NVLink1 */

static const struct link_class links[] = {
        {"pcie-gen3", LINK_PCIE, FABRIC_NONE, 0, 15.75 * GB, 12.2 * GB, LAT_PCI,
         "line 15.75 GB/s (Intel PCIe IP guide 683111); 12.2 GB/s pinned H2D on P100, "
         "bandwidthTest "
         "(gearshifft PR #82): TLP/DLLP overhead; lat NCCL tuning.cc PCI hop",
         0},
        {"pcie-gen4", LINK_PCIE, FABRIC_NONE, 0, 31.5 * GB, 25.0 * GB, LAT_PCI,
         "line 31.5 GB/s (derived, 2 x gen3); 25 GB/s H2D on A100 (nvbandwidth issue #42); lat "
         "NCCL "
         "tuning.cc PCI hop",
         0},
        {"pcie-gen5", LINK_PCIE, FABRIC_NONE, 0, 63.0 * GB, 52.8 * GB, LAT_PCI,
         "line 63 GB/s (derived, 2 x gen4); 52.8 GB/s D2H on H100 (nvbandwidth issue #24): the "
         "link's capability; H2D's 35.2 is limited by host-memory reads, and GPUDirect RDMA to an "
         "NDR NIC reaches 46-48 GB/s (nccl-tests #290), impossible under 35.2; lat NCCL PCI hop",
         0},
        {"nvlink1", LINK_NVLINK, FABRIC_MESH, 4, 20.0 * GB, 20.0 * GB *EFF_NVL_CE, LAT_NVLINK,
         "P100 SXM2, per NVLink: 4 links x 20 GB/s per direction (NVIDIA Tesla P100 white paper "
         "WP-08019-001), wired GPU to GPU in the DGX-1 hybrid cube mesh; effective derived with "
         "NVLink2's p2pBandwidthLatencyTest ratio 24.24/25; lat NCCL tuning.cc NVLink hop",
         0},
        {"nvlink2", LINK_NVLINK, FABRIC_MESH, 6, 25.0 * GB, NVL2_LINK, LAT_NVLINK,
         "V100 SXM2, per NVLink: 6 links x 25 GB/s per direction (DGX-1 with Tesla V100 system "
         "architecture white paper); 48.48 GB/s over a 2-link pair = 24.24 per link, "
         "p2pBandwidthLatencyTest copy engines (aistabci/abci2.0benchmark intra_vnode.out; SM "
         "copies, as NCCL's, get less: nccl-tests issue #149); lat NCCL tuning.cc NVLink hop",
         0},
        {"nvlink3", LINK_NVLINK, FABRIC_SWITCH, 12, 300.0 * GB, 230.0 * GB, LAT_NVLINK,
         "A100: 12 links x 25 GB/s = 300 GB/s line; 8-GPU all-reduce busbw 230 GB/s, which a ring "
         "gets from each GPU's NVLink (nccl-tests issue #149); NVSwitch forwards only, no NVLS on "
         "A100 (nccl-tests issue #228, maintainer); lat NCCL tuning.cc NVLink hop",
         0},
        {"nvlink4", LINK_NVLINK, FABRIC_SHARP, 18, 450.0 * GB, 370.0 * GB, LAT_NVLINK,
         "H100/H200: 18 links, 450 GB/s line; 8-GPU ring all-reduce busbw 370 GB/s (nccl-tests "
         "issue #212); third-generation NVSwitch reduces in the switch: NVLink SHARP, NCCL's NVLS "
         "(NVIDIA/nccl issue #807, maintainer); lat NCCL tuning.cc NVLink hop",
         0},
        {"nvlink5", LINK_NVLINK, FABRIC_SHARP, 18, 900.0 * GB, 900.0 * GB *EFF_NVL, LAT_NVLINK,
         "B200: 18 links (NV18 in nvidia-smi topo -m, Vultr HGX B200 hardware overview), 900 GB/s "
         "per direction (MLCommons inference v6.0 system description); effective derived with "
         "NVLink4's busbw/line ratio 0.822; NVLS on NVLink5 switches (NVSHMEM 3.2.5 release "
         "notes); lat NCCL tuning.cc NVLink hop",
         0},
        {"ib-edr", LINK_IB, FABRIC_NONE, 0, 12.5 * GB, 11.7 * GB, LAT_RDMA,
         "100 Gb/s; 11.7 GB/s ib_write_bw (perftest issue #225); lat NCCL tuning.cc NET hop", 0},
        {"ib-hdr", LINK_IB, FABRIC_NONE, 0, 25.0 * GB, 25.0 * GB *EFF_IB, LAT_RDMA,
         "200 Gb/s per port (NVIDIA QM87xx manual); effective derived with EDR's ib_write_bw ratio "
         "0.936; lat NCCL tuning.cc NET hop",
         0},
        {"ib-ndr", LINK_IB, FABRIC_NONE, 0, 50.0 * GB, 47.0 * GB, LAT_RDMA,
         "400 Gb/s per port (NVIDIA QM97x0 manual); 46-48 GB/s per NIC through NCCL, midpoint "
         "(nccl-tests issue #290); lat NCCL tuning.cc NET hop",
         0},
        {"ib-fdr", LINK_IB, FABRIC_NONE, 0, 7.0 * GB, 7.0 * GB *EFF_IB, LAT_RDMA,
         "56 Gb/s per FDR port (IBM POWER8 docs, PCIe3 2-port 56 Gb FDR IB adapter FC EC33); "
         "effective derived with EDR's ib_write_bw ratio 0.936; lat NCCL tuning.cc NET hop",
         0},
        {"roce-25g", LINK_ROCE, FABRIC_NONE, 0, 3.125 * GB, 3.125 * GB *EFF_IB, LAT_RDMA,
         "25 Gb/s Ethernet; RDMA efficiency 0.936 as ib_write_bw on 100 Gb (perftest issue #225); "
         "lat about 2 us ib_write_lat on IB/RoCE (RDMA-Tutorial issue #8) + GPU side, NCCL NET "
         "hop",
         0},
        {"roce-100g", LINK_ROCE, FABRIC_NONE, 0, 12.5 * GB, 11.7 * GB, LAT_RDMA,
         "100 Gb/s Ethernet; 11.7 GB/s ib_write_bw at 100 Gb (perftest issue #225); lat as "
         "roce-25g",
         0},
        {"roce-200g", LINK_ROCE, FABRIC_NONE, 0, 25.0 * GB, 25.0 * GB *EFF_IB, LAT_RDMA,
         "200 Gb/s Ethernet; RDMA efficiency 0.936 (perftest issue #225); lat as roce-25g", 0},
        {"roce-400g", LINK_ROCE, FABRIC_NONE, 0, 50.0 * GB, 50.0 * GB *EFF_IB, LAT_RDMA,
         "400 Gb/s Ethernet; RDMA efficiency 0.936 (perftest issue #225); lat as roce-25g", 0},
        {"tcp-10g", LINK_TCP, FABRIC_NONE, 0, 1.25 * GB, 1.25 * GB *EFF_TCP, LAT_TCP,
         "10 Gb/s; multi-stream TCP efficiency 0.964 (iperf issue #286); lat netperf TCP_RR "
         "(grpc/grpc issue #7988)",
         STREAM_25G},
        {"tcp-25g", LINK_TCP, FABRIC_NONE, 0, 3.125 * GB, 3.125 * GB *EFF_TCP, LAT_TCP,
         "25 Gb/s; multi-stream TCP efficiency 0.964 (iperf issue #286); lat netperf TCP_RR "
         "(grpc/grpc issue #7988)",
         STREAM_25G},
        {"tcp-40g", LINK_TCP, FABRIC_NONE, 0, 5.0 * GB, 5.0 * GB *EFF_TCP, LAT_TCP,
         "40 Gb/s; multi-stream TCP efficiency 0.964 (iperf issue #286); lat netperf TCP_RR "
         "(grpc/grpc issue #7988)",
         STREAM_25G},
        {"tcp-100g", LINK_TCP, FABRIC_NONE, 0, 12.5 * GB, 12.05 * GB, LAT_TCP,
         "100 Gb/s; 96.4 Gb/s with 16 streams, iperf2 (iperf issue #286), a single stream gets "
         "about 36 Gb/s (iperf issue #55); lat netperf TCP_RR (grpc/grpc issue #7988)",
         STREAM_100G},
};

/* Large-GEMM ceilings (fractions of the dense peak; gemm.h). Published: stas00/ml-engineering,
 * compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS" (MAMF) table, BF16: A100 SXM
 * 271.2 of 312 TFLOPS, H100 SXM 794.5 of 989, B200 SXM 1745.0 of 2250; FP8: H100 SXM 1402.6 of
 * 1979, H200 SXM 1453.4 of 1979, B200 SXM 3432.5 of 4500. Measured: the H200 lent to this project
 * (kernels/measured/h200-2026-12-04/calibrate.txt, cublasGemmEx, the best of 77 shapes per dtype):
 * FP32 51.47 of 67, TF32 433.94 of 495, FP16 910.64 and BF16 910.76 of 989. A dtype of a GPU
 * with neither takes the H200's fraction (H200_*); P100's FP16 runs on its SIMT cores (half2, no
 * tensor cores) and takes the SIMT FP32 fraction. */
#define H200_FP32 (51.47 / 67)
#define H200_TF32 (433.94 / 495)
#define H200_16   (910.7 / 989)
#define H200_FP8  (1453.4 / 1979) /* MAMF, H200 SXM */

/* A GPU whose idle draw no source found: the mean of the measured idle fractions of TDP, A100 SXM
 * 61 / 400 W (15.3%) and H100 SXM 70 / 700 W (10.0%): 12.5%. */
#define IDLE_FRAC_UNMEASURED 0.125
#define MAMF_NOTE \
    "; GEMM ceilings: MAMF (stas00/ml-engineering) where published, else the H200's measured " \
    "fractions"

static const struct gpu_model gpus[] = {
        {"p100",
         "NVIDIA Tesla P100 SXM2 16GB",
         {10.6 * TF, 0, 21.2 * TF, 0, 0},
         16 * GB,
         732 * GB,
         "pcie-gen3",
         "nvlink1",
         60,
         {"Tesla P100-SXM2-16GB"},
         "NVIDIA Tesla P100 datasheet (PCIe Gen3 host interface): FP32 10.6, FP16 21.2 TFLOPS, 16 "
         "GB HBM2 at 732 GB/s",
         56,
         {H200_FP32, 0, H200_FP32, 0, 0},
         "56 SMs (Tesla P100 whitepaper)" MAMF_NOTE,
         300,
         300 * IDLE_FRAC_UNMEASURED,
         "Tesla P100 SXM2 datasheet: 300 W; idle not measured in the sources found: 12.5% of TDP, "
         "the mean of A100 (61/400) and H100 (70/700) idle fractions"},
        {"v100",
         "NVIDIA Tesla V100 SXM2 32GB",
         {15.7 * TF, 0, 125 * TF, 0, 0},
         32 * GB,
         900 * GB,
         "pcie-gen3",
         "nvlink2",
         70,
         {"Tesla V100-SXM2-32GB", "Tesla V100-SXM2-16GB"},
         "NVIDIA V100 datasheet (PCIe Gen3): FP32 15.7, FP16 tensor 125 TFLOPS, 32 GB HBM2 at 900 "
         "GB/s",
         80,
         {H200_FP32, 0, H200_16, 0, 0},
         "80 SMs (Volta whitepaper, Tesla V100)" MAMF_NOTE,
         300,
         53,
         "V100 SXM2 datasheet: 300 W; idle 53 W: nvidia-smi, Tesla V100-SXM2 at P0, 0% GPU-Util, 20 GB "
         "allocated "
         "(zai-org/GLM-130B issue #32)"},
        {"a100",
         "NVIDIA A100 SXM 80GB",
         {19.5 * TF, 156 * TF, 312 * TF, 312 * TF, 0},
         80 * GB,
         2039 * GB,
         "pcie-gen4",
         "nvlink3",
         80,
         /* the 80GB PCIe card has the same peaks and memory, 1.94 instead of 2.04 TB/s (A100
            datasheet): closer to this entry than to anything else; its intra is the scenario's */
         {"NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM-80GB", "NVIDIA A100 80GB PCIe"},
         "NVIDIA A100 datasheet (PCIe Gen4): FP32 19.5, TF32 156, BF16/FP16 312 TFLOPS dense, 80 "
         "GB HBM2e at "
         "2.04 TB/s",
         108,
         {H200_FP32, H200_TF32, 271.2 / 312, 271.2 / 312, 0},
         "108 SMs (A100 whitepaper)" MAMF_NOTE,
         400,
         61,
         "A100 SXM datasheet: 400 W; idle 61 W: nvidia-smi of idle A100-SXM4-80GB boards at P0, 0% "
         "GPU-Util (the draw of eight public nvidia-smi logs of idle A100 SXM4 boards, 40 and 80 "
         "GB)"},
        {"h100",
         "NVIDIA H100 SXM5 80GB",
         {67 * TF, 495 * TF, 989 * TF, 989 * TF, 1979 * TF},
         80 * GB,
         3350 * GB,
         "pcie-gen5",
         "nvlink4",
         90,
         {"NVIDIA H100 80GB HBM3", "NVIDIA H100"},
         "NVIDIA H100 datasheet (PCIe Gen5): FP32 67, TF32 495, BF16/FP16 989, FP8 1979 TFLOPS "
         "dense, 80 GB "
         "HBM3 at 3.35 TB/s",
         132,
         {H200_FP32, H200_TF32, 794.5 / 989, 794.5 / 989, 1402.6 / 1979},
         "132 SMs (H100 whitepaper, SXM5)" MAMF_NOTE,
         700,
         70,
         "H100 SXM5 datasheet: 700 W; idle 70 W: nvidia-smi of idle H100 80GB HBM3 boards at P0, "
         "0% GPU-Util (69, 70 and 75 W in three public logs)"},
        {"h200",
         "NVIDIA H200 SXM 141GB",
         {67 * TF, 495 * TF, 989 * TF, 989 * TF, 1979 * TF},
         141 * GB,
         4800 * GB,
         "pcie-gen5",
         "nvlink4",
         90,
         {"NVIDIA H200"},
         "NVIDIA H200 datasheet (compute as H100): 141 GB HBM3e at 4.8 TB/s; MLCommons v4.1 H200 "
         "system description",
         132,
         {H200_FP32, H200_TF32, H200_16, H200_16, H200_FP8},
         "132 SMs (H200: the H100 SXM5 die)" MAMF_NOTE,
         700,
         70,
         "H200 SXM datasheet: up to 700 W; idle not measured in the sources found: the H100 SXM5 "
         "die, its 70 W"},
        /* Entries added after the first five keep the order of "expected one of" messages. */
        {"k80",
         "NVIDIA Tesla K80 (one GK210)",
         {4.37 * TF, 0, 0, 0, 0},
         12 * GB,
         240 * GB,
         "pcie-gen3",
         "pcie-gen3",
         37,
         {"Tesla K80"},
         "NVIDIA Tesla K80 (AnandTech launch table; board spec BD-07317-001): a board of two "
         "GK210, each one CUDA device: half the board's 8.74 TFLOPS FP32 at boost, 2 x 12 GB "
         "GDDR5, half of 480 GB/s; no FP16 arithmetic rate; PCIe Gen3 x16",
         13,
         {H200_FP32, 0, 0, 0, 0},
         "13 SMX per GK210 (Kepler GK210 whitepaper)" MAMF_NOTE,
         150,
         150 * IDLE_FRAC_UNMEASURED,
         "Tesla K80 board 300 W for two GK210 (board spec BD-07317-001): 150 W each; idle: 12.5% "
         "of TDP (the A100 and H100 idle fractions, mean)"},
        {"a100-40gb",
         "NVIDIA A100 SXM4 40GB",
         {19.5 * TF, 156 * TF, 312 * TF, 312 * TF, 0},
         40 * GB,
         1555 * GB,
         "pcie-gen4",
         "nvlink3",
         80,
         {"NVIDIA A100-SXM4-40GB", "A100-SXM-40GB", "NVIDIA A100-PCIE-40GB"},
         "NVIDIA A100 datasheet (40 GB column, PCIe Gen4): compute as the 80 GB part, 40 GB HBM2 "
         "at 1.555 TB/s",
         108,
         {H200_FP32, H200_TF32, 271.2 / 312, 271.2 / 312, 0},
         "108 SMs (A100 whitepaper)" MAMF_NOTE,
         400,
         61,
         "A100 SXM4 40GB datasheet: 400 W; idle 61 W: nvidia-smi of idle A100-SXM4-40GB boards at "
         "P0, 0% GPU-Util (eight public nvidia-smi logs of idle A100 SXM4 boards, 40 and 80 GB)"},
        {"h100-pcie",
         "NVIDIA H100 PCIe 80GB",
         {51 * TF, 378 * TF, 756 * TF, 756 * TF, 1513 * TF},
         80 * GB,
         2000 * GB,
         "pcie-gen5",
         "pcie-gen5",
         90,
         {"NVIDIA H100 PCIe"},
         "NVIDIA H100 datasheet, PCIe column (sparsity figures halved): FP32 51, TF32 378, "
         "BF16/FP16 756, FP8 1513 TFLOPS dense, 80 GB HBM2e at 2.0 TB/s, PCIe Gen5; the NVLink "
         "bridge is optional, so GPU-to-GPU is PCIe",
         114,
         {H200_FP32, H200_TF32, H200_16, H200_16, H200_FP8},
         "114 SMs (H100 whitepaper, PCIe)" MAMF_NOTE,
         350,
         350 * IDLE_FRAC_UNMEASURED,
         "H100 PCIe datasheet: 350 W; idle: 12.5% of TDP (the A100 and H100 SXM idle fractions, "
         "mean)"},
        {"b200",
         "NVIDIA B200 SXM 180GB",
         {75 * TF, 1100 * TF, 2250 * TF, 2250 * TF, 4500 * TF},
         180 * GB,
         7700 * GB,
         "pcie-gen5",
         "nvlink5",
         100,
         {"NVIDIA B200"},
         "NVIDIA HGX B200 specifications, per GPU (sparsity figures halved): FP32 75, TF32 1100, "
         "BF16/FP16 2250, FP8 4500 TFLOPS dense, 180 GB HBM3e at 7.7 TB/s, PCIe Gen5",
         148,
         {H200_FP32, H200_TF32, 1745.0 / 2250, 1745.0 / 2250, 3432.5 / 4500},
         "148 SMs (B200: 2 dies of 74)" MAMF_NOTE,
         1000,
         1000 * IDLE_FRAC_UNMEASURED,
         "HGX B200 specifications: 1,000 W per GPU; idle: 12.5% of TDP (the A100 and H100 idle "
         "fractions, mean)"},
        /* Ada Lovelace PCIe cards (compute capability 8.9): no NVLink, GPU to GPU over PCIe. */
        {"l40s",
         "NVIDIA L40S",
         {91.6 * TF, 183 * TF, 362.05 * TF, 362.05 * TF, 733 * TF},
         48 * GB,
         864 * GB,
         "pcie-gen4",
         "pcie-gen4",
         89,
         {"NVIDIA L40S"},
         "NVIDIA L40/L40S datasheet table (sparsity figures not taken): FP32 91.6, TF32 183, "
         "BF16/FP16 362.05, FP8 733 TFLOPS dense, 48 GB GDDR6 at 864 GB/s, PCIe Gen4 x16, NVLink "
         "not supported",
         142,
         {H200_FP32, H200_TF32, H200_16, H200_16, H200_FP8},
         "142 SMs (one RT core per SM: 142 RT cores, L40S datasheet)" MAMF_NOTE,
         350,
         350 * IDLE_FRAC_UNMEASURED,
         "L40S datasheet: 350 W; idle: 12.5% of TDP (the A100 and H100 idle fractions, mean)"},
        {"l4",
         "NVIDIA L4",
         {30.3 * TF, 60 * TF, 121 * TF, 121 * TF, 242.5 * TF},
         24 * GB,
         300 * GB,
         "pcie-gen4",
         "pcie-gen4",
         89,
         {"NVIDIA L4"},
         "NVIDIA L4 datasheet (sparsity figures halved: TF32 120, FP16 242, FP8 485): FP32 30.3, "
         "TF32 60, BF16/FP16 121, FP8 242.5 TFLOPS dense, 24 GB GDDR6 at 300 GB/s, PCIe Gen4 x16, "
         "no NVLink",
         60,
         {H200_FP32, H200_TF32, H200_16, H200_16, H200_FP8},
         "60 SMs (240 tensor cores at 4 per SM, 60 RT cores; L4 product listing)" MAMF_NOTE,
         72,
         72 * IDLE_FRAC_UNMEASURED,
         "L4 datasheet: 72 W; idle: 12.5% of TDP (the A100 and H100 idle fractions, mean)"},
        {"rtx4090",
         "NVIDIA GeForce RTX 4090",
         {82.6 * TF, 82.6 * TF, 165.2 * TF, 165.2 * TF, 330.3 * TF},
         24 * GB,
         1008 * GB,
         "pcie-gen4",
         "pcie-gen4",
         89,
         {"NVIDIA GeForce RTX 4090"},
         "NVIDIA Ada GPU architecture whitepaper, RTX 4090 column: FP32 82.6, TF32 82.6, FP16/BF16 "
         "tensor with FP32 accumulate 165.2, FP8 330.3 TFLOPS dense, 24 GB GDDR6X at 1008 GB/s, "
         "PCIe Gen4 x16; no NVLink on the GeForce 40 series",
         128,
         {H200_FP32, H200_TF32, H200_16, H200_16, H200_FP8},
         "128 SMs of AD102's 144 (Ada whitepaper)" MAMF_NOTE,
         450,
         450 * IDLE_FRAC_UNMEASURED,
         "GeForce RTX 4090 specifications: 450 W total graphics power; idle: 12.5% of TDP (the "
         "A100 and H100 idle fractions, mean)"},
        /* Blackwell in a GB200 NVL72 rack: 72 GPUs in one NVLink domain (18 compute trays of 4
         * GPUs, 9 NVLink switch trays). Per GPU: NVLink 5 at 1.8 TB/s both directions, 900 GB/s
         * each way, the nvlink5 class. What the generator does not model yet: a domain wider than a
         * node (a <cluster> node is one NVLink domain, so gpus-per-node="72" is one rack, its 18
         * trays' own network NICs then all hang off that one node), and the GPU's NVLink-C2C host
         * link to Grace (900 GB/s), taken as PCIe Gen5 for host copies. */
        {"gb200",
         "NVIDIA GB200 (Blackwell GPU, NVL72)",
         {80 * TF, 1250 * TF, 2500 * TF, 2500 * TF, 5000 * TF},
         186 * GB,
         8000 * GB,
         "pcie-gen5",
         "nvlink5",
         100,
         {"NVIDIA GB200"},
         "NVIDIA GB200 NVL72 specifications, rack totals / 72 GPUs, sparsity figures halved: FP32 "
         "5,760 TFLOPS -> 80, TF32 180 PF -> 1250, FP16/BF16 360 PF -> 2500, FP8 720 PF -> 5000 "
         "TFLOPS dense; 13.4 TB HBM3e at 576 TB/s -> 186 GB at 8 TB/s; NVLink 5 1.8 TB/s per GPU "
         "(130 TB/s per rack)",
         148,
         {H200_FP32, H200_TF32, 1745.0 / 2250, 1745.0 / 2250, 3432.5 / 4500},
         "148 SMs (the B200's Blackwell GPU); GEMM ceilings: B200 MAMF (stas00/ml-engineering)",
         1200,
         1200 * IDLE_FRAC_UNMEASURED,
         "GB200 NVL72: 1,200 W per Blackwell GPU (NVIDIA GB200 NVL72 specifications); idle: 12.5% "
         "of TDP (the A100 and H100 idle fractions, mean)"},
        /* Blackwell Ultra (HGX B300): PCIe Gen6 to its ConnectX-8 NICs, which the catalog has no
         * class for (pcie-gen5 taken); its SM count is not in the sources found. */
        {"b300",
         "NVIDIA B300 SXM 288GB",
         {75 * TF, 1125 * TF, 2250 * TF, 2250 * TF, 4500 * TF},
         288 * GB,
         8000 * GB,
         "pcie-gen5",
         "nvlink5",
         100,
         {"NVIDIA B300", "NVIDIA B300 SXM6 AC"},
         "NVIDIA HGX B300 specifications, 8-GPU totals / 8, sparsity figures halved: FP32 600 -> "
         "75, TF32 18 PF -> 1125, FP16/BF16 36 PF -> 2250, FP8 72 PF -> 4500 TFLOPS dense; 2.3 TB "
         "HBM3e -> 288 GB per GPU at 8 TB/s (G. Lockwood, B300 notes); NVLink 5 1.8 TB/s per GPU",
         148,
         {H200_FP32, H200_TF32, 1745.0 / 2250, 1745.0 / 2250, 3432.5 / 4500},
         "SM count not published in the sources found: the B200's 148 taken; GEMM ceilings: B200 "
         "MAMF (stas00/ml-engineering)",
         1100,
         1100 * IDLE_FRAC_UNMEASURED,
         "HGX B300 specifications: 1,100 W per GPU; idle: 12.5% of TDP (the A100 and H100 idle "
         "fractions, mean)"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct dataset datasets[] = {
        {"imagenet", 1281167, /* ILSVRC-2012 train images (tensorflow/models imagenet_main.py) */
         147897477120.0 / 1281167, /* its 138 GB tar (147,897,477,120 B) / images: 115.4 kB */
         3 * 224 * 224 * 4, /* torchvision's RandomResizedCrop(224) + ToTensor: float32 CHW */
         96.0 / 31278,      /* FFCV (libffcv docs/benchmarks.rst): 31,278 images/s decoding and
                               augmenting (random resized crop, flip) on a p3dn.24xlarge's 96 vCPUs:
                               3.07 ms a core, a lower bound (JIT loader, images pre-resized) */
         "ILSVRC-2012 train; FFCV decode rate"},
};

const struct dataset *catalog_dataset(const char *name)
{
    for (size_t i = 0; i < sizeof datasets / sizeof datasets[0]; i++)
        if (strcmp(datasets[i].name, name) == 0) return &datasets[i];
    return NULL;
}

const char *catalog_dataset_names(void)
{
    static char buf[256];
    size_t len = 0;
    for (size_t i = 0; i < sizeof datasets / sizeof datasets[0]; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? ", " : "",
                                datasets[i].name);
    return buf;
}

const struct link_class *catalog_link(const char *name)
{
    for (size_t i = 0; i < COUNT(links); i++)
        if (strcmp(links[i].name, name) == 0) return &links[i];
    return NULL;
}

static const struct transport transports[] = {
        {"ideal", 0, 0, 0, 0, "the wire only: no software cost (the default)"},
        {"grpc-tcp", 8e-6, 1e-9, 5.5e9, 1,
         "gRPC over TCP as TensorFlow's parameter servers used it: 8 us per message (125,000 "
         "empty messages/s on one streaming RPC, grpc/grpc issue #14378), 1 ns per byte on the "
         "receiving end (about 1 GB/s per connection, one core: grpc/grpc-java issue #7839; "
         "TensorFlow's RecvTensor at 0.9 GB/s, tensorflow/tensorflow issue #6116; the sender's "
         "tensor goes out uncopied, grpc_tensor_coding.cc), tensors copied through "
         "pageable host memory at 5.5 GB/s (5-6 GB/s, rapidsai/dask-cuda PR #98); one thread "
         "per side of a process: TensorFlow 1.x serves RecvTensor from one TF_worker_service "
         "thread (grpc_server_lib.cc) and reads answers on one grpc_worker_cache thread "
         "(grpc_worker_cache.cc)"},
        {"rdma", 0.39e-6, 0, 0, 0,
         "RDMA verbs with GPUDirect (TensorFlow's contrib/gdr, ps-lite RDMA): 0.39 us per message "
         "(2.55 million messages/s on one queue pair, openucx/ucx issue #8851), zero copy"},
};

const struct transport *catalog_transport(const char *name)
{
    for (size_t i = 0; name && i < sizeof transports / sizeof transports[0]; i++)
        if (strcmp(transports[i].name, name) == 0) return &transports[i];
    return NULL;
}

const struct transport *catalog_transports(size_t *n)
{
    *n = sizeof transports / sizeof transports[0];
    return transports;
}

const char *catalog_transport_names(void)
{
    static char buf[128];
    if (buf[0] == '\0')
        for (size_t i = 0, used = 0; i < sizeof transports / sizeof transports[0]; i++) {
            int k = snprintf(buf + used, sizeof buf - used, "%s%s", i ? ", " : "",
                             transports[i].name);
            if (k > 0 && (size_t)k < sizeof buf - used) used += (size_t)k;
        }
    return buf;
}

const struct gpu_model *catalog_gpu(const char *name)
{
    for (size_t i = 0; i < COUNT(gpus); i++)
        if (strcmp(gpus[i].name, name) == 0) return &gpus[i];
    return NULL;
}

/* The form in which device names are compared (see catalog_gpu_match): lower case, blanks
 * trimmed and collapsed, a leading "nvidia " and then "tesla " dropped. */
static void device_key(const char *name, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < len; p++) {
        if (isspace((unsigned char)*p)) {
            if (n > 0 && buf[n - 1] != ' ') buf[n++] = ' ';
        } else {
            buf[n++] = (char)tolower((unsigned char)*p);
        }
    }
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
    static const char *const vendor[] = {"nvidia ", "tesla "};
    for (size_t i = 0; i < COUNT(vendor); i++) {
        size_t k = strlen(vendor[i]);
        if (strncmp(buf, vendor[i], k) == 0) memmove(buf, buf + k, strlen(buf + k) + 1);
    }
}

const struct gpu_model *catalog_gpu_match(const char *device_name)
{
    char key[256], cand[256];
    device_key(device_name, key, sizeof key);
    for (size_t i = 0; i < COUNT(gpus); i++) {
        device_key(gpus[i].long_name, cand, sizeof cand);
        if (strcmp(key, cand) == 0) return &gpus[i];
        for (size_t k = 0; k < COUNT(gpus[i].device) && gpus[i].device[k]; k++) {
            device_key(gpus[i].device[k], cand, sizeof cand);
            if (strcmp(key, cand) == 0) return &gpus[i];
        }
    }
    return NULL;
}

const struct link_class *catalog_links(size_t *count)
{
    *count = COUNT(links);
    return links;
}

const struct gpu_model *catalog_gpus(size_t *count)
{
    *count = COUNT(gpus);
    return gpus;
}

static void join(char *buf, size_t len, size_t *used, const char *name)
{
    int n = snprintf(buf + *used, len - *used, "%s%s", *used ? ", " : "", name);
    if (n > 0 && (size_t)n < len - *used) *used += (size_t)n;
}

char *catalog_link_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < COUNT(links); i++)
        join(buf, len, &used, links[i].name);
    return buf;
}

char *catalog_gpu_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < COUNT(gpus); i++)
        join(buf, len, &used, gpus[i].name);
    return buf;
}

const char *catalog_dtype_name(enum gpu_dtype d)
{
    static const char *names[DTYPE_COUNT] = {"fp32", "tf32", "fp16", "bf16", "fp8"};
    return (d >= 0 && d < DTYPE_COUNT) ? names[d] : "?";
}

bool catalog_link_is_network(const struct link_class *lc)
{
    return lc->kind == LINK_IB || lc->kind == LINK_ROCE || lc->kind == LINK_TCP;
}
