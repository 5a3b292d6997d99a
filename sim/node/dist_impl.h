/* dist_impl.h - dist.c's object, shared with the MPI transport (dist_mpi.c). Internal. */
#ifndef DIST_IMPL_H
#define DIST_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "dist.h"

struct dist {
    unsigned rank, size;
    int mpi;
    const char *prog;
    double timeout_s, wait_s;
    uint64_t collectives;
    char transport[96];
    /* local transport */
    const uint8_t *one_block;
    size_t one_len;
    /* MPI transport: the gathered blocks */
    uint8_t *buf;
    size_t cap;
    const uint8_t **blocks;
    size_t *lens;
    int *counts, *displs;
    uint64_t *lens64;
    /* one exchange per boundary when every rank's block fits its slot (dist_mpi.c) */
    uint8_t *slot_out, *slot_in; /* slot bytes each: a 64-bit length, then up to slot - 8 bytes */
    size_t slot;
    uint64_t exchanges; /* MPI collectives started by dist_allgather (1 or 2 each) */
};

#ifdef NIC_HAVE_MPI
dist_t *dist_mpi_open(int *argc, char ***argv, const char *prog, double timeout_s, char *err, size_t n);
void dist_mpi_close(dist_t *d);
void dist_mpi_abort(dist_t *d, int code) __attribute__((noreturn));
int dist_mpi_allgather(dist_t *d, const void *buf, size_t len, uint64_t at, const uint8_t *const **blocks,
                       const size_t **lens);
#endif

#endif /* DIST_IMPL_H */
