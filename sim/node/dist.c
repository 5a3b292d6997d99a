/* dist.c - the rank abstraction (dist.h): the local transport, and the MPI one's entry points when
 * built with NIC_HAVE_MPI (dist_mpi.c). */
#define _POSIX_C_SOURCE 200809L
#include "dist.h"
#include "dist_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int launched_by_mpi(unsigned *size)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS" };
    for (unsigned i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            *size = (unsigned)strtoul(v, NULL, 10);
            return 1;
        }
    }
    if (getenv("PMIX_RANK")) {
        *size = 0; /* unknown */
        return 1;
    }
    return 0;
}

dist_t *dist_open(int *argc, char ***argv, const char *prog, double timeout_s, char *err, size_t n)
{
    unsigned size = 1;
    dist_t *d;

    if (launched_by_mpi(&size)) {
#ifdef NIC_HAVE_MPI
        return dist_mpi_open(argc, argv, prog, timeout_s > 0 ? timeout_s : 120.0, err, n);
#else
        if (size != 1) {
            snprintf(err, n, "started by an MPI launcher with %u ranks, but this build has no MPI "
                     "(install libopenmpi-dev and rebuild: scripts/setup, scripts/build)", size);
            return NULL;
        }
#endif
    }
    (void)argc;
    (void)argv;
    d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    d->size = 1;
    d->prog = prog;
    d->timeout_s = timeout_s;
    return d;
}

void dist_close(dist_t *d)
{
    if (!d)
        return;
#ifdef NIC_HAVE_MPI
    if (d->mpi)
        dist_mpi_close(d);
#endif
    free(d->buf);
    free(d);
}

void dist_abort(dist_t *d, int code)
{
#ifdef NIC_HAVE_MPI
    if (d && d->mpi)
        dist_mpi_abort(d, code);
#endif
    (void)d;
    exit(code);
}

unsigned dist_rank(const dist_t *d)
{
    return d ? d->rank : 0;
}

unsigned dist_size(const dist_t *d)
{
    return d ? d->size : 1;
}

int dist_is_mpi(const dist_t *d)
{
    return d && d->mpi;
}

const char *dist_transport(const dist_t *d)
{
    return d && d->mpi ? d->transport : "local";
}

int dist_allgather(dist_t *d, const void *buf, size_t len, uint64_t at, const uint8_t *const **blocks,
                   const size_t **lens)
{
    d->collectives++;
#ifdef NIC_HAVE_MPI
    if (d->mpi)
        return dist_mpi_allgather(d, buf, len, at, blocks, lens);
#endif
    (void)at;
    d->one_block = buf;
    d->one_len = len;
    *blocks = &d->one_block;
    *lens = &d->one_len;
    return 0;
}

uint64_t dist_sum_u64(dist_t *d, uint64_t v, uint64_t at)
{
    const uint8_t *const *b;
    const size_t *l;
    uint64_t s = 0, x;
    if (dist_allgather(d, &v, sizeof v, at, &b, &l))
        dist_abort(d, DIST_EXIT_LOST);
    for (unsigned r = 0; r < d->size; r++) {
        memcpy(&x, b[r], sizeof x);
        s += x;
    }
    return s;
}

double dist_wait_s(const dist_t *d)
{
    return d ? d->wait_s : 0;
}

uint64_t dist_collectives(const dist_t *d)
{
    return d ? d->collectives : 0;
}

uint64_t dist_exchanges(const dist_t *d)
{
    return d ? d->exchanges : 0;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t file_hash(const char *path)
{
    uint8_t buf[65536];
    uint64_t h = 0xcbf29ce484222325ull;
    size_t k;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0)
        h = fnv(h, buf, k);
    fclose(f);
    return h;
}

int dist_check_same(dist_t *d, const char *prog, int argc, char **argv, const void *blob, size_t blob_len)
{
    static const char *const what[3] = {
        "runs a different build (executable hash)",
        "was given different options",
        "loads a different firmware image",
    };
    uint64_t mine[3], theirs[3], ref[3];
    const uint8_t *const *blocks;
    const size_t *lens;
    int bad = 0;

    if (dist_size(d) == 1)
        return 0;
    mine[0] = file_hash("/proc/self/exe");
    mine[1] = 0xcbf29ce484222325ull;
    for (int i = 1; i < argc; i++)
        mine[1] = fnv(mine[1], argv[i], strlen(argv[i]) + 1);
    mine[2] = fnv(0xcbf29ce484222325ull, blob, blob_len);
    if (dist_allgather(d, mine, sizeof mine, 0, &blocks, &lens)) {
        fprintf(stderr, "%s: rank %u: the ranks could not exchange their build ids\n", prog, dist_rank(d));
        return -1;
    }
    if (lens[0] != sizeof ref)
        return -1;
    memcpy(ref, blocks[0], sizeof ref);
    for (unsigned r = 0; r < dist_size(d); r++) {
        if (lens[r] != sizeof theirs) {
            if (dist_rank(d) == 0)
                fprintf(stderr, "%s: rank %u is not a %s of this version (start-up message of %zu bytes)\n", prog, r,
                        prog, lens[r]);
            bad = 1;
            continue;
        }
        memcpy(theirs, blocks[r], sizeof theirs);
        for (int k = 0; k < 3; k++)
            if (theirs[k] != ref[k]) {
                bad = 1;
                if (dist_rank(d) != 0)
                    continue;
                fprintf(stderr, "%s: rank %u %s than rank 0 (%016" PRIx64 " vs %016" PRIx64 "): every rank must run "
                                "the same %s with the same options and image\n",
                        prog, r, what[k], theirs[k], ref[k], prog);
            }
    }
    return bad ? -1 : 0;
}
