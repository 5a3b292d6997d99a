/*
 * dist.h - the processes (ranks) one simulated cluster is spread over, and the one collective
 * the cluster needs: every rank's block of bytes to every rank (allgather), once per quantum.
 *
 * dist_open picks the transport: MPI when the program was started by an MPI launcher (mpirun sets
 * OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_SIZE) and the build has MPI (CMake option NIC_MPI, on
 * when FindMPI finds it); one local process otherwise, with the same interface, so a run without
 * mpirun takes exactly the code path of a run with one rank.
 *
 * Failures are clear errors, never hangs: a collective that does not complete within the timeout
 * (another rank died, hangs, or was stopped) prints which rank waited at which cycle and aborts the
 * job (MPI_Abort, exit status 4); a rank stopped by the launcher (SIGTERM, after another rank
 * died) says so before it exits.
 *
 * Contract: one dist per process; single-threaded.
 */
#ifndef DIST_H
#define DIST_H

#include <stddef.h>
#include <stdint.h>

typedef struct dist dist_t;

#define DIST_EXIT_LOST 4 /* exit status of a rank that lost its peers (timeout, killed launcher) */

/* prog names the messages ("nicsim"). timeout_s: seconds a collective may wait (0 = 120). NULL on
 * error, with the reason in err (e.g. launched by mpirun with several ranks but built without MPI). */
dist_t *dist_open(int *argc, char ***argv, const char *prog, double timeout_s, char *err, size_t n);
/* Normal end (MPI_Finalize). NULL is fine. */
void dist_close(dist_t *d);
/* Ends every rank now with status code (MPI_Abort; exit in one process). */
void dist_abort(dist_t *d, int code) __attribute__((noreturn));

unsigned dist_rank(const dist_t *d);
unsigned dist_size(const dist_t *d);
int dist_is_mpi(const dist_t *d);
/* The transport: "local" or "MPI (Open MPI 4.1.4...)" */
const char *dist_transport(const dist_t *d);

/* Every rank's block, in rank order: blocks[r], lens[r], valid until the next call. at (a cycle)
 * only labels the messages. 0, or -1 after printing why (the caller then aborts). */
int dist_allgather(dist_t *d, const void *buf, size_t len, uint64_t at, const uint8_t *const **blocks,
                   const size_t **lens);
/* The start-up check: every rank runs the same executable (hash of /proc/self/exe), with the same
 * arguments and the same input blob (e.g. the firmware image); 0, or -1 after rank 0 named each
 * rank that differs and how. Collective. */
int dist_check_same(dist_t *d, const char *prog, int argc, char **argv, const void *blob, size_t blob_len);
/* Sum of a value over the ranks (uses dist_allgather). */
uint64_t dist_sum_u64(dist_t *d, uint64_t v, uint64_t at);
/* Wall-clock seconds this rank waited in collectives (load imbalance + transport). */
double dist_wait_s(const dist_t *d);
uint64_t dist_collectives(const dist_t *d);
/* MPI exchanges those took (one per collective whose blocks all fit a slot, two otherwise; 0
 * for one local process) */
uint64_t dist_exchanges(const dist_t *d);

#endif /* DIST_H */
