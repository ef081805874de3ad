/* smpi_mpi.c - a trivial MPI program for SMPI (tests/smpi_route.sh): rank 0 sends 1 byte to
 * rank 1, and rank 0 prints the latency SimGrid gives the route between the two ranks' hosts
 * ("LATENCY x") and the simulated time of the exchange ("TIME x"). */
#include <mpi.h>
#include <simgrid/host.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    char byte = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    if (rank == 0) MPI_Send(&byte, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(&byte, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char peer[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(peer, &len);
    if (rank == 1) MPI_Send(peer, len + 1, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Recv(peer, sizeof peer, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("LATENCY %.17g\n", sg_host_get_route_latency(sg_host_self(), sg_host_by_name(peer)));
        printf("TIME %.17g\n", MPI_Wtime() - t0);
    }
    MPI_Finalize();
    return 0;
}
