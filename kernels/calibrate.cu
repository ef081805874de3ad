/* calibrate.cu - dmlsim-calibrate: measure this machine's GPUs into a dmlsim calibration file.
 *
 * What it measures, each timed with CUDA events after warm-up iterations (-w), averaged over -n:
 *   - cuBLAS GEMMs (cublasGemmEx) in FP32, TF32, FP16 and BF16 on a size grid and on the model
 *     presets' layer shapes (-s FILE, as printed by `dmlsim shapes`): achieved TFLOP/s;
 *   - memory copies: host to device and back, pageable and pinned; device to device; and GPU to
 *     GPU peer copies when there are two or more GPUs: GB/s per size;
 *   - our own kernels for the optimizer update (SGD with momentum, Adam) and gradient scaling:
 *     achieved GB/s of memory traffic against the GPU's memory bandwidth;
 *   - NCCL all-reduce, all-gather, reduce-scatter and broadcast over all local GPUs (one process,
 *     one communicator per GPU), printed with nccl-tests' columns. With one GPU collectives
 *     cannot be measured; the output and the file say so.
 * It prints the tables and writes the calibration file (-o, format in sim/calib.h). This program
 * never includes the simulator's headers: the file format is the interface.
 * Exit status: 0 done, 1 bad usage or a CUDA/cuBLAS/NCCL error, 77 no CUDA device (skipped).
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#ifndef DMLSIM_NO_NCCL
#include <nccl.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "dmlsim-calibrate: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                    cudaGetErrorString(e_));                                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CUBLAS_CHECK(call)                                                                         \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "dmlsim-calibrate: %s:%d: %s: cuBLAS status %d\n", __FILE__,         \
                    __LINE__, #call, (int)s_);                                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#ifndef DMLSIM_NO_NCCL
#define NCCL_CHECK(call)                                                                           \
    do {                                                                                           \
        ncclResult_t r_ = (call);                                                                  \
        if (r_ != ncclSuccess) {                                                                   \
            fprintf(stderr, "dmlsim-calibrate: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                    ncclGetErrorString(r_));                                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#endif

struct opts {
    double begin_B, end_B, factor; /* copy and collective sizes, like nccl-tests -b -e -f */
    int iters, warmup;             /* timed and warm-up iterations */
    const char *out;               /* calibration file */
    const char *shapes;            /* GEMM shapes file, or NULL */
    double gemm_max;               /* largest square GEMM of the grid */
};

static double parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    switch (*end) {
    case 'K':
    case 'k':
        v *= 1024;
        break;
    case 'M':
    case 'm':
        v *= 1024 * 1024;
        break;
    case 'G':
    case 'g':
        v *= 1024.0 * 1024 * 1024;
        break;
    default:
        break;
    }
    return v;
}

static void usage(void)
{
    fprintf(stderr, "usage: dmlsim-calibrate [-b SIZE] [-e SIZE] [-f FACTOR] [-n ITERS] [-w WARMUP]\n"
                    "                        [-g MAX_GEMM] [-s SHAPES] [-o FILE]\n"
                    "  sizes take K, M, G suffixes (powers of 1024), as nccl-tests\n");
}

/* ---- timing -------------------------------------------------------------------------------- */

struct timer {
    cudaEvent_t start, stop;
};

static void timer_init(struct timer *t)
{
    CUDA_CHECK(cudaEventCreate(&t->start));
    CUDA_CHECK(cudaEventCreate(&t->stop));
}

static void timer_release(struct timer *t)
{
    cudaEventDestroy(t->start);
    cudaEventDestroy(t->stop);
}

static float elapsed_ms(struct timer *t)
{
    float ms = 0;
    CUDA_CHECK(cudaEventSynchronize(t->stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
    return ms;
}

/* ---- GEMMs --------------------------------------------------------------------------------- */

struct dtype_cfg {
    const char *name;
    cudaDataType_t type;
    cublasComputeType_t compute;
    size_t elem;
};

static const struct dtype_cfg dtypes[] = {
        {"fp32", CUDA_R_32F, CUBLAS_COMPUTE_32F, 4},
        {"tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4},
        {"fp16", CUDA_R_16F, CUBLAS_COMPUTE_32F, 2},
        {"bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2},
};

static double gemm_tflops(cublasHandle_t h, const struct dtype_cfg *d, int m, int n, int k,
                          const struct opts *o)
{
    size_t bytes = ((size_t)m * k + (size_t)k * n + (size_t)m * n) * d->elem;
    size_t free_B, total_B;
    CUDA_CHECK(cudaMemGetInfo(&free_B, &total_B));
    if (bytes > free_B / 2)
        return 0; /* does not fit comfortably: skipped */
    void *a, *b, *c;
    CUDA_CHECK(cudaMalloc(&a, (size_t)m * k * d->elem));
    CUDA_CHECK(cudaMalloc(&b, (size_t)k * n * d->elem));
    CUDA_CHECK(cudaMalloc(&c, (size_t)m * n * d->elem));
    CUDA_CHECK(cudaMemset(a, 0, (size_t)m * k * d->elem));
    CUDA_CHECK(cudaMemset(b, 0, (size_t)k * n * d->elem));
    float alpha = 1, beta = 0;
    struct timer t;
    timer_init(&t);
    for (int i = 0; i < o->warmup; i++)
        CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, d->type, m, b,
                                  d->type, k, &beta, c, d->type, m, d->compute,
                                  CUBLAS_GEMM_DEFAULT));
    CUDA_CHECK(cudaEventRecord(t.start));
    for (int i = 0; i < o->iters; i++)
        CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, d->type, m, b,
                                  d->type, k, &beta, c, d->type, m, d->compute,
                                  CUBLAS_GEMM_DEFAULT));
    CUDA_CHECK(cudaEventRecord(t.stop));
    double s = elapsed_ms(&t) / 1e3 / o->iters;
    timer_release(&t);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 2.0 * m * n * k / s / 1e12;
}

static void run_gemms(FILE *out, const struct opts *o)
{
    cublasHandle_t h;
    CUBLAS_CHECK(cublasCreate(&h));
    int shapes[512][3], nshapes = 0;
    for (int s = 256; s <= o->gemm_max && nshapes < 512; s *= 4) {
        shapes[nshapes][0] = shapes[nshapes][1] = shapes[nshapes][2] = s;
        nshapes++;
    }
    if (o->shapes) {
        FILE *f = fopen(o->shapes, "r");
        if (f == NULL) {
            fprintf(stderr, "dmlsim-calibrate: %s: cannot read\n", o->shapes);
            exit(1);
        }
        char line[256];
        while (fgets(line, sizeof line, f) && nshapes < 512) {
            double m, n, k;
            if (line[0] != '#' && sscanf(line, "%lf %lf %lf", &m, &n, &k) == 3) {
                shapes[nshapes][0] = (int)m;
                shapes[nshapes][1] = (int)n;
                shapes[nshapes][2] = (int)k;
                nshapes++;
            }
        }
        fclose(f);
    }
    printf("#\n# cuBLAS GEMMs (cublasGemmEx, column-major, no transposes)\n");
    printf("#%6s %8s %8s %8s %12s\n", "dtype", "M", "N", "K", "TFLOP/s");
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
        for (int i = 0; i < nshapes; i++) {
            double tf = gemm_tflops(h, &dtypes[d], shapes[i][0], shapes[i][1], shapes[i][2], o);
            if (tf <= 0)
                continue;
            printf(" %6s %8d %8d %8d %12.2f\n", dtypes[d].name, shapes[i][0], shapes[i][1],
                   shapes[i][2], tf);
            fprintf(out, "gemm %s %d %d %d %.6g\n", dtypes[d].name, shapes[i][0], shapes[i][1],
                    shapes[i][2], tf);
        }
    cublasDestroy(h);
}

/* ---- copies -------------------------------------------------------------------------------- */

static double copy_GBps(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                        const struct opts *o)
{
    struct timer t;
    timer_init(&t);
    for (int i = 0; i < o->warmup; i++)
        CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
    CUDA_CHECK(cudaEventRecord(t.start));
    for (int i = 0; i < o->iters; i++)
        CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind));
    CUDA_CHECK(cudaEventRecord(t.stop));
    double s = elapsed_ms(&t) / 1e3 / o->iters;
    timer_release(&t);
    return bytes / s / 1e9;
}

static void run_copies(FILE *out, int ndev, const struct opts *o)
{
    size_t max = (size_t)o->end_B;
    void *dev, *dev2, *pinned, *pageable;
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaMalloc(&dev, max));
    CUDA_CHECK(cudaMalloc(&dev2, max));
    CUDA_CHECK(cudaMallocHost(&pinned, max));
    pageable = malloc(max);
    memset(pageable, 0, max);
    printf("#\n# memory copies on GPU 0\n#%14s %14s %10s\n", "kind", "size (B)", "GB/s");
    for (double s = o->begin_B; s <= o->end_B; s *= o->factor) {
        size_t b = (size_t)s;
        struct {
            const char *kind;
            void *dst;
            const void *src;
            cudaMemcpyKind k;
        } cases[] = {{"h2d-pageable", dev, pageable, cudaMemcpyHostToDevice},
                     {"h2d-pinned", dev, pinned, cudaMemcpyHostToDevice},
                     {"d2h-pageable", pageable, dev, cudaMemcpyDeviceToHost},
                     {"d2h-pinned", pinned, dev, cudaMemcpyDeviceToHost},
                     {"d2d", dev2, dev, cudaMemcpyDeviceToDevice}};
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            double g = copy_GBps(cases[i].dst, cases[i].src, b, cases[i].k, o);
            printf(" %14s %14zu %10.2f\n", cases[i].kind, b, g);
            fprintf(out, "copy %s %zu %.6g\n", cases[i].kind, b, g);
        }
        if (o->factor <= 1)
            break;
    }
    if (ndev >= 2) { /* GPU 0 -> GPU 1 peer copies (NVLink or PCIe) */
        int can = 0;
        CUDA_CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
        void *peer;
        CUDA_CHECK(cudaSetDevice(1));
        CUDA_CHECK(cudaMalloc(&peer, max));
        CUDA_CHECK(cudaSetDevice(0));
        if (can)
            cudaDeviceEnablePeerAccess(1, 0);
        for (double s = o->begin_B; s <= o->end_B; s *= o->factor) {
            size_t b = (size_t)s;
            struct timer t;
            timer_init(&t);
            for (int i = 0; i < o->warmup; i++)
                CUDA_CHECK(cudaMemcpyPeer(peer, 1, dev, 0, b));
            CUDA_CHECK(cudaEventRecord(t.start));
            for (int i = 0; i < o->iters; i++)
                CUDA_CHECK(cudaMemcpyPeerAsync(peer, 1, dev, 0, b));
            CUDA_CHECK(cudaEventRecord(t.stop));
            double g = b / (elapsed_ms(&t) / 1e3 / o->iters) / 1e9;
            timer_release(&t);
            printf(" %14s %14zu %10.2f%s\n", "peer", b, g, can ? "" : " (no peer access)");
            fprintf(out, "copy peer %zu %.6g\n", b, g);
            if (o->factor <= 1)
                break;
        }
        cudaFree(peer);
    }
    cudaFree(dev);
    cudaFree(dev2);
    cudaFreeHost(pinned);
    free(pageable);
}

/* ---- optimizer kernels --------------------------------------------------------------------- */

__global__ void sgd_momentum(float *w, const float *g, float *m, float lr, float mu, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = mu * m[i] + g[i];
        m[i] = v;
        w[i] -= lr * v;
    }
}

__global__ void adam(float *w, const float *g, float *m, float *v, float lr, float b1, float b2,
                     float eps, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float gi = g[i];
        float mi = b1 * m[i] + (1 - b1) * gi;
        float vi = b2 * v[i] + (1 - b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        w[i] -= lr * mi / (sqrtf(vi) + eps);
    }
}

__global__ void scale(float *g, float s, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        g[i] *= s;
}

static void run_kernels(FILE *out, const struct opts *o, double mem_GBps)
{
    size_t n = (size_t)o->end_B / 4;
    float *w, *g, *m, *v;
    CUDA_CHECK(cudaMalloc(&w, n * 4));
    CUDA_CHECK(cudaMalloc(&g, n * 4));
    CUDA_CHECK(cudaMalloc(&m, n * 4));
    CUDA_CHECK(cudaMalloc(&v, n * 4));
    CUDA_CHECK(cudaMemset(w, 0, n * 4));
    CUDA_CHECK(cudaMemset(g, 0, n * 4));
    CUDA_CHECK(cudaMemset(m, 0, n * 4));
    CUDA_CHECK(cudaMemset(v, 0, n * 4));
    int blocks = 1024, threads = 256;
    /* bytes moved per element: SGD+momentum reads w, g, m and writes w, m (5 x 4 B); Adam reads
     * w, g, m, v and writes w, m, v (7 x 4 B); scaling reads and writes g (2 x 4 B) */
    const char *names[] = {"sgd-momentum", "adam", "scale"};
    const double per_elem[] = {20, 28, 8};
    printf("#\n# our kernels on GPU 0 (memory bandwidth %.0f GB/s)\n#%14s %14s %10s %8s\n",
           mem_GBps, "kernel", "bytes", "GB/s", "of peak");
    for (int k = 0; k < 3; k++) {
        struct timer t;
        timer_init(&t);
        for (int i = 0; i < o->warmup + o->iters; i++) {
            if (i == o->warmup)
                CUDA_CHECK(cudaEventRecord(t.start));
            if (k == 0)
                sgd_momentum<<<blocks, threads>>>(w, g, m, 0.01f, 0.9f, n);
            else if (k == 1)
                adam<<<blocks, threads>>>(w, g, m, v, 0.001f, 0.9f, 0.999f, 1e-8f, n);
            else
                scale<<<blocks, threads>>>(g, 0.5f, n);
        }
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(t.stop));
        double s = elapsed_ms(&t) / 1e3 / o->iters, bytes = per_elem[k] * n;
        timer_release(&t);
        double gbps = bytes / s / 1e9;
        printf(" %14s %14.0f %10.2f %7.1f%%\n", names[k], bytes, gbps, 100 * gbps / mem_GBps);
        fprintf(out, "kernel %s %.0f %.6g\n", names[k], bytes, gbps);
    }
    cudaFree(w);
    cudaFree(g);
    cudaFree(m);
    cudaFree(v);
}

/* ---- NCCL collectives ---------------------------------------------------------------------- */

#ifndef DMLSIM_NO_NCCL
static void run_collectives(FILE *out, int ndev, const struct opts *o)
{
    ncclComm_t *comms = (ncclComm_t *)calloc(ndev, sizeof *comms);
    cudaStream_t *streams = (cudaStream_t *)calloc(ndev, sizeof *streams);
    float **send = (float **)calloc(ndev, sizeof *send), **recv = (float **)calloc(ndev, sizeof *recv);
    int *devs = (int *)calloc(ndev, sizeof *devs);
    size_t max = (size_t)o->end_B;
    for (int d = 0; d < ndev; d++) {
        devs[d] = d;
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaStreamCreate(&streams[d]));
        CUDA_CHECK(cudaMalloc(&send[d], max));
        CUDA_CHECK(cudaMalloc(&recv[d], max));
        CUDA_CHECK(cudaMemset(send[d], 0, max));
    }
    NCCL_CHECK(ncclCommInitAll(comms, ndev, devs));
    const char *names[] = {"allreduce", "allgather", "reducescatter", "broadcast"};
    for (int op = 0; op < 4; op++) {
        double factor = op == 0 ? 2.0 * (ndev - 1) / ndev : op == 3 ? 1.0 : (double)(ndev - 1) / ndev;
        printf("#\n# NCCL %s over %d GPUs (nccl-tests columns; size = the collective's size)\n",
               names[op], ndev);
        printf("#%12s %12s %12s %9s %9s\n", "size", "count", "time", "algbw", "busbw");
        printf("#%12s %12s %12s %9s %9s\n", "(B)", "(elements)", "(us)", "(GB/s)", "(GB/s)");
        for (double s = o->begin_B; s <= o->end_B; s *= o->factor) {
            size_t bytes = (size_t)s, count = bytes / 4;
            if (op == 1 || op == 2)
                count /= ndev; /* per-rank share, as nccl-tests */
            if (count == 0)
                continue;
            struct timer t;
            CUDA_CHECK(cudaSetDevice(0));
            timer_init(&t);
            for (int i = 0; i < o->warmup + o->iters; i++) {
                if (i == o->warmup) {
                    for (int d = 0; d < ndev; d++) {
                        CUDA_CHECK(cudaSetDevice(d));
                        CUDA_CHECK(cudaStreamSynchronize(streams[d]));
                    }
                    CUDA_CHECK(cudaSetDevice(0));
                    CUDA_CHECK(cudaEventRecord(t.start, streams[0]));
                }
                NCCL_CHECK(ncclGroupStart());
                for (int d = 0; d < ndev; d++) {
                    if (op == 0)
                        NCCL_CHECK(ncclAllReduce(send[d], recv[d], count, ncclFloat, ncclSum,
                                                 comms[d], streams[d]));
                    else if (op == 1)
                        NCCL_CHECK(ncclAllGather(send[d], recv[d], count, ncclFloat, comms[d],
                                                 streams[d]));
                    else if (op == 2)
                        NCCL_CHECK(ncclReduceScatter(send[d], recv[d], count, ncclFloat, ncclSum,
                                                     comms[d], streams[d]));
                    else
                        NCCL_CHECK(ncclBroadcast(send[d], recv[d], count, ncclFloat, 0, comms[d],
                                                 streams[d]));
                }
                NCCL_CHECK(ncclGroupEnd());
            }
            for (int d = 1; d < ndev; d++) { /* the last rank to finish ends the timing */
                CUDA_CHECK(cudaSetDevice(d));
                CUDA_CHECK(cudaStreamSynchronize(streams[d]));
            }
            CUDA_CHECK(cudaSetDevice(0));
            CUDA_CHECK(cudaEventRecord(t.stop, streams[0]));
            double sec = elapsed_ms(&t) / 1e3 / o->iters;
            timer_release(&t);
            double algbw = bytes / sec / 1e9;
            printf(" %12zu %12zu %12.2f %9.2f %9.2f\n", bytes, bytes / 4, sec * 1e6, algbw,
                   algbw * factor);
            fprintf(out, "coll %s %d %zu %.6g %.6g %.6g\n", names[op], ndev, bytes, sec * 1e6,
                    algbw, algbw * factor);
            if (o->factor <= 1)
                break;
        }
    }
    for (int d = 0; d < ndev; d++) {
        ncclCommDestroy(comms[d]);
        cudaSetDevice(d);
        cudaFree(send[d]);
        cudaFree(recv[d]);
        cudaStreamDestroy(streams[d]);
    }
    free(comms);
    free(streams);
    free(send);
    free(recv);
    free(devs);
}
#endif

int main(int argc, char **argv)
{
    struct opts o = {1 << 20, 256 << 20, 4, 20, 5, "dmlsim-calibration.txt", NULL, 8192};
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) {
            usage();
            return 1;
        }
        const char *a = argv[i], *v = argv[++i];
        if (strcmp(a, "-b") == 0)
            o.begin_B = parse_size(v);
        else if (strcmp(a, "-e") == 0)
            o.end_B = parse_size(v);
        else if (strcmp(a, "-f") == 0)
            o.factor = atof(v);
        else if (strcmp(a, "-n") == 0)
            o.iters = atoi(v);
        else if (strcmp(a, "-w") == 0)
            o.warmup = atoi(v);
        else if (strcmp(a, "-o") == 0)
            o.out = v;
        else if (strcmp(a, "-s") == 0)
            o.shapes = v;
        else if (strcmp(a, "-g") == 0)
            o.gemm_max = parse_size(v);
        else {
            usage();
            return 1;
        }
    }
    if (o.begin_B < 4 || o.end_B < o.begin_B || o.factor < 1 || o.iters < 1 || o.warmup < 0) {
        usage();
        return 1;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("dmlsim-calibrate: no CUDA device: skipped\n");
        return 77;
    }
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    char nccl_v[32] = "none";
#ifndef DMLSIM_NO_NCCL
    int nv = 0;
    if (ncclGetVersion(&nv) == ncclSuccess)
        snprintf(nccl_v, sizeof nccl_v, "%d.%d.%d", nv / 10000, (nv / 100) % 100, nv % 100);
#endif
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    /* memory bandwidth from the device's own figures: 2 (DDR) x clock x bus width */
    int mem_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
    double mem_GBps = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;

    FILE *out = fopen(o.out, "w");
    if (out == NULL) {
        fprintf(stderr, "dmlsim-calibrate: %s: cannot write\n", o.out);
        return 1;
    }
    fprintf(out, "dmlsim-calibration 1\n# written by dmlsim-calibrate; format: sim/calib.h\n");
    fprintf(out, "source measured by dmlsim-calibrate -b %.0f -e %.0f -f %g -n %d -w %d\n",
            o.begin_B, o.end_B, o.factor, o.iters, o.warmup);
    fprintf(out, "gpu %s\ncount %d\ndriver %d.%d\ncuda %d.%d\nnccl %s\ndate %s\n", prop.name, ndev,
            driver / 1000, (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10, nccl_v,
            date);
    printf("# dmlsim-calibrate: %d x %s, driver %d, CUDA runtime %d, NCCL %s, %s\n", ndev,
           prop.name, driver, runtime, nccl_v, date);
    CUDA_CHECK(cudaSetDevice(0));
    run_gemms(out, &o);
    run_copies(out, ndev, &o);
    run_kernels(out, &o, mem_GBps);
#ifndef DMLSIM_NO_NCCL
    if (ndev >= 2) {
        run_collectives(out, ndev, &o);
    } else {
        printf("#\n# collectives: one GPU: NCCL collectives cannot be measured\n");
        fprintf(out, "nocoll one GPU: NCCL collectives cannot be measured\n");
    }
#else
    printf("#\n# collectives: built without NCCL\n");
    fprintf(out, "nocoll built without NCCL\n");
#endif
    if (fclose(out) != 0) {
        fprintf(stderr, "dmlsim-calibrate: %s: cannot write\n", o.out);
        return 1;
    }
    printf("# calibration written to %s\n", o.out);
    return 0;
}
