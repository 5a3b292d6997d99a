/* dist_mpi.c - the MPI transport of dist.h: MPI_Iallgather / MPI_Iallgatherv polled against a
 * wall-clock timeout, errors returned (MPI_ERRORS_RETURN) and reported, never a silent hang. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dist_impl.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* SIGTERM from the launcher (another rank died, or the job was cancelled): say so, then go. */
static char term_msg[160];
static size_t term_len;
static volatile sig_atomic_t at_hi, at_lo;

static void on_term(int sig)
{
    char num[24];
    int k = 0;
    uint64_t at = (uint64_t)(uint32_t)at_hi << 32 | (uint32_t)at_lo;
    ssize_t r;
    (void)sig;
    r = write(2, term_msg, term_len);
    do
        num[sizeof num - 1 - k++] = (char)('0' + at % 10);
    while ((at /= 10) && k < 20);
    r = write(2, num + sizeof num - k, (size_t)k);
    r = write(2, ")\n", 2);
    (void)r;
    _exit(DIST_EXIT_LOST);
}

dist_t *dist_mpi_open(int *argc, char ***argv, const char *prog, double timeout_s, char *err, size_t n)
{
    int rank = 0, size = 1, len = 0, provided;
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    dist_t *d;

    if (MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        snprintf(err, n, "MPI_Init failed");
        return NULL;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    d->mpi = 1;
    d->rank = (unsigned)rank;
    d->size = (unsigned)size;
    d->prog = prog;
    d->timeout_s = timeout_s;
    MPI_Get_library_version(ver, &len);
    ver[strcspn(ver, ",\n")] = 0;
    snprintf(d->transport, sizeof d->transport, "MPI (%.80s)", ver);
    d->blocks = calloc((size_t)size, sizeof *d->blocks);
    d->lens = calloc((size_t)size, sizeof *d->lens);
    d->counts = calloc((size_t)size, sizeof *d->counts);
    d->displs = calloc((size_t)size, sizeof *d->displs);
    d->lens64 = calloc((size_t)size, sizeof *d->lens64);
    if (!d->blocks || !d->lens || !d->counts || !d->displs || !d->lens64) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    term_len = (size_t)snprintf(term_msg, sizeof term_msg,
                                "%s: rank %d: stopped by the MPI launcher (another rank died or the job was "
                                "killed; last quantum boundary at cycle ",
                                prog, rank);
    if (term_len >= sizeof term_msg)
        term_len = sizeof term_msg - 1;
    signal(SIGTERM, on_term);
    return d;
}

void dist_mpi_close(dist_t *d)
{
    (void)d;
    signal(SIGTERM, SIG_DFL);
    MPI_Finalize();
    free(d->blocks);
    free(d->lens);
    free(d->counts);
    free(d->displs);
    free(d->lens64);
}

void dist_mpi_abort(dist_t *d, int code)
{
    (void)d;
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

/* Polls req until it completes, the timeout passes (-1) or MPI reports an error (-1). */
static int wait_req(dist_t *d, MPI_Request *req, uint64_t at, const char *what)
{
    double t0 = now_s(), t;
    unsigned spins = 0;
    int done = 0, rc;

    for (;;) {
        rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            char s[MPI_MAX_ERROR_STRING];
            int l = 0;
            MPI_Error_string(rc, s, &l);
            fprintf(stderr, "%s: rank %u: MPI error in %s at cycle %llu: %s\n", d->prog, d->rank, what,
                    (unsigned long long)at, s);
            return -1;
        }
        if (done)
            break;
        /* spin a little (the other ranks are usually a few microseconds behind), then sleep in
         * short naps: on a machine with more runnable processes than cores a spinning rank would
         * take the core from the rank it waits for */
        if (++spins >= 16) {
            spins = 0;
            t = now_s();
            if (t - t0 > 50e-6) {
                struct timespec nap = { 0, 20000 };
                nanosleep(&nap, NULL);
            } else {
                sched_yield();
            }
            if (t - t0 > d->timeout_s) {
                fprintf(stderr,
                        "%s: rank %u: no word from the other ranks for %.0f s at the quantum boundary of cycle %llu "
                        "(a rank died, hangs or was stopped): aborting the run\n",
                        d->prog, d->rank, d->timeout_s, (unsigned long long)at);
                return -1;
            }
        }
    }
    d->wait_s += now_s() - t0;
    return 0;
}

int dist_mpi_allgather(dist_t *d, const void *buf, size_t len, uint64_t at, const uint8_t *const **blocks,
                       const size_t **lens)
{
    static uint8_t none;
    MPI_Request req;
    uint64_t mine = len, total = 0;

    at_hi = (sig_atomic_t)(uint32_t)(at >> 32);
    at_lo = (sig_atomic_t)(uint32_t)at;
    if (MPI_Iallgather(&mine, 1, MPI_UINT64_T, d->lens64, 1, MPI_UINT64_T, MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
        wait_req(d, &req, at, "the exchange of sizes"))
        return -1;
    for (unsigned r = 0; r < d->size; r++) {
        if (d->lens64[r] > (uint64_t)0x7fffffff - total) {
            fprintf(stderr, "%s: rank %u: a quantum's data exceeds 2 GiB at cycle %llu\n", d->prog, d->rank,
                    (unsigned long long)at);
            return -1;
        }
        d->counts[r] = (int)d->lens64[r];
        d->displs[r] = (int)total;
        total += d->lens64[r];
    }
    if (total > d->cap) {
        size_t cap = d->cap ? d->cap : 65536;
        uint8_t *b;
        while (cap < total)
            cap *= 2;
        if (!(b = realloc(d->buf, cap))) {
            fprintf(stderr, "%s: rank %u: out of memory for a quantum's data\n", d->prog, d->rank);
            return -1;
        }
        d->buf = b;
        d->cap = cap;
    }
    if (MPI_Iallgatherv(len ? buf : &none, (int)len, MPI_BYTE, d->buf, d->counts, d->displs, MPI_BYTE,
                        MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
        wait_req(d, &req, at, "the exchange of frames"))
        return -1;
    for (unsigned r = 0; r < d->size; r++) {
        d->blocks[r] = d->buf + d->displs[r];
        d->lens[r] = d->lens64[r];
    }
    *blocks = d->blocks;
    *lens = d->lens;
    return 0;
}
