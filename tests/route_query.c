/* route_query.c - a plain SimGrid program, no dmlsim code: loads a platform and, before any
 * simulation (as SimGrid's C API allows), prints the latency of the route between two hosts
 * and the links on it, one per line ("LINK name"), so that tests/smpi_route.sh can add up the
 * links' latencies from the platform file itself. With ROUTE_QUERY_SEALED=1 in the environment
 * it first runs the empty simulation to time 0, which seals the platform (what a Dijkstra-routed
 * zone needs before it can route; Engine::seal_platform has no C binding in SimGrid 3.32).
 *   route_query PLATFORM.xml SRC DST */
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    simgrid_init(&argc, argv);
    if (argc != 4) {
        fprintf(stderr, "usage: route_query PLATFORM.xml SRC DST\n");
        return 2;
    }
    simgrid_load_platform(argv[1]);
    if (getenv("ROUTE_QUERY_SEALED") != NULL) simgrid_run_until(0.0);
    sg_host_t src = sg_host_by_name(argv[2]), dst = sg_host_by_name(argv[3]);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "route_query: no host %s\n", src == NULL ? argv[2] : argv[3]);
        return 2;
    }
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_get_route(src, dst, links);
    unsigned i;
    sg_link_t l;
    xbt_dynar_foreach (links, i, l)
        printf("LINK %s\n", sg_link_get_name(l));
    xbt_dynar_free(&links);
    printf("LATENCY %.17g\n", sg_host_get_route_latency(src, dst));
    return 0;
}
