/*
 * coro.h - cooperative host processes: coroutines scheduled by simulated cycle.
 *
 * Role map: user programs and the driver's miss thread run as coroutines on one scheduler per
 * host (or one for the whole cluster). Their blocking calls (sleep, wait for an event, yield)
 * switch back to the simulator, which resumes them when simulated time reaches their wake time.
 *
 * Implementation: glibc ucontext (makecontext/swapcontext). Each coroutine has its own mmap'ed
 * stack with a PROT_NONE guard page below it: running off the stack faults on the guard, and a
 * SIGSEGV handler on an alternate signal stack names the coroutine and aborts. A canary just
 * above the guard is checked at every switch back to the scheduler (catches writes that skipped
 * the guard). Stacks are painted so that coro_stack_peak() reports the high-water mark.
 *
 * Scheduling: a coroutine is ready at a wake cycle; coro_run(now) resumes, one at a time, every
 * coroutine whose wake cycle is <= now, in (wake cycle, sequence) order, where the sequence
 * number is taken when the coroutine blocks (or is spawned or signalled). Equal wake times thus
 * run in FIFO order of becoming ready: deterministic, independent of pointers or slots.
 *
 * Semantics of the blocking calls (only from inside a coroutine):
 *   coro_sleep_until(t)   resume at max(t, now) - if t <= now, after the others ready now
 *   coro_yield()          resume at now + 1 (so a polling loop lets simulated time advance)
 *   coro_wait(ev, deadline)  resume when ev is signalled after the call, or at deadline
 *   coro_wait_change(ev, seen, deadline)  resume when ev's count != seen (no lost wake-ups:
 *                         read coro_event_count before testing your condition, then wait on it)
 * They return SIM_OK, SIM_ETIMEDOUT (deadline) or SIM_ECANCELED (shutdown: return promptly).
 *
 * Events are counters: coro_event_signal(ev, now) increments and makes every waiter ready at
 * now, in the order they started waiting. The harness may signal from outside coroutines.
 *
 * Shutdown: coro_sched_shutdown cancels every live coroutine (their blocking calls return
 * SIM_ECANCELED) and runs them for a bounded number of rounds; any that still do not return are
 * abandoned (stack freed, counted). coro_sched_destroy shuts down first.
 *
 * Contract: single-threaded; the scheduler and events are owned by the harness; an event must
 * outlive its waiters. Bounded: max_coros live coroutines, stack_size each.
 */
#ifndef CORO_H
#define CORO_H

#include <stddef.h>
#include <stdint.h>

#include "sim_err.h"
#include "sim_time.h"

#define CORO_NAME_MAX 32

typedef struct coro_sched coro_sched_t;
typedef void (*coro_fn)(void *arg);

struct coro_config {
    uint32_t max_coros;       /* live coroutines (default 64) */
    size_t stack_size;        /* bytes per stack, rounded up to pages (default 256 KiB) */
    uint32_t max_resumes;     /* per coro_run call, a bound against coroutines that never block
                                 (default 1,000,000) */
    uint32_t shutdown_rounds; /* default 8 */
};

struct coro_waiter;

typedef struct coro_event {
    uint64_t count;
    struct coro_waiter *head, *tail; /* FIFO of waiting coroutines (internal) */
} coro_event_t;

struct coro_stats {
    uint64_t spawned, finished, canceled, abandoned, resumes;
    uint32_t live;
};

void coro_config_default(struct coro_config *cfg);
coro_sched_t *coro_sched_create(const struct coro_config *cfg); /* NULL cfg = defaults */
void coro_sched_destroy(coro_sched_t *s);                       /* NULL is fine */

/* Start fn(arg), ready at the scheduler's current time. *id (may be NULL) names it.
 * SIM_OK, SIM_EINVAL, SIM_ENOMEM (max_coros live or no stack). */
int coro_spawn(coro_sched_t *s, const char *name, coro_fn fn, void *arg, uint64_t *id);
/* Resume every coroutine due at or before now (time must not go backwards). Returns the number
 * of resumes, SIM_EBUSY if called from a coroutine, or SIM_EOVERFLOW if max_resumes was hit
 * (a coroutine that never advances time). */
int coro_run(coro_sched_t *s, sim_cycle_t now);
/* Earliest wake time (SIM_CYCLE_NEVER if every coroutine waits on an event without deadline or
 * none is live). */
sim_cycle_t coro_next_event(const coro_sched_t *s);
int coro_alive(const coro_sched_t *s, uint64_t id); /* 1 or 0 */
void coro_stats(const coro_sched_t *s, struct coro_stats *out);
/* SIM_OK if all coroutines returned, SIM_EBUSY if some had to be abandoned. */
int coro_sched_shutdown(coro_sched_t *s);

/* Events (no scheduler needed to signal). */
void coro_event_init(coro_event_t *ev);
void coro_event_signal(coro_event_t *ev, sim_cycle_t now);
uint64_t coro_event_count(const coro_event_t *ev);

/* ---- inside a coroutine ---- */
sim_cycle_t coro_now(void);
const char *coro_name(void); /* "" outside coroutines */
int coro_sleep_until(sim_cycle_t t);
int coro_sleep(sim_cycle_t dt);
int coro_yield(void);
int coro_wait(coro_event_t *ev, sim_cycle_t deadline); /* SIM_CYCLE_NEVER = no deadline */
int coro_wait_change(coro_event_t *ev, uint64_t seen, sim_cycle_t deadline);
/* Stack bounds of the running coroutine (for tests and diagnostics). */
void coro_stack_bounds(void **lo, size_t *size);
/* Deepest stack use so far of the running coroutine, in bytes. */
size_t coro_stack_peak(void);

#endif /* CORO_H */
