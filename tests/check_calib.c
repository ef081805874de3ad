/* check_calib.c - calibration profiles: the nccl-tests log parser on a public log, the fit
 * against a closed form, the file format written and read back, GEMM efficiency interpolation,
 * and a measured profile changing the simulated compute exactly as its numbers say; nccl-tests
 * logs in the shapes they are posted in (tests/data/nccl/, one test per shape). */
#include "calib.h"
#include "testlib.h"
#include "strategy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

START_TEST(test_nccl_tests_log)
{
    /* tests/data/nccl-tests-4gpu-pcie.log: rows from NVIDIA/nccl issue #445 (4 GPUs, PCIe) */
    struct calib c;
    struct dmlsim_error err = {0};
    ck_assert_msg(calib_load("tests/data/nccl-tests-4gpu-pcie.log", &c, &err) == DMLSIM_OK, "%s",
                  err.msg);
    ck_assert_uint_eq(c.ncoll, 12);
    ck_assert_int_eq(c.coll[0].op, COLL_ALLREDUCE);
    ck_assert_int_eq(c.coll[0].nranks, 4);
    ck_assert_double_eq(c.coll[0].bytes, 262144);
    ck_assert(fabs(c.coll[0].time_s - 122.3e-6) < 1e-12);
    ck_assert(fabs(c.coll[11].time_s - 164854e-6) < 1e-12);
    /* the printed busbw / algbw is nccl-tests' all-reduce factor 2(n - 1)/n = 1.5 for 4 GPUs,
     * an independent check of the GPU count (within the rounding of two printed decimals) */
    for (size_t i = 0; i < c.ncoll; i++)
        ck_assert_msg(fabs(c.coll[i].busbw / c.coll[i].algbw - 1.5) < 0.01, "row %zu", i);
    /* no "# Rank" lines, no node annotation: one node taken; every line is "#" or a row */
    ck_assert_int_eq(c.coll[0].nodes, 1);
    ck_assert_int_eq(c.nodes, 0);
    ck_assert_int_eq(c.skipped, 0);
    calib_release(&c);
}
END_TEST

/* ---- nccl-tests logs as found in the wild (tests/data/nccl/, sources in SOURCES.md) ------- */

static void load_ok(const char *path, struct calib *c)
{
    struct dmlsim_error err = {0};
    ck_assert_msg(calib_load(path, c, &err) == DMLSIM_OK, "%s", err.msg);
}

/* A row as the reader must keep it: the size, and both times exactly as printed (the file's
 * microseconds times 1e-6, the same operation the reader does, so == is exact). */
static void assert_row(const struct calib *c, size_t i, double bytes, double t_us, double tin_us)
{
    ck_assert_msg(i < c->ncoll, "row %zu of %zu", i, c->ncoll);
    ck_assert_double_eq(c->coll[i].bytes, bytes);
    ck_assert_double_eq(c->coll[i].time_s, t_us * 1e-6);
    ck_assert_double_eq(c->coll[i].time_inplace_s, tin_us * 1e-6);
}

/* Every row of the log has this operation, rank and node count. */
static void assert_rows_are(const struct calib *c, enum coll_op op, int nranks, int nodes)
{
    for (size_t i = 0; i < c->ncoll; i++) {
        ck_assert_msg(c->coll[i].op == op, "row %zu: op %d", i, c->coll[i].op);
        ck_assert_msg(c->coll[i].nranks == nranks, "row %zu: %d ranks", i, c->coll[i].nranks);
        ck_assert_msg(c->coll[i].nodes == nodes, "row %zu: %d nodes", i, c->coll[i].nodes);
    }
}

/* Writes `text` to a new temporary file whose name goes into path (at least 32 bytes). */
static void write_temp(char *path, const char *text)
{
    snprintf(path, 32, "/tmp/dmlsim-log-XXXXXX");
    FILE *f = fdopen(mkstemp(path), "w");
    fputs(text, f);
    fclose(f);
}

START_TEST(test_log_single_node)
{
    /* shape 1: root column, 8 "# Rank" lines on one host (NVIDIA/nccl-tests#290). Every line is
     * a "#" line or a row, so nothing is skipped. */
    struct calib c;
    load_ok("tests/data/nccl/h100-8gpu-1node.log", &c);
    ck_assert_uint_eq(c.ncoll, 6);
    assert_row(&c, 0, 134217728, 613.3, 614.3);
    assert_row(&c, 5, 4294967296, 15870, 15773);
    assert_rows_are(&c, COLL_ALLREDUCE, 8, 1);
    ck_assert_int_eq(c.gpu_count, 8);
    ck_assert_int_eq(c.nodes, 1);
    ck_assert_str_eq(c.gpu_name, "NVIDIA H100 80GB HBM3");
    ck_assert_ptr_eq(calib_gpu(&c), catalog_gpu("h100"));
    ck_assert_str_eq(c.nccl, "");
    ck_assert_str_eq(c.net, "");
    ck_assert_int_eq(c.skipped, 0);
    calib_release(&c);
}
END_TEST

START_TEST(test_log_two_nodes)
{
    /* shape 2: 16 "# Rank" lines, 8 on worker-1 and 8 on worker-0; the srun command line is
     * understood (it names the test), every other line is "#" or a row: nothing skipped */
    struct calib c;
    load_ok("tests/data/nccl/h100-2node-16rank.log", &c);
    ck_assert_uint_eq(c.ncoll, 5);
    assert_row(&c, 0, 536870912, 11557, 11561);
    assert_row(&c, 4, 8589934592, 179148, 180166);
    assert_rows_are(&c, COLL_ALLREDUCE, 16, 2);
    ck_assert_int_eq(c.gpu_count, 16);
    ck_assert_int_eq(c.nodes, 2);
    ck_assert_str_eq(c.gpu_name, "NVIDIA H100 80GB HBM3");
    ck_assert_int_eq(c.skipped, 0);
    /* independent check of the rank count: nccl-tests prints busbw = algbw x 2(n-1)/n for an
     * all-reduce (doc/PERFORMANCE.md), 1.875 for n = 16, within two printed decimals */
    for (size_t i = 0; i < c.ncoll; i++)
        ck_assert(fabs(c.coll[i].busbw / c.coll[i].algbw - 2.0 * 15 / 16) < 0.01);
    calib_release(&c);
}
END_TEST

START_TEST(test_log_open_mpi_tag_output)
{
    /* shape 3: Open MPI --tag-output under the Kubeflow MPI operator. Skipped: the two
     * "Warning: Permanently added ..." ssh banners, nothing else (every other line is a
     * "[1,r]<stdout>:" prefix before a "#" line, an NCCL line, a row or nothing). The two rows
     * of 0 bytes are dropped, leaving sizes 4 = 2^2 ... 2^30: 29 rows. */
    struct calib c;
    load_ok("tests/data/nccl/t4-2node-tag-output.log", &c);
    ck_assert_uint_eq(c.ncoll, 29);
    for (size_t i = 0; i < c.ncoll; i++)
        ck_assert_double_eq(c.coll[i].bytes, ldexp(1, (int)i + 2));
    assert_row(&c, 0, 4, 65.70, 64.84);
    assert_row(&c, 28, 1073741824, 344981, 344454);
    assert_rows_are(&c, COLL_ALLREDUCE, 2, 2);
    ck_assert_str_eq(c.gpu_name, "Tesla T4");
    ck_assert_str_eq(c.nccl, "2.12.7");
    ck_assert_str_eq(c.net, "AWS Libfabric"); /* "Using network AWS Libfabric" */
    ck_assert_int_eq(c.skipped, 2);
    calib_release(&c);
}
END_TEST

START_TEST(test_log_srun_label)
{
    /* shape 4: srun --label puts " 0: " before every line, the last one with nothing after it;
     * N/A in the #wrong columns. Every line is a labelled "#" line, a row or empty. */
    struct calib c;
    load_ok("tests/data/nccl/h100-2node-srun-label.log", &c);
    ck_assert_uint_eq(c.ncoll, 11);
    assert_row(&c, 0, 8388608, 215.3, 180.0);
    assert_row(&c, 10, 8589934592, 103530, 103538);
    assert_rows_are(&c, COLL_ALLREDUCE, 16, 2);
    ck_assert_str_eq(c.gpu_name, "NVIDIA H100 80GB HBM3");
    ck_assert_int_eq(c.skipped, 0);
    calib_release(&c);
}
END_TEST

START_TEST(test_log_nccl_debug_info)
{
    /* shape 5: NCCL_DEBUG=INFO, INFO lines from two hosts before and after the table. Nothing
     * is skipped: the first line is the prompt and the mpirun command, then "#" lines, NCCL
     * lines (the bare "NCCL version" line among them) and rows. */
    struct calib c;
    load_ok("tests/data/nccl/a100-2node-nccl-debug.log", &c);
    ck_assert_uint_eq(c.ncoll, 28); /* 8 = 2^3 ... 2^30 */
    assert_row(&c, 0, 8, 17.59, 17.03);
    assert_row(&c, 27, 1073741824, 122177, 122222);
    assert_rows_are(&c, COLL_ALLREDUCE, 2, 2);
    ck_assert_str_eq(c.gpu_name, "NVIDIA A100-PCIE-40GB");
    ck_assert_str_eq(c.nccl, "2.21.5");
    ck_assert_str_eq(c.net, "IB"); /* "Using network IBext_v8": HPC-X's InfiniBand plugin */
    ck_assert_int_eq(c.skipped, 0);
    calib_release(&c);
    /* a transport that initialised first ("NET/Socket : Using") is not the one a channel uses
     * ("via NET/IB/0"): the channel line wins, whatever the order */
    char path[32];
    write_temp(path, "h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
                     "h:1:1 [0] NCCL INFO NET/IB : No device found.\n"
                     "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n"
                     "h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
                     "# dmlsim-nranks 2\n"
                     "8 2 float sum -1 30.5 0.00 0.00 0 29.5 0.00 0.00 0\n");
    load_ok(path, &c);
    ck_assert_str_eq(c.net, "IB");
    calib_release(&c);
    unlink(path);
}
END_TEST

START_TEST(test_log_old_layouts)
{
    /* shape 6: nccl-tests before the root column, "error" for "#wrong", "#   Rank  N Pid" rank
     * lines. Skipped, counted by hand: the first line (a prompt and "mpirun ... \", no test
     * binary on it), the six "-x ... \" continuation lines and the two SHARP "[a0000:...] INFO"
     * lines: 9. "--(snip)--" is understood (cut lines: after INFO lines, not rank lines). */
    struct calib c;
    load_ok("tests/data/nccl/a100-2node-old-layout.log", &c);
    ck_assert_uint_eq(c.ncoll, 29); /* 8 = 2^3 ... 2^31 */
    assert_row(&c, 0, 8, 22.54, 24.94);
    assert_row(&c, 28, 2147483648, 38180, 38163);
    assert_rows_are(&c, COLL_ALLREDUCE, 16, 2);
    ck_assert_str_eq(c.gpu_name, "NVIDIA A100-SXM4-40GB");
    ck_assert_str_eq(c.nccl, "");
    ck_assert_int_eq(c.skipped, 9);
    calib_release(&c);
    /* older broadcast_perf: a root column but no redop, N/A errors, NCCL WARN lines, blank
     * lines; the operation comes from the command line (nothing skipped) */
    load_ok("tests/data/nccl/v100-broadcast-old-root.log", &c);
    ck_assert_uint_eq(c.ncoll, 1);
    assert_row(&c, 0, 8, 45.82, 38.17);
    assert_rows_are(&c, COLL_BROADCAST, 2, 2);
    ck_assert_str_eq(c.gpu_name, "Tesla V100-PCIE-16GB");
    ck_assert_str_eq(c.nccl, "2.9.6");
    ck_assert_int_eq(c.skipped, 0);
    calib_release(&c);
}
END_TEST

START_TEST(test_log_crlf_indented_banner)
{
    /* shape 7: CRLF line ends, the table indented by four blanks, a container banner first.
     * Skipped: the banner's 13 lines less its 3 blank ones = 10. The GPU count is the file's
     * "# dmlsim-nranks 128"; no node count is known, so each row says 1 and c.nodes 0. */
    const char *path = "tests/data/nccl/crlf-indented-banner.log";
    char head[64] = "";
    FILE *f = fopen(path, "rb");
    ck_assert(f != NULL && fgets(head, sizeof head, f) != NULL);
    fclose(f);
    ck_assert_msg(strstr(head, "\r\n") != NULL, "%s lost its CRLF ends", path); /* the shape */
    struct calib c;
    load_ok(path, &c);
    ck_assert_uint_eq(c.ncoll, 6);
    assert_row(&c, 0, 4096, 93.73, 93.15);
    assert_row(&c, 5, 131072, 120.9, 117.4);
    assert_rows_are(&c, COLL_ALLREDUCE, 128, 1);
    ck_assert_int_eq(c.nodes, 0);
    ck_assert_str_eq(c.gpu_name, "");
    ck_assert_int_eq(c.skipped, 10);
    calib_release(&c);
}
END_TEST

START_TEST(test_log_threads_and_annotations)
{
    /* shape 8: -t 8 -g 1 posted without "# Rank" lines: 8 threads x 1 GPU = 8 ranks */
    struct calib c;
    load_ok("tests/data/nccl/h100-threads-no-rank-lines.log", &c);
    ck_assert_uint_eq(c.ncoll, 6);
    assert_row(&c, 0, 134217728, 613.3, 614.3);
    assert_row(&c, 5, 4294967296, 15870, 15773);
    assert_rows_are(&c, COLL_ALLREDUCE, 8, 1);
    ck_assert_int_eq(c.nodes, 0);
    ck_assert_int_eq(c.skipped, 0);
    calib_release(&c);
    /* -t 2 -g 4 gives 2 x 4 = 8; the annotations, where present, win over nThread x nGpus (one
     * process's view) and name the GPU */
    static const char *rows = "# nThread 2 nGpus 4 minBytes 8 maxBytes 16\n"
                              "#  size count type redop root time algbw busbw #wrong time "
                              "algbw busbw #wrong\n"
                              "8 2 float sum -1 30.5 0.00 0.00 0 29.5 0.00 0.00 0\n";
    char path[32], text[512];
    write_temp(path, rows);
    load_ok(path, &c);
    assert_rows_are(&c, COLL_ALLREDUCE, 8, 1);
    assert_row(&c, 0, 8, 30.5, 29.5);
    calib_release(&c);
    unlink(path);
    snprintf(text, sizeof text,
             "%s# dmlsim-nranks 16\n# dmlsim-nodes 2\n"
             "# dmlsim-gpu NVIDIA H100 80GB HBM3\n",
             rows);
    write_temp(path, text);
    load_ok(path, &c);
    assert_rows_are(&c, COLL_ALLREDUCE, 16, 2);
    ck_assert_int_eq(c.nodes, 2);
    ck_assert_ptr_eq(calib_gpu(&c), catalog_gpu("h100"));
    calib_release(&c);
    unlink(path);
}
END_TEST

START_TEST(test_log_two_tests)
{
    /* shape 9: all_reduce_perf_mpi then all_gather_perf_mpi in one file, each announced by
     * "# Collective test starting:". Skipped, by hand: in each test's preamble the two bare
     * "Authorization required ..." lines and the two "[1,r]<stderr>:Authorization ..." lines
     * (the bare "[1,r]<stderr>:" prefixes are empty lines): 2 x 4 = 8. */
    struct calib c;
    load_ok("tests/data/nccl/rtx5090-allreduce-then-allgather.log", &c);
    ck_assert_uint_eq(c.ncoll, 16);
    for (size_t i = 0; i < c.ncoll; i++)
        ck_assert_int_eq(c.coll[i].op, i < 8 ? COLL_ALLREDUCE : COLL_ALLGATHER);
    assert_row(&c, 0, 1048576, 4366.46, 4365.21);
    assert_row(&c, 7, 134217728, 58479.5, 58055.4);
    assert_row(&c, 8, 1048576, 2188.10, 2188.66);
    assert_row(&c, 15, 134217728, 29635.6, 29242.8);
    for (size_t i = 0; i < c.ncoll; i++) /* two ranks sharing one GPU on host "lab" */
        ck_assert(c.coll[i].nranks == 2 && c.coll[i].nodes == 1);
    ck_assert_str_eq(c.gpu_name, "NVIDIA GeForce RTX 5090");
    /* "nccl-library=22907": NCCL_VERSION_CODE 2 x 10000 + 29 x 100 + 7 (nccl.h) */
    ck_assert_str_eq(c.nccl, "2.29.7");
    ck_assert_int_eq(c.skipped, 8);
    calib_release(&c);
}
END_TEST

START_TEST(test_log_without_rows)
{
    /* shape 10: a run that hung after NCCL's init (NVIDIA/nccl#1320): 21 lines, no row */
    const char *path = "tests/data/nccl/a100-hung-no-rows.log";
    struct calib c;
    struct dmlsim_error err = {0};
    ck_assert_int_eq(calib_load(path, &c, &err), DMLSIM_EVALUE);
    ck_assert_str_eq(err.msg, "tests/data/nccl/a100-hung-no-rows.log:21: no nccl-tests result "
                              "rows (21 lines read); expected nccl-tests output with \"size "
                              "count type ...\" rows");
    /* the same lines with a row after them: "NET/IB : No device found" says nothing, the
     * "NET/Socket : Using" line names the network */
    char text[8192], tmp[32];
    FILE *f = fopen(path, "r");
    size_t n = fread(text, 1, sizeof text - 200, f);
    fclose(f);
    snprintf(text + n, sizeof text - n,
             "#  size count type redop root time algbw busbw #wrong "
             "time algbw busbw #wrong\n"
             "8 2 float sum -1 30.5 0.00 0.00 0 29.5 0.00 0.00 0\n");
    write_temp(tmp, text);
    load_ok(tmp, &c);
    ck_assert_uint_eq(c.ncoll, 1);
    assert_rows_are(&c, COLL_ALLREDUCE, 2, 1);
    ck_assert_str_eq(c.net, "Socket");
    ck_assert_str_eq(c.nccl, "2.21.5");
    ck_assert_str_eq(c.gpu_name, "NVIDIA A100-SXM4-80GB");
    calib_release(&c);
    unlink(tmp);
    /* an empty file: line 0, 0 lines */
    write_temp(tmp, "");
    ck_assert_int_eq(calib_load(tmp, &c, &err), DMLSIM_EVALUE);
    char want[128];
    snprintf(want, sizeof want, "%s:0: no nccl-tests result rows (0 lines read)", tmp);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
    unlink(tmp);
}
END_TEST

START_TEST(test_log_long_and_torn_lines)
{
    /* A line longer than the reader's buffer, made of row-looking text that would give fake
     * rows if it were cut into pieces; a row torn by interleaved output (MPICH "[0]" prefixes
     * inside it, as in NVIDIA/nccl#1453); a row cut after its out-of-place half, whose 9 fields
     * would pass for an out-of-place-only row were it not for the 13-field header above it: all
     * three skipped, the rows around them kept. */
    static const char *row = "   1048576   262144  float  sum  -1  10.0  1.0  1.0  0  10.0  1.0  "
                             "1.0  0";
    size_t len = 20000, used = 0;
    char *text = malloc(len);
    used += (size_t)snprintf(text, len,
                             "# dmlsim-nranks 2\n#  size count type redop root time "
                             "algbw busbw #wrong time algbw busbw #wrong\n"
                             "8 2 float sum -1 19.90 0.00 0.00 0 18.96 0.00 0.00 0\n");
    while (used + strlen(row) + 400 < len)
        used += (size_t)snprintf(text + used, len - used, "%s", row);
    used += (size_t)snprintf(text + used, len - used,
                             "\n[0]      1048576        262144     float     sum      -1[0]    "
                             "1626.5    0.64    1.24      0[0]    2302.3    0.46    0.87      0\n"
                             "[0]     4096     1024  float  sum  -1  21.01  0.19  0.19  0\n"
                             "16 4 float sum -1 20.67 0.00 0.00 0 19.10 0.00 0.00 0");
    char path[32];
    write_temp(path, text); /* the last line has no newline */
    free(text);
    struct calib c;
    load_ok(path, &c);
    ck_assert_uint_eq(c.ncoll, 2);
    assert_row(&c, 0, 8, 19.90, 18.96);
    assert_row(&c, 1, 16, 20.67, 19.10);
    ck_assert_int_eq(c.skipped, 3);
    calib_release(&c);
    unlink(path);
}
END_TEST

START_TEST(test_log_more_prefixes)
{
    /* Prefixes the data files do not show: a UTF-8 byte-order mark, SkyPilot/Ray's
     * "(head, rank=0, pid=3808) " before Open MPI's tag (as in a SkyPilot nccl-tests run on
     * H200s), kubectl --timestamps, kubectl --prefix, MPICH's "[0] ". Nothing is skipped. */
    char path[32];
    write_temp(path, "\xEF\xBB\xBF(head, rank=0, pid=3808) [1,0]<stdout>:# nThread 1 nGpus 1 "
                     "minBytes 8 maxBytes 8\n"
                     "(head, rank=0, pid=3808) [1,0]<stdout>:#  Rank  0 Group  0 Pid   7774 on "
                     "nc-d87e1263-head device  0 [0000:8f:00] NVIDIA H200\n"
                     "(head, rank=0, pid=3808) [1,0]<stdout>:#  Rank  1 Group  0 Pid   2781 on "
                     "nc-d87e1263-worker1 device  0 [0000:8f:00] NVIDIA H200\n"
                     "2025-01-03T09:37:10.123456789Z [1,0]<stdout>:#  size count type redop root "
                     "time algbw busbw #wrong time algbw busbw #wrong\n"
                     "2025-01-03T09:37:11.5Z [1,0]<stdout>:  8 2 float sum -1 30.5 0.00 0.00 0 "
                     "29.5 0.00 0.00 0\n"
                     "[pod/nccl-launcher-x/launcher] [1,0]<stdout>:  16 4 float sum -1 31.5 0.00 "
                     "0.00 0 30.5 0.00 0.00 0\n"
                     "[0]   32 8 float sum -1 32.5 0.00 0.00 0 31.5 0.00 0.00 0\n");
    struct calib c;
    load_ok(path, &c);
    ck_assert_uint_eq(c.ncoll, 3);
    assert_row(&c, 0, 8, 30.5, 29.5);
    assert_row(&c, 2, 32, 32.5, 31.5);
    assert_rows_are(&c, COLL_ALLREDUCE, 2, 2);
    ck_assert_str_eq(c.gpu_name, "NVIDIA H200");
    ck_assert_int_eq(c.skipped, 0);
    calib_release(&c);
    unlink(path);
}
END_TEST

START_TEST(test_log_tests_runs_and_unknown_ranks)
{
    /* an alltoall run (modelled: kept, 2 ranks from nThread x nGpus, count = size / (2 x 4 B));
     * a build line and an ls listing name binaries without options after them: not commands
     * (skipped, and the rows after them stay all_gather's); a test dmlsim does not model
     * (sendrecv): its rows dropped, counted as skipped, its run told */
    static const char *text =
            "# Collective test starting: alltoall_perf\n"
            "# nThread 1 nGpus 2 minBytes 8 maxBytes 16\n"
            "16 2 float none -1 20.1 0.00 0.00 0 20.2 0.00 0.00 N/A\n"
            "32 4 float none -1 20.3 0.00 0.00 0 20.4 0.00 0.00 N/A\n"
            "./build/all_gather_perf -b 8 -e 16 -f 2 -g 2\n"
            "# nThread 1 nGpus 2 minBytes 8 maxBytes 16\n"
            "Linking  build/reduce_scatter.o > build/reduce_scatter_perf\n"
            "reduce_scatter_perf  sendrecv_perf\n"
            "8 1 float none -1 30.1 0.00 0.00 0 30.2 0.00 0.00 0\n"
            "16 2 float none -1 30.3 0.00 0.00 0 30.4 0.00 0.00 0\n"
            /* a second table pasted with its rank lines but not its nThread line or its command:
             * rank lines come before a run's rows, so they start a new run (4 ranks on 2 hosts),
             * whose operation comes from its rows (count = size / (4 x 4 B), in place checked) */
            "#  Rank  0 Group  0 Pid  7 on a device  0 [0x1a] NVIDIA H100 80GB HBM3\n"
            "#  Rank  1 Group  0 Pid  8 on a device  1 [0x1b] NVIDIA H100 80GB HBM3\n"
            "#  Rank  2 Group  0 Pid  7 on b device  0 [0x1a] NVIDIA H100 80GB HBM3\n"
            "#  Rank  3 Group  0 Pid  8 on b device  1 [0x1b] NVIDIA H100 80GB HBM3\n"
            "16 1 float none -1 40.1 0.00 0.00 0 40.2 0.00 0.00 0\n"
            "./build/sendrecv_perf -b 8 -e 8 -g 2\n"
            "# nThread 1 nGpus 2 minBytes 8 maxBytes 8\n"
            "8 2 float none -1 10.1 0.00 0.00 0 10.2 0.00 0.00 0\n";
    char path[32];
    write_temp(path, text);
    struct calib c;
    load_ok(path, &c);
    ck_assert_uint_eq(c.ncoll, 5);
    assert_row(&c, 0, 16, 20.1, 20.2);
    assert_row(&c, 2, 8, 30.1, 30.2);
    assert_row(&c, 4, 16, 40.1, 40.2);
    static const enum coll_op ops[] = {COLL_ALLTOALL, COLL_ALLTOALL, COLL_ALLGATHER,
                                       COLL_ALLGATHER, COLL_ALLGATHER};
    for (size_t i = 0; i < c.ncoll; i++) {
        ck_assert_int_eq(c.coll[i].op, ops[i]);
        ck_assert_int_eq(c.coll[i].nranks, (i < 4 ? 2 : 4));
        ck_assert_int_eq(c.coll[i].nodes, (i < 4 ? 1 : 2));
    }
    ck_assert_int_eq(c.gpu_count, 4);
    ck_assert_int_eq(c.nodes, 2);
    ck_assert_int_eq(c.skipped, 3); /* the build line, the listing, sendrecv's row */
    ck_assert_uint_eq(c.nrun, 4);
    ck_assert_msg(strstr(c.run[0].read, "alltoall from \"Collective test starting\" at line 1") &&
                          strstr(c.run[0].read, "2 ranks from the count column (line 3: count = "
                                                "size / (2 x 4 B)), nThread x nGpus agrees"),
                  "%s", c.run[0].read);
    ck_assert_msg(strstr(c.run[2].read, "allgather from the rows' columns (line 15") &&
                          strstr(c.run[2].read, "4 ranks from the rank lines (lines 11-14)") &&
                          strstr(c.run[2].read, "the count column agrees") &&
                          strstr(c.run[2].read, "2 nodes from the hosts"),
                  "%s", c.run[2].read);
    ck_assert_int_eq(c.run[3].op, COLL_NOPS); /* sendrecv: told, not simulated */
    ck_assert_uint_eq(c.run[3].n, 0);
    calib_release(&c);
    unlink(path);
    /* rows with no way to count their GPUs: an error at the first row's line */
    write_temp(path, "# a table without its header lines\n"
                     "8 2 float sum -1 30.1 0.00 0.00 0 30.2 0.00 0.00 0\n");
    struct dmlsim_error err = {0};
    ck_assert_int_eq(calib_load(path, &c, &err), DMLSIM_EVALUE);
    char want[128];
    snprintf(want, sizeof want, "%s:2: cannot tell how many GPUs", path);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
    unlink(path);
}
END_TEST

/* ---- issue 29: the reader never guesses silently ------------------------------------------ */

/* Loads `path` with the user's statements `o`, expecting an error whose message contains every
 * one of the NULL-ended strings. */
static void load_fails(const char *path, const struct calib_opts *o, ...)
{
    struct calib c;
    struct dmlsim_error err = {0};
    ck_assert_int_eq(calib_load_opts(path, o, &c, &err), DMLSIM_EVALUE);
    va_list ap;
    va_start(ap, o);
    for (const char *want = va_arg(ap, const char *); want; want = va_arg(ap, const char *))
        ck_assert_msg(strstr(err.msg, want) != NULL, "\"%s\" not in: %s", want, err.msg);
    va_end(ap);
}

/* Writes `path`'s lines less those containing `drop` (NULL: none), then `extra`, to a new
 * temporary file whose name goes into tmp. */
static void copy_temp(char *tmp, const char *path, const char *drop, const char *extra)
{
    FILE *in = fopen(path, "r");
    ck_assert_ptr_nonnull(in);
    static char text[65536];
    size_t used = 0;
    char line[4096];
    while (fgets(line, sizeof line, in))
        if (!drop || !strstr(line, drop)) used += (size_t)snprintf(text + used, sizeof text - used, "%s", line);
    fclose(in);
    snprintf(text + used, sizeof text - used, "%s", extra ? extra : "");
    write_temp(tmp, text);
}

START_TEST(test_log_operation_from_the_rows)
{
    /* all_gather_perf launched by a wrapper (google/dranet): no binary named anywhere, every row
     * "none" and count = size / (16 x 4 B). Read as all-reduce before issue 29. */
    struct calib c;
    load_ok("tests/data/nccl/b200-2x8-allgather-wrapper.log", &c);
    ck_assert_uint_eq(c.ncoll, 8);
    assert_rows_are(&c, COLL_ALLGATHER, 16, 2);
    ck_assert_uint_eq(c.nrun, 1);
    ck_assert_msg(strstr(c.run[0].read, "allgather from the rows' columns (line 31: redop none, "
                                        "count = size / (16 x 4 B), root -1; in-place #wrong "
                                        "checked"),
                  "%s", c.run[0].read);
    calib_release(&c);
    /* alltoall_perf, named by its command line and "Collective test starting": kept (it was
     * "no nccl-tests result rows" before: alltoall's rows were dropped) */
    load_ok("tests/data/nccl/rtx6000d-2x8-alltoall.log", &c);
    ck_assert_uint_eq(c.ncoll, 14);
    assert_rows_are(&c, COLL_ALLTOALL, 16, 2);
    assert_row(&c, 0, 1024, 55.66, 29.21);
    ck_assert_msg(strstr(c.run[0].read, "alltoall from \"Collective test starting\" at line 10"),
                  "%s", c.run[0].read);
    calib_release(&c);
    /* the same log through a wrapper (no name): all-to-all from its in-place #wrong "N/A"
     * (nccl-tests does not check alltoall in place); it was all-reduce before */
    char tmp[32];
    copy_temp(tmp, "tests/data/nccl/rtx6000d-2x8-alltoall.log", "alltoall_perf", NULL);
    load_ok(tmp, &c);
    assert_rows_are(&c, COLL_ALLTOALL, 16, 2);
    ck_assert_msg(strstr(c.run[0].read, "in-place #wrong N/A"), "%s", c.run[0].read);
    calib_release(&c);
    /* --op (struct calib_opts) against the rows: all-reduce is not a table of "none" rows */
    struct calib_opts o = {.op = COLL_ALLREDUCE};
    load_fails(tmp, &o, ":33: the rows (redop none, count = size / (16 x 4 B), root -1) are not "
                        "those of allreduce, which --op names", NULL);
    unlink(tmp);
}
END_TEST

START_TEST(test_log_name_against_rows)
{
    /* the command line names all_reduce_perf, the rows are all-gather's: an error naming both */
    char path[32];
    write_temp(path, "./build/all_reduce_perf -b 8 -e 16 -f 2 -g 2\n"
                     "# nThread 1 nGpus 2 minBytes 8 maxBytes 16\n"
                     "8 1 float none -1 30.1 0.00 0.00 0 30.2 0.00 0.00 0\n");
    load_fails(path, NULL, ":3: the rows (redop none, count = size / (2 x 4 B), root -1) are not "
                           "those of allreduce, which the command line at line 1 "
                           "(all_reduce_perf) names", NULL);
    /* a dmlsim-op line and the command line that disagree */
    unlink(path);
    write_temp(path, "# dmlsim-op alltoall\n./build/all_gather_perf -b 8 -e 16 -f 2 -g 2\n"
                     "# nThread 1 nGpus 2 minBytes 8 maxBytes 16\n"
                     "8 1 float none -1 30.1 0.00 0.00 0 30.2 0.00 0.00 0\n");
    load_fails(path, NULL, ":2: the dmlsim-op line (line 1) names alltoall, but the command line "
                           "at line 2 (all_gather_perf) names allgather", NULL);
    unlink(path);
}
END_TEST

START_TEST(test_log_elided_rank_lines)
{
    /* coreweave/nccl-tests: rank lines 0-4 of one host, then "...": 5 GPUs on 1 node before
     * issue 29; busbw/algbw is 2(n-1)/n for n = 32 in every row */
    const char *path = "tests/data/nccl/a100-32rank-elided-coreweave.log";
    struct calib c;
    load_ok(path, &c);
    ck_assert_uint_eq(c.ncoll, 8);
    assert_rows_are(&c, COLL_ALLREDUCE, 32, 1); /* nodes not told: the rows say 1 */
    ck_assert_int_eq(c.run[0].nranks, 32);
    ck_assert_int_eq(c.run[0].nodes, 0);
    ck_assert_msg(strstr(c.run[0].read, "32 ranks from busbw/algbw") &&
                          strstr(c.run[0].read, "nodes not told"),
                  "%s", c.run[0].read);
    calib_release(&c);
    /* the user says 4 nodes */
    struct calib_opts o = {.nodes = 4, .op = -1};
    struct dmlsim_error err = {0};
    ck_assert_msg(calib_load_opts(path, &o, &c, &err) == DMLSIM_OK, "%s", err.msg);
    assert_rows_are(&c, COLL_ALLREDUCE, 32, 4);
    calib_release(&c);
    /* hints count once rank lines exist (they were ignored before issue 29) */
    char tmp[32];
    copy_temp(tmp, path, NULL, "# dmlsim-nranks 32\n# dmlsim-nodes 4\n");
    load_ok(tmp, &c);
    assert_rows_are(&c, COLL_ALLREDUCE, 32, 4);
    ck_assert_msg(strstr(c.run[0].read, "32 ranks from the dmlsim-nranks line (line 32), "
                                        "busbw/algbw agrees"),
                  "%s", c.run[0].read);
    calib_release(&c);
    unlink(tmp);
    /* a hint or an option that contradicts the rows: an error naming both */
    copy_temp(tmp, path, NULL, "# dmlsim-nranks 16\n");
    load_fails(tmp, NULL, ":32: the dmlsim-nranks line (line 32) gives 16 ranks, but busbw/algbw "
                          "(lines ", "gives 32", NULL);
    unlink(tmp);
    o = (struct calib_opts){.nranks = 64, .op = -1};
    load_fails(path, &o, "--nranks gives 64 ranks, but busbw/algbw", "gives 32", NULL);
    o = (struct calib_opts){.nranks = 4, .op = -1};
    load_fails(path, &o, "--nranks gives 4 ranks, but the rank lines (lines 9-13, 5 of rank ids "
                         "up to 4, elided at line 14) gives at least 5", NULL);
}
END_TEST

START_TEST(test_log_rank_lines_against_rows)
{
    /* the rank lines of an 8-GPU H100 run (NVIDIA/nccl-tests#290's row) cut to 4 without a mark:
     * they give 4 ranks, the row's busbw/algbw 8 */
    char tmp[32];
    struct calib c;
    static const char *rows =
            "#  Rank  0 Group  0 Pid  7 on a device  0 [0x1a] NVIDIA H100 80GB HBM3\n"
            "#  Rank  1 Group  0 Pid  8 on a device  1 [0x1b] NVIDIA H100 80GB HBM3\n"
            "#  Rank  2 Group  0 Pid  9 on a device  2 [0x1c] NVIDIA H100 80GB HBM3\n"
            "#  Rank  3 Group  0 Pid 10 on a device  3 [0x1d] NVIDIA H100 80GB HBM3\n"
            "   134217728      33554432     float     sum      -1    613.3  218.83  382.96      0"
            "    614.3  218.49  382.36      0\n";
    write_temp(tmp, rows);
    load_fails(tmp, NULL, ":5: the rank lines (lines 1-4) gives 4 ranks, but busbw/algbw (lines 5 "
                          "and 5: 382.96 / 218.83 and 382.96 / 218.83, 2(n-1)/n) gives 8", NULL);
    unlink(tmp);
    /* one process of -g 8 with more processes: busbw/algbw 16 is a multiple of nThread x nGpus 8
     * (fine), 12 is not (an error) */
    write_temp(tmp, "# nThread 1 nGpus 8 minBytes 8 maxBytes 8\n"
                    "   134217728      33554432     float     sum      -1    613.3  218.83  410.31"
                    "      0    614.3  218.49  409.67      0\n");
    load_ok(tmp, &c);
    assert_rows_are(&c, COLL_ALLREDUCE, 16, 1);
    ck_assert_msg(strstr(c.run[0].read, "16 ranks from busbw/algbw") &&
                          strstr(c.run[0].read, "nThread x nGpus agrees") == NULL,
                  "%s", c.run[0].read);
    calib_release(&c);
    unlink(tmp);
    write_temp(tmp, "# nThread 1 nGpus 8 minBytes 8 maxBytes 8\n"
                    "   134217728      33554432     float     sum      -1    613.3  218.83  401.19"
                    "      0    614.3  218.49  400.57      0\n");
    load_fails(tmp, NULL, "busbw/algbw (lines 2 and 2: 401.19 / 218.83 and 401.19 / 218.83, "
                          "2(n-1)/n) gives 12 ranks, but nThread 1 x nGpus 8 (line 1) gives a "
                          "multiple of 8", NULL);
    unlink(tmp);
}
END_TEST

START_TEST(test_log_rccl_refused)
{
    /* rccl-tests (AMD's RCCL, ROCm/ROCm#5571): named and refused, not read as NCCL's */
    load_fails("tests/data/nccl/rccl-radeon-2node-issue5571.log", NULL,
               "tests/data/nccl/rccl-radeon-2node-issue5571.log:9: an rccl-tests log (AMD's RCCL: "
               "\"rccl-tests: Version develop:33cc4df\"); dmlsim models NCCL on NVIDIA GPUs and "
               "has no model of RCCL",
               NULL);
    /* the same without its banner: the AMD device of its rank lines tells it */
    char tmp[32];
    copy_temp(tmp, "tests/data/nccl/rccl-radeon-2node-issue5571.log", "rccl-tests:", NULL);
    load_fails(tmp, NULL, ":10: an rccl-tests log (AMD's RCCL: \"AMD\")", NULL);
    unlink(tmp);
}
END_TEST

START_TEST(test_calib_file_nodes)
{
    /* the node counts survive calib_write and calib_load; files without them still load */
    struct calib c = calib_default();
    c.gpu_count = 16;
    c.nodes = 2;
    snprintf(c.net, sizeof c.net, "IB");
    struct calib_coll r = {COLL_ALLREDUCE, 16, 1 << 20, 100e-6, 10.49, 19.66, 2, 0, 0};
    c.coll = malloc(sizeof *c.coll);
    c.coll[c.ncoll++] = r;
    char path[] = "/tmp/dmlsim-calib-XXXXXX";
    FILE *f = fdopen(mkstemp(path), "w");
    calib_write(&c, f);
    fclose(f);
    calib_release(&c);
    load_ok(path, &c);
    ck_assert_int_eq(c.nodes, 2);
    ck_assert_str_eq(c.net, "IB");
    ck_assert_uint_eq(c.ncoll, 1);
    ck_assert_int_eq(c.coll[0].nodes, 2);
    ck_assert_int_eq(c.coll[0].nranks, 16);
    calib_release(&c);
    f = fopen(path, "w"); /* as kernels/dmlsim-calibrate writes it: no NODES field */
    fprintf(f, "dmlsim-calibration 1\ncoll allreduce 8 1048576 100 10.49 18.35\n");
    fclose(f);
    load_ok(path, &c);
    ck_assert_int_eq(c.coll[0].nodes, 1);
    ck_assert_int_eq(c.nodes, 0);
    calib_release(&c);
    f = fopen(path, "w");
    fprintf(f, "dmlsim-calibration 1\ncoll allreduce 8 1048576 100 10.49 18.35 0\n");
    fclose(f);
    struct dmlsim_error err = {0};
    ck_assert_int_eq(calib_load(path, &c, &err), DMLSIM_EVALUE);
    char want[64];
    snprintf(want, sizeof want, "%s:2: bad calibration record \"coll\"", path);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
    unlink(path);
}
END_TEST

/* Writes a profile whose all-reduce sweep follows t = 2(n-1)(alpha + S/(n B)) exactly. */
static void write_synthetic(const char *path, int n, double alpha, double B)
{
    struct calib c = calib_default();
    snprintf(c.gpu_name, sizeof c.gpu_name, "NVIDIA H100 80GB HBM3");
    c.gpu_count = n;
    for (double s = 1024; s <= 1 << 30; s *= 4) {
        struct calib_coll r = {
                COLL_ALLREDUCE, n, s, 2 * (n - 1) * (alpha + s / (n * B)), 0, 0, 1, 0, 0};
        c.coll = realloc(c.coll, (c.ncoll + 1) * sizeof *c.coll);
        c.coll[c.ncoll++] = r;
    }
    FILE *f = fopen(path, "w");
    calib_write(&c, f);
    fclose(f);
    calib_release(&c);
}

START_TEST(test_fit_recovers_alpha_beta)
{
    char path[] = "/tmp/dmlsim-calib-XXXXXX";
    close(mkstemp(path));
    write_synthetic(path, 8, 3.4e-6, 123e9);
    struct calib c;
    struct dmlsim_error err = {0};
    ck_assert_msg(calib_load(path, &c, &err) == DMLSIM_OK, "%s", err.msg);
    struct calib_fit fit;
    ck_assert_int_eq(calib_fit(&c, COLL_ALLREDUCE, 8, &fit), 0);
    /* the file keeps 6 significant digits of each time: the fit is exact to about 1e-5 */
    ck_assert_msg(fabs(fit.alpha_s / 3.4e-6 - 1) < 1e-4, "alpha %g", fit.alpha_s);
    ck_assert_msg(fabs(fit.bw_Bps / 123e9 - 1) < 1e-4, "bandwidth %g", fit.bw_Bps);
    ck_assert_int_eq(fit.points, 11);
    ck_assert_int_eq(calib_fit(&c, COLL_ALLGATHER, 8, &fit), -1); /* nothing measured */
    ck_assert_ptr_eq(calib_gpu(&c), catalog_gpu("h100"));
    calib_release(&c);
    unlink(path);
}
END_TEST

START_TEST(test_spec_roundtrip_and_interpolation)
{
    char path[] = "/tmp/dmlsim-calib-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    calib_write_spec(catalog_gpu("a100"), f);
    fclose(f);
    struct calib c;
    struct dmlsim_error err = {0};
    ck_assert_msg(calib_load(path, &c, &err) == DMLSIM_OK, "%s", err.msg);
    const struct gpu_model *g = catalog_gpu("a100");
    ck_assert_ptr_eq(calib_gpu(&c), g);
    for (double fl = 1e6; fl < 1e15; fl *= 10) /* the spec profile is flat at 0.78 */
        ck_assert(fabs(calib_gemm_eff(&c, g, DTYPE_BF16, fl) - 0.78) < 1e-6);
    ck_assert(fabs(calib_memory_rate(&c, g) - g->mem_bw_Bps * 0.92) < 1e-3 * g->mem_bw_Bps);
    calib_release(&c);
    /* two measured FP32 GEMMs: 2 x 256^3 FLOPs at 30% of peak, 2 x 4096^3 at 90%; halfway in
     * log(FLOPs) the efficiency is halfway: 60% (linear interpolation in log FLOPs) */
    f = fopen(path, "w");
    fprintf(f,
            "dmlsim-calibration 1\ngpu NVIDIA A100-SXM4-80GB\ngemm fp32 256 256 256 %g\n"
            "gemm fp32 4096 4096 4096 %g\n",
            0.3 * 19.5, 0.9 * 19.5);
    fclose(f);
    ck_assert_msg(calib_load(path, &c, &err) == DMLSIM_OK, "%s", err.msg);
    double lo = 2 * pow(256, 3), hi = 2 * pow(4096, 3), mid = sqrt(lo * hi);
    ck_assert(fabs(calib_gemm_eff(&c, g, DTYPE_FP32, mid) - 0.6) < 1e-9);
    ck_assert(fabs(calib_gemm_eff(&c, g, DTYPE_FP32, lo / 100) - 0.3) < 1e-9); /* clamped */
    ck_assert(fabs(calib_gemm_eff(&c, g, DTYPE_FP32, hi * 100) - 0.9) < 1e-9);
    ck_assert(fabs(calib_gemm_eff(&c, g, DTYPE_TF32, mid) - 0.78) < 1e-9); /* not measured */
    calib_release(&c);
    unlink(path);
}
END_TEST

START_TEST(test_bad_file)
{
    char path[] = "/tmp/dmlsim-calib-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "dmlsim-calibration 1\ngemm fp32 256 256 256 10\ngemm fp64 1 1 1 1\n");
    fclose(f);
    struct calib c;
    struct dmlsim_error err = {0};
    ck_assert_int_eq(calib_load(path, &c, &err), DMLSIM_EVALUE);
    char want[64];
    snprintf(want, sizeof want, "%s:3: bad calibration record \"gemm\"", path);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
    unlink(path);
}
END_TEST

START_TEST(test_profile_changes_compute)
{
    /* One H100, one dense layer 4096 -> 4096 (2 x 4096^2 FLOPs per sample), batch 256, FP32 SGD.
     * A profile measuring FP32 GEMMs at 50% of peak at every size and the optimizer kernels at
     * 1000 GB/s: step = 3 x 2 x 4096^2 x 256 / (67e12 x 0.5) + 12 B x (4096^2 + 4096) / 1e12. */
    char path[] = "/tmp/dmlsim-calib-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "dmlsim-calibration 1\ngpu NVIDIA H100\ngemm fp32 1024 1024 1024 33.5\n"
               "kernel sgd-momentum 1000000 1000\n");
    fclose(f);
    struct calib cal;
    struct dmlsim_error err = {0};
    ck_assert_msg(calib_load(path, &cal, &err) == DMLSIM_OK, "%s", err.msg);
    struct scenario sc = test_cluster(1, 1, "h100", "nvlink4", NULL, 1);
    double h = 4096;
    sc.model.present = true;
    model_init(&sc.model.explicit_, "dense");
    model_add(&sc.model.explicit_, "fc", h * h + h, 2 * h * h, -1, 0);
    model_set_gemm(&sc.model.explicit_, h, 1, h);
    sc.train = (struct train_spec){.strategy = STRAT_ALLREDUCE,
                                   .algo = COLL_ALGO_RING,
                                   .batch = 256,
                                   .steps = 2,
                                   .dtype = DTYPE_FP32,
                                   .opt = OPT_SGD,
                                   .bucket_B = 25e6,
                                   .overlap = true,
                                   .timeout_s = 3600,
                                   .chunks = 1,
                                   .line = 1};
    struct platform *pf = test_load(&sc);
    struct model m;
    struct run_record res;
    scenario_build_model(&sc, &m);
    test_train(&sc, pf, &m, &cal, &res);
    double want = 3 * 2 * h * h * 256 / (67e12 * 0.5) + 12 * (h * h + h) / 1e12;
    ck_assert_msg(fabs(test_step(&res, 1)->time_s - want) < 1e-9 * want, "step %.12g, closed form %.12g",
                  test_step(&res, 1)->time_s, want);
    run_release(&res);
    model_release(&m);
    platform_free(pf);
    scenario_release(&sc);
    calib_release(&cal);
    unlink(path);
}
END_TEST

static Suite *calib_suite(void)
{
    Suite *s = suite_create("calib");
    TCase *tc = tcase_create("profiles");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_nccl_tests_log);
    tcase_add_test(tc, test_log_single_node);
    tcase_add_test(tc, test_log_two_nodes);
    tcase_add_test(tc, test_log_open_mpi_tag_output);
    tcase_add_test(tc, test_log_srun_label);
    tcase_add_test(tc, test_log_nccl_debug_info);
    tcase_add_test(tc, test_log_old_layouts);
    tcase_add_test(tc, test_log_crlf_indented_banner);
    tcase_add_test(tc, test_log_threads_and_annotations);
    tcase_add_test(tc, test_log_two_tests);
    tcase_add_test(tc, test_log_without_rows);
    tcase_add_test(tc, test_log_long_and_torn_lines);
    tcase_add_test(tc, test_log_more_prefixes);
    tcase_add_test(tc, test_log_tests_runs_and_unknown_ranks);
    tcase_add_test(tc, test_log_operation_from_the_rows);
    tcase_add_test(tc, test_log_name_against_rows);
    tcase_add_test(tc, test_log_elided_rank_lines);
    tcase_add_test(tc, test_log_rank_lines_against_rows);
    tcase_add_test(tc, test_log_rccl_refused);
    tcase_add_test(tc, test_calib_file_nodes);
    tcase_add_test(tc, test_fit_recovers_alpha_beta);
    tcase_add_test(tc, test_spec_roundtrip_and_interpolation);
    tcase_add_test(tc, test_bad_file);
    tcase_add_test(tc, test_profile_changes_compute);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(calib_suite());
}
