/*
 * distprobe - the cost of one quantum boundary between ranks without any simulation: the
 * allgather nicsim does at every boundary (dist.h), of BYTES bytes per rank, N times.
 *
 *   mpirun -np K build/bin/distprobe [N [BYTES [WORK0 WORK]]]   (default 20000 boundaries of 256 bytes)
 *
 * WORK0, WORK: microseconds of busy work (wall clock) rank 0 and every other rank do before each
 * boundary, as nicsim's ranks clock their nodes in a quantum; the time per boundary beyond the
 * longer of the two is then what the synchronisation adds to an imbalanced quantum (a rank that
 * waits longer than 50 us naps, dist_mpi.c).
 *
 * Rank 0 prints the median, 10th and 90th percentile and the mean wall time per boundary. The
 * 10th percentile approximates the cost on idle cores when the machine is shared. Feeds the
 * projection of docs/simulation-speed.md "Ranks" (scaling table).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    char err[200];
    dist_t *d = dist_open(&argc, &argv, "distprobe", 30, err, sizeof err);
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000, bytes = argc > 2 ? strtoul(argv[2], NULL, 0) : 256;
    double w0 = argc > 3 ? strtod(argv[3], NULL) * 1e-6 : 0, w1 = argc > 4 ? strtod(argv[4], NULL) * 1e-6 : w0;
    double work = dist_rank(d) == 0 ? w0 : w1;
    const uint8_t *const *blocks;
    const size_t *lens;
    uint8_t *buf;
    double *t, sum = 0;

    if (!d) {
        fprintf(stderr, "distprobe: %s\n", err);
        return 3;
    }
    if (n < 10 || n > 10000000 || bytes > (1u << 24) || !(w0 >= 0 && w0 < 1) || !(w1 >= 0 && w1 < 1)) {
        fprintf(stderr, "usage: distprobe [N >= 10 [BYTES [WORK0_US WORK_US]]]\n");
        return 3;
    }
    buf = calloc(bytes ? bytes : 1, 1);
    t = calloc(n, sizeof *t);
    if (!buf || !t)
        return 3;
    for (unsigned long i = 0; i < n; i++) {
        double t0 = now_s();
        while (now_s() - t0 < work) /* a quantum's work */
            ;
        buf[0] = (uint8_t)i;
        if (dist_allgather(d, buf, bytes, i, &blocks, &lens))
            dist_abort(d, DIST_EXIT_LOST);
        t[i] = now_s() - t0;
        sum += t[i];
        for (unsigned r = 0; r < dist_size(d); r++)
            if (lens[r] != bytes || (bytes && blocks[r][0] != (uint8_t)i)) {
                fprintf(stderr, "distprobe: rank %u: wrong block from rank %u\n", dist_rank(d), r);
                dist_abort(d, 1);
            }
    }
    qsort(t, n, sizeof *t, cmp);
    if (dist_rank(d) == 0)
        printf("distprobe: %u ranks (%s), %lu boundaries of %lu bytes%s: median %.1f us, p10 %.1f us, p90 %.1f us, "
               "mean %.1f us; rank 0 waited %.1f us per boundary\n",
               dist_size(d), dist_transport(d), n, bytes, w0 > 0 || w1 > 0 ? " after work" : "", t[n / 2] * 1e6,
               t[n / 10] * 1e6, t[n * 9 / 10] * 1e6, sum / (double)n * 1e6, dist_wait_s(d) / (double)n * 1e6);
    free(buf);
    free(t);
    dist_close(d);
    return 0;
}
