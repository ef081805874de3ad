/* check_collective.c - collectives against their closed forms on a uniform platform.
 *
 * The platform: P nodes of one H100 each on a star of NDR NICs. Every GPU-to-GPU route is
 * PCIe Gen5 up, NIC up, switch, NIC down, PCIe Gen5 down, so every pair has the same latency
 *     a = pcie hop + ndr hop + switch port-to-port
 * and bandwidth B = min(pcie, ndr, switch port) (catalog values), and no two messages of a ring
 * step, a butterfly step or a fan-in share a link other than the receiver's or sender's own.
 * Closed forms (S bytes, CM02 alpha-beta):
 *   ring all-reduce          2 (P - 1)(a + S / (P B))
 *   naive all-reduce         2 (a + (P - 1) S / B)         (rank 0's links carry P - 1 buffers)
 *   halving-doubling, P = 2^k 2 k a + 2 (P - 1) S / (P B), plus 2 (a + S / B) otherwise
 *   ring all-gather / reduce-scatter (P - 1)(a + S / (P B))
 *   all-to-all (pairwise)    a + (P - 1) S / (P B)    (a rank's P - 1 sends share its NIC)
 *   chain broadcast, c chunks (P - 1 + c - 1)(a + S / (c B))
 *   binary tree, c chunks    see test_tree
 *   hierarchical (N nodes x G GPUs, G NICs): 2 (G - 1)(a_in + S / (G B_in))
 *                                           + 2 (N - 1)(a_out + S / (G N B_out))
 * Tolerance 0.1% (chunk sizes are rounded to whole bytes). */
#include "bench.h"
#include "testlib.h"

#include <math.h>

struct uniform {
    double a, B;
};

static struct uniform star_alpha_beta(void)
{
    const struct link_class *pcie = catalog_link("pcie-gen5"), *ndr = catalog_link("ib-ndr");
    return (struct uniform){pcie->hop_lat_s + ndr->hop_lat_s + CATALOG_SWITCH_LAT_S,
                            fmin(fmin(pcie->bw_Bps, ndr->bw_Bps), ndr->line_bw_Bps)};
}

/* Runs one collective of size_B over P ranks of `sc` and returns its time and messages. */
static double run_coll(struct scenario *sc, enum coll_op op, const char *algo, double size_B,
                       enum coll_level level, int chunks, double *messages)
{
    sc->bench.op = op;
    ck_assert(coll_algo_find(algo, &sc->bench.algo));
    sc->bench.level = level;
    sc->bench.chunks = chunks;
    return test_coll_time(sc, size_B, messages);
}

/* Cases of (P, S) run in separate forked tests (one SimGrid engine each). */
static const struct {
    int P;
    double S;
} ring_cases[] = {{2, 1e6}, {3, 64e6}, {8, 1e6}, {8, 64e6}, {16, 256e6}};

START_TEST(test_ring)
{
    int P = ring_cases[_i].P;
    double S = ring_cases[_i].S, msgs;
    struct scenario sc = test_cluster(P, 1, "h100", "nvlink4", "ib-ndr", 1);
    struct uniform u = star_alpha_beta();
    double t = run_coll(&sc, COLL_ALLREDUCE, "ring", S, COLL_MESSAGE, 1, &msgs);
    test_assert_rel(t, 2 * (P - 1) * (u.a + S / (P * u.B)), 1e-3, "ring all-reduce");
    ck_assert_double_eq(msgs, 2.0 * (P - 1) * P); /* 2 (P - 1) per rank */
    scenario_release(&sc);
}
END_TEST

START_TEST(test_naive)
{
    int P = 6;
    double S = 32e6, msgs;
    struct scenario sc = test_cluster(P, 1, "h100", "nvlink4", "ib-ndr", 1);
    struct uniform u = star_alpha_beta();
    double t = run_coll(&sc, COLL_ALLREDUCE, "naive", S, COLL_MESSAGE, 1, &msgs);
    test_assert_rel(t, 2 * (u.a + (P - 1) * S / u.B), 1e-3, "naive all-reduce");
    ck_assert_double_eq(msgs, 2.0 * (P - 1)); /* P - 1 in, P - 1 out */
    scenario_release(&sc);
}
END_TEST

static const int hd_cases[] = {4, 8, 6, 12};

START_TEST(test_halving_doubling)
{
    int P = hd_cases[_i], Pp = 1, k = 0;
    while (Pp * 2 <= P) {
        Pp *= 2;
        k++;
    }
    double S = 16e6, msgs;
    struct scenario sc = test_cluster(P, 1, "h100", "nvlink4", "ib-ndr", 1);
    struct uniform u = star_alpha_beta();
    double t = run_coll(&sc, COLL_ALLREDUCE, "halving-doubling", S, COLL_MESSAGE, 1, &msgs);
    double want = 2 * k * u.a + 2 * (Pp - 1) * S / (Pp * u.B);
    if (P != Pp) want += 2 * (u.a + S / u.B);
    test_assert_rel(t, want, 1e-3, "halving-doubling all-reduce");
    /* 2k per active rank; each of the P - Pp folded pairs adds one message each way */
    ck_assert_double_eq(msgs, 2.0 * k * Pp + 2.0 * (P - Pp));
    scenario_release(&sc);
}
END_TEST

/* Halving-doubling on 2 nodes x 4 GPUs (NVLink4 inside, one NDR NIC per GPU), MPICH's order:
 * nearest ranks first. Steps 1 and 2 (distance 1, 2: S/2, S/4) stay inside the nodes, step 3
 * (distance 4: S/8) pairs GPU j of one node with GPU j of the other over their own NICs; the
 * doubling mirrors it:
 *   2 [(a_in + S / (2 B_in)) + (a_in + S / (4 B_in)) + (a_out + S / (8 B_out))].
 * With the old farthest-first order the S/2 piece would cross the network. */
START_TEST(test_halving_doubling_nearest_first)
{
    double S = 64e6, msgs;
    struct scenario sc = test_cluster(2, 4, "h100", "nvlink4", "ib-ndr", 4);
    const struct link_class *nv = catalog_link("nvlink4");
    struct uniform out = star_alpha_beta();
    double t = run_coll(&sc, COLL_ALLREDUCE, "halving-doubling", S, COLL_MESSAGE, 1, &msgs);
    double a_in = nv->hop_lat_s, B_in = nv->bw_Bps;
    double want =
            2 * ((a_in + S / (2 * B_in)) + (a_in + S / (4 * B_in)) + (out.a + S / (8 * out.B)));
    test_assert_rel(t, want, 1e-3, "halving-doubling, nearest first");
    ck_assert_double_eq(msgs, 8.0 * 2 * 3);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_hierarchical)
{
    int N = 4, G = 4;
    double S = 64e6, msgs;
    struct scenario sc = test_cluster(N, G, "h100", "nvlink4", "ib-ndr", G);
    const struct link_class *nv = catalog_link("nvlink4");
    struct uniform out = star_alpha_beta();
    double t = run_coll(&sc, COLL_ALLREDUCE, "hierarchical", S, COLL_MESSAGE, 1, &msgs);
    double want = 2 * (G - 1) * (nv->hop_lat_s + S / (G * nv->bw_Bps)) +
                  2 * (N - 1) * (out.a + S / (G * N * out.B));
    test_assert_rel(t, want, 1e-3, "hierarchical all-reduce");
    ck_assert_double_eq(msgs, (double)N * G * (2 * (G - 1) + 2 * (N - 1)));
    scenario_release(&sc);
}
END_TEST

/* Binary tree, c chunks of s = S / c (sim/coll_tree.c: step schedule, up and down at once).
 * P = 3 (root, two leaves): step 1 brings chunk 0 up (two flows into the root), steps 2 .. c bring
 * chunk k up while chunk k - 1 goes down (two flows into and two out of the root), step c + 1
 * takes the last chunk down: c + 1 steps of a + 2 s / B.
 * P = 7 (depths 0, 1, 2), c >= 3: steps 1 .. c + 3; the busiest link in a step is a depth-1
 * rank's, carrying (into it: 2 up from its children while k <= c - 1, 1 down from the root from
 * step 3; out of it: 1 up from step 2, 2 down from step 4) 2, 2, then 3 for steps 3 .. c + 1,
 * then 2, 2: (c + 3) a + (3c + 5) s / B. */
static const struct {
    int P, chunks;
} tree_cases[] = {{3, 1}, {3, 4}, {7, 3}, {7, 8}};

START_TEST(test_tree)
{
    int P = tree_cases[_i].P, c = tree_cases[_i].chunks;
    double msgs, S = 64e6, s = S / c;
    struct scenario sc = test_cluster(P, 1, "h100", "nvlink4", "ib-ndr", 1);
    struct uniform u = star_alpha_beta();
    double t = run_coll(&sc, COLL_ALLREDUCE, "tree", S, COLL_MESSAGE, c, &msgs);
    double want = P == 3 ? (c + 1) * (u.a + 2 * s / u.B) : (c + 3) * u.a + (3 * c + 5) * s / u.B;
    test_assert_rel(t, want, 1e-3, "tree all-reduce");
    ck_assert_double_eq(msgs, 2.0 * (P - 1) * c); /* every tree edge, both ways, per chunk */
    scenario_release(&sc);
}
END_TEST

START_TEST(test_allgather_reducescatter_broadcast)
{
    int P = 8;
    double S = 80e6;
    struct scenario sc = test_cluster(P, 1, "h100", "nvlink4", "ib-ndr", 1);
    struct uniform u = star_alpha_beta();
    enum coll_op op = (enum coll_op)(COLL_ALLGATHER + _i);
    int c = 8;
    double t = run_coll(&sc, op, "ring", S, COLL_MESSAGE, c, NULL);
    double want = op == COLL_BROADCAST ? (P - 1 + c - 1) * (u.a + S / (c * u.B))
                                       : (P - 1) * (u.a + S / (P * u.B));
    test_assert_rel(t, want, 1e-3, collective_op_name(op));
    scenario_release(&sc);
}
END_TEST

static const int flow_cases[] = {8, 64, 256};

START_TEST(test_flow_level_agrees)
{
    /* Flow level: one flow per rank per phase; it must agree with message level within 1%. */
    int P = flow_cases[_i];
    double S = 100e6, mflow;
    struct scenario sc = test_cluster(P, 1, "h100", "nvlink4", "ib-ndr", 1);
    struct uniform u = star_alpha_beta();
    double t = run_coll(&sc, COLL_ALLREDUCE, "ring", S, COLL_FLOW, 1, &mflow);
    test_assert_rel(t, 2 * (P - 1) * (u.a + S / (P * u.B)), 1e-2, "flow-level ring");
    ck_assert_double_eq(mflow, 2.0 * P); /* one flow per rank per phase */
    scenario_release(&sc);
}
END_TEST

START_TEST(test_busbw_factors)
{
    /* nccl-tests doc/PERFORMANCE.md */
    ck_assert_double_eq(collective_busbw_factor(COLL_ALLREDUCE, 8), 2.0 * 7 / 8);
    ck_assert_double_eq(collective_busbw_factor(COLL_ALLGATHER, 8), 7.0 / 8);
    ck_assert_double_eq(collective_busbw_factor(COLL_REDUCESCATTER, 4), 3.0 / 4);
    ck_assert_double_eq(collective_busbw_factor(COLL_BROADCAST, 8), 1.0);
    ck_assert_ptr_null(collective_find("butterfly"));
}
END_TEST

/* All-to-all: every rank sends S / P to each of the others at once, its P - 1 sends sharing its
 * NIC: a + (P - 1) S / (P B), and P (P - 1) messages (the seed notes' "one worker sends
 * gradients to all other workers: O(N*N) fan out", 9,900 messages for 100 workers). */
START_TEST(test_alltoall)
{
    static const struct {
        int P;
        double S;
    } cases[] = {{4, 64e6}, {100, 1e6}};
    int P = cases[_i].P;
    double S = cases[_i].S, msgs;
    struct scenario sc = test_cluster(P, 1, "h100", "nvlink4", "ib-ndr", 1);
    struct uniform u = star_alpha_beta();
    double t = run_coll(&sc, COLL_ALLTOALL, "nccl", S, COLL_MESSAGE, 1, &msgs);
    test_assert_rel(t, u.a + (P - 1) * S / (P * u.B), 1e-3, "all-to-all");
    ck_assert_double_eq(msgs, (double)P * (P - 1));
    scenario_release(&sc);
}
END_TEST

static Suite *collective_suite(void)
{
    Suite *s = suite_create("collective");
    TCase *tc = tcase_create("closed-form");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_alltoall, 0, 2);
    tcase_add_loop_test(tc, test_ring, 0, sizeof ring_cases / sizeof ring_cases[0]);
    tcase_add_test(tc, test_naive);
    tcase_add_test(tc, test_halving_doubling_nearest_first);
    tcase_add_loop_test(tc, test_halving_doubling, 0, sizeof hd_cases / sizeof hd_cases[0]);
    tcase_add_test(tc, test_hierarchical);
    tcase_add_loop_test(tc, test_tree, 0, sizeof tree_cases / sizeof tree_cases[0]);
    tcase_add_loop_test(tc, test_allgather_reducescatter_broadcast, 0, 3);
    tcase_add_loop_test(tc, test_flow_level_agrees, 0, sizeof flow_cases / sizeof flow_cases[0]);
    tcase_add_test(tc, test_busbw_factors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(collective_suite());
}
