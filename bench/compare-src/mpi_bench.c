/*
 * The MPI peer of gp-bench, for Open MPI and MPICH alike: what an operator
 * would run instead of gp on two ranks.  One-sided: MPI_Win_allocate, then
 * MPI_Win_lock_all for the whole run, and
 *   put_lat / get_lat   one MPI_Put (MPI_Get) of 8 bytes + MPI_Win_flush,
 *                       the time of one (like gp-bench's blocking put);
 *   put_bw / get_bw     a window of 1 MiB operations, then one flush;
 *   put_rate            a window of 8-byte puts, then one flush;
 * two-sided: msg_rt, an 8-byte MPI_Send / MPI_Recv ping-pong round trip.
 * Rank 0 prints "NAME VALUE" lines (us, MB/s = 10^6 B/s, messages/s), the
 * median of BATCHES batches.
 *
 * Usage: mpirun -n 2 mpi_bench [scale]   (scale multiplies the counts)
 */
#define _GNU_SOURCE /* probe.h pins to CPUs */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

#define BATCHES 9
#define BIG (1 << 20)
#define WINDOW 64

static double median(double *v)
{
    qsort(v, BATCHES, sizeof v[0], cmp);
    return v[BATCHES / 2];
}

/* Median us per operation of n one-sided operations, flushed every `every`. */
static double one_sided(MPI_Win win, char *buf, int size, int is_get, long n, long every)
{
    double t[BATCHES];
    for (int b = -1; b < BATCHES; b++) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            if (is_get)
                MPI_Get(buf, size, MPI_BYTE, 1, 0, size, MPI_BYTE, win);
            else
                MPI_Put(buf, size, MPI_BYTE, 1, 0, size, MPI_BYTE, win);
            if ((i + 1) % every == 0)
                MPI_Win_flush(1, win);
        }
        MPI_Win_flush(1, win);
        if (b >= 0)
            t[b] = (MPI_Wtime() - t0) * 1e6 / (double)n;
    }
    return median(t);
}

static double ping_pong(int rank, long n)
{
    double t[BATCHES];
    char msg[8] = { 0 };
    for (int b = -1; b < BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        if (b >= 0)
            t[b] = (MPI_Wtime() - t0) * 1e6 / (double)n;
    }
    return median(t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double scale = argc > 1 ? atof(argv[1]) : 1;
    if (size != 2 || scale <= 0) {
        if (rank == 0)
            fprintf(stderr, "mpi_bench: run on exactly 2 ranks with a positive scale\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *base, *buf = malloc(BIG);
    MPI_Win win;
    MPI_Win_allocate(BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(buf, 1, BIG);
    memset(base, 0, BIG);
    long small = (long)(20000 * scale), big = (long)(200 * scale) + WINDOW;
    double r[6] = { 0 };
    MPI_Win_lock_all(0, win);
    if (rank == 0) { /* rank 1 is passive: the MPI library serves it */
        r[0] = one_sided(win, buf, 8, 0, small, 1);
        r[1] = one_sided(win, buf, 8, 1, small, 1);
        r[2] = one_sided(win, buf, BIG, 0, big, WINDOW);
        r[3] = one_sided(win, buf, BIG, 1, big, WINDOW);
        r[4] = one_sided(win, buf, 8, 0, small * 4, WINDOW);
    }
    MPI_Win_unlock_all(win);
    r[5] = ping_pong(rank, small);
    if (rank == 0)
        printf("put_lat_us %.4f\nget_lat_us %.4f\nput_bw_MBps %.1f\nget_bw_MBps %.1f\n"
               "put_rate %.0f\nmsg_rt_us %.4f\n", r[0], r[1], BIG / r[2], BIG / r[3],
               1e6 / r[4], r[5]);
    MPI_Win_free(&win);
    free(buf);
    MPI_Finalize();
    return 0;
}
