/* dist_mpi.c - the MPI transport of dist.h: MPI_Iallgather / MPI_Iallgatherv polled against a
 * wall-clock timeout, errors returned (MPI_ERRORS_RETURN) and reported, never a silent hang.
 *
 * One exchange per boundary in the common case: every rank sends a fixed slot of 256 bytes (its
 * block's length and up to 248 of its bytes), and only when some block is longer does a second
 * exchange (MPI_Iallgatherv) carry the rest. A slot this small is pushed into the receiver's
 * memory when it is sent, so a rank that arrives late completes as soon as it arrives: it does not
 * wait for an early rank to wake from a nap and progress the exchange (measured with distprobe
 * WORK0 WORK: docs/simulation-speed.md "Ranks"; slots of 1 KiB and more, and the former exchange
 * of the sizes followed by the data, cost the late rank up to a nap). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <sched.h>
#include <sys/prctl.h>
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
    d->slot = 256;
    d->slot_out = calloc(1, d->slot);
    d->slot_in = calloc((size_t)size, d->slot);
    if (!d->blocks || !d->lens || !d->counts || !d->displs || !d->lens64 || !d->slot_out || !d->slot_in) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    /* naps (wait_req) that last what they ask, not the default timer slack's 50 us more */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
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
    free(d->slot_out);
    free(d->slot_in);
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
    long nap_ns = 20000;
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
         * naps of 20 us doubling to 160 us: on a machine with more runnable processes than cores
         * a spinning rank would take the core from the rank it waits for, and a long wait (the
         * other rank preempted) is not worth thousands of wake-ups */
        if (++spins >= 16) {
            spins = 0;
            t = now_s();
            if (t - t0 > 50e-6) {
                struct timespec nap = { 0, nap_ns };
                nanosleep(&nap, NULL);
                nap_ns = nap_ns < 160000 ? nap_ns * 2 : nap_ns;
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
    uint64_t mine = len, total = 0, over = 0;
    size_t inl = d->slot - sizeof mine;

    at_hi = (sig_atomic_t)(uint32_t)(at >> 32);
    at_lo = (sig_atomic_t)(uint32_t)at;
    memcpy(d->slot_out, &mine, sizeof mine);
    if (len)
        memcpy(d->slot_out + sizeof mine, buf, len < inl ? len : inl);
    d->exchanges++;
    if (MPI_Iallgather(d->slot_out, (int)d->slot, MPI_BYTE, d->slot_in, (int)d->slot, MPI_BYTE, MPI_COMM_WORLD,
                       &req) != MPI_SUCCESS ||
        wait_req(d, &req, at, "the exchange of a quantum's data"))
        return -1;
    for (unsigned r = 0; r < d->size; r++) {
        memcpy(&d->lens64[r], d->slot_in + (size_t)r * d->slot, sizeof mine);
        if (d->lens64[r] > (uint64_t)0x7fffffff - total) {
            fprintf(stderr, "%s: rank %u: a quantum's data exceeds 2 GiB at cycle %llu\n", d->prog, d->rank,
                    (unsigned long long)at);
            return -1;
        }
        total += d->lens64[r];
        over |= d->lens64[r] > inl;
    }
    if (!over) { /* every block in its slot */
        for (unsigned r = 0; r < d->size; r++) {
            d->blocks[r] = d->slot_in + (size_t)r * d->slot + sizeof mine;
            d->lens[r] = d->lens64[r];
        }
        *blocks = d->blocks;
        *lens = d->lens;
        return 0;
    }
    /* the rest of the longer blocks, after their slots' bytes */
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
    total = 0;
    for (unsigned r = 0; r < d->size; r++) {
        uint64_t k = d->lens64[r] < inl ? d->lens64[r] : inl;
        memcpy(d->buf + total, d->slot_in + (size_t)r * d->slot + sizeof mine, k);
        d->counts[r] = (int)(d->lens64[r] - k);
        d->displs[r] = (int)(total + k);
        d->blocks[r] = d->buf + total;
        d->lens[r] = d->lens64[r];
        total += d->lens64[r];
    }
    d->exchanges++;
    if (MPI_Iallgatherv(len > inl ? (const uint8_t *)buf + inl : &none, (int)(len > inl ? len - inl : 0), MPI_BYTE,
                        d->buf, d->counts, d->displs, MPI_BYTE, MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
        wait_req(d, &req, at, "the exchange of a quantum's longer data"))
        return -1;
    *blocks = d->blocks;
    *lens = d->lens;
    return 0;
}
