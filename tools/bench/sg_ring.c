/* sg_ring.c - the floor for dmlsim's message level: a raw SimGrid actor ring, no dmlsim code.
 * P actors on the first P GPU hosts of a platform (natural name order, as dmlsim ranks them)
 * run a ring all-reduce of S bytes: 2(P - 1) steps, each sending S/P bytes to the next actor and
 * receiving from the previous one, the same messages dmlsim's ring sends. Prints the simulated
 * time and the message count; tools/bench.sh times it. With "load" instead of P and BYTES it
 * only starts SimGrid, loads the platform and seals it (the floor of any run on that platform).
 *   sg_ring PLATFORM.xml P BYTES
 *   sg_ring PLATFORM.xml load */
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int P;
static double chunk_B;
static sg_mailbox_t *boxes;
static long messages;
static int token;

static void ring_actor(int argc, char **argv)
{
    int me = atoi(argv[argc - 1]);
    sg_mailbox_t next = boxes[(me + 1) % P], mine = boxes[me];
    for (int step = 0; step < 2 * (P - 1); step++) {
        sg_comm_t s = sg_mailbox_put_async(next, &token, chunk_B);
        void *got = sg_mailbox_get(mine);
        (void)got;
        sg_comm_wait(s);
        messages++;
    }
}

static int by_name(const void *a, const void *b)
{
    const char *x = sg_host_get_name(*(const sg_host_t *)a);
    const char *y = sg_host_get_name(*(const sg_host_t *)b);
    return strverscmp(x, y);
}

int main(int argc, char **argv)
{
    simgrid_init(&argc, argv);
    bool load_only = argc == 3 && strcmp(argv[2], "load") == 0;
    if (argc != 4 && !load_only) {
        fprintf(stderr, "usage: sg_ring PLATFORM.xml P BYTES | sg_ring PLATFORM.xml load\n");
        return 1;
    }
    simgrid_load_platform(argv[1]);
    if (load_only) {
        simgrid_run_until(0.0); /* seals the platform, as dmlsim does after loading */
        printf("%zu hosts loaded\n", sg_host_count());
        return 0;
    }
    P = atoi(argv[2]);
    chunk_B = atof(argv[3]) / P;
    size_t n = sg_host_count(), ngpu = 0;
    sg_host_t *hosts = sg_host_list(), *gpus = malloc(n * sizeof *gpus);
    for (size_t i = 0; i < n; i++)
        if (sg_host_get_property_value(hosts[i], "gpu") != NULL || strstr(sg_host_get_name(hosts[i]), ".gpu"))
            gpus[ngpu++] = hosts[i];
    qsort(gpus, ngpu, sizeof *gpus, by_name);
    if (P < 2 || (size_t)P > ngpu) {
        fprintf(stderr, "sg_ring: P must be 2..%zu\n", ngpu);
        return 1;
    }
    boxes = malloc((size_t)P * sizeof *boxes);
    for (int r = 0; r < P; r++) {
        char name[32];
        snprintf(name, sizeof name, "ring%d", r);
        boxes[r] = sg_mailbox_by_name(name);
    }
    for (int r = 0; r < P; r++) {
        char rank[16];
        snprintf(rank, sizeof rank, "%d", r);
        const char *args[] = {"ring", rank, NULL};
        sg_actor_create_("ring", gpus[r], ring_actor, 2, args);
    }
    simgrid_run();
    printf("%.9f s simulated, %ld messages\n", simgrid_get_clock(), messages);
    free(boxes);
    free(gpus);
    free(hosts);
    return 0;
}
