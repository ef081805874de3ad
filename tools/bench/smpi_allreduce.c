/* smpi_allreduce.c - SMPI's reference for tools/bench.sh: one MPI_Allreduce of BYTES (floats,
 * sum) over every rank, on the platform smpirun is given. The buffers are SMPI_SHARED_MALLOC'd
 * (one copy for all ranks) so that memory does not grow with P.
 *   smpirun -np P -platform X.xml -hostfile H ./smpi_allreduce BYTES */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? (int)(atof(argv[1]) / sizeof(float)) : 1 << 20;
    float *in = SMPI_SHARED_MALLOC(n * sizeof *in), *out = SMPI_SHARED_MALLOC(n * sizeof *out);
    double t0 = MPI_Wtime();
    MPI_Allreduce(in, out, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (rank == 0) printf("%.9f s simulated\n", t);
    SMPI_SHARED_FREE(in);
    SMPI_SHARED_FREE(out);
    MPI_Finalize();
    return 0;
}
