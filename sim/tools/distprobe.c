/*
 * distprobe - the cost of one quantum boundary between ranks without any simulation: the
 * allgather nicsim does at every boundary (dist.h), of BYTES bytes per rank, N times.
 *
 *   mpirun -np K build/bin/distprobe [N [BYTES]]      (default 20000 boundaries of 256 bytes)
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
    const uint8_t *const *blocks;
    const size_t *lens;
    uint8_t *buf;
    double *t, sum = 0;

    if (!d) {
        fprintf(stderr, "distprobe: %s\n", err);
        return 3;
    }
    if (n < 10 || n > 10000000 || bytes > (1u << 24)) {
        fprintf(stderr, "usage: distprobe [N >= 10 [BYTES]]\n");
        return 3;
    }
    buf = calloc(bytes ? bytes : 1, 1);
    t = calloc(n, sizeof *t);
    if (!buf || !t)
        return 3;
    for (unsigned long i = 0; i < n; i++) {
        double t0 = now_s();
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
        printf("distprobe: %u ranks (%s), %lu boundaries of %lu bytes: median %.1f us, p10 %.1f us, p90 %.1f us, "
               "mean %.1f us\n",
               dist_size(d), dist_transport(d), n, bytes, t[n / 2] * 1e6, t[n / 10] * 1e6, t[n * 9 / 10] * 1e6,
               sum / (double)n * 1e6);
    free(buf);
    free(t);
    dist_close(d);
    return 0;
}
