/*
 * coro.c - cycle-keyed coroutine scheduler over glibc ucontext (see coro.h).
 *
 * Role map:
 *   stacks         mmap + PROT_NONE guard page + canary + paint; guard registry for the handler
 *   overflow       SIGSEGV handler on an alternate stack: names the coroutine, aborts
 *   ready heap     indexed binary min-heap on (wake, seq); each coroutine is in it at most once
 *   events         counters with an intrusive FIFO of waiters
 *   coro_run       resumes due coroutines one at a time; reaps finished ones
 *   blocking calls park the current coroutine and swap back to the scheduler
 */
#define _GNU_SOURCE
#include "coro.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/*
 * Under AddressSanitizer (the sanitizer job, tests/ci/sanitize_host.sh) every stack switch is
 * announced, so ASan tracks which stack is live and does not mistake a coroutine's frames for a
 * stack overflow or leave poisoned shadow behind (its swapcontext interceptor alone "may produce
 * false positives"). Without ASan these compile to nothing.
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define FIBER_START(save, bottom, size) __sanitizer_start_switch_fiber((save), (bottom), (size))
#define FIBER_FINISH(save, bottom, size) __sanitizer_finish_switch_fiber((save), (bottom), (size))
#else
#define FIBER_START(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#define FIBER_FINISH(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#endif

/*
 * The stack switch. glibc's swapcontext saves and restores the signal mask with a system call on
 * every switch: in a busy 2-node stream that was ~5 % of the simulator's CPU (perf: swapcontext,
 * rt_sigprocmask and the kernel's copies). On x86-64 (without ASan, whose sanitizer job keeps
 * ucontext and its fiber annotations) a coroutine switches with coro_ctx_switch: the callee-saved
 * registers, MXCSR and the x87 control word on the old stack, its stack pointer saved, the new one
 * loaded. Coroutines never change the signal mask, so nothing is lost; nothing simulated depends on
 * how the host switches stacks (the identity tests compare pin hashes and reports).
 */
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(CORO_UCONTEXT)
#define CORO_FAST 1
void coro_ctx_switch(void **save_sp, void *load_sp);
__asm__(".text\n"
        ".p2align 4\n"
        ".type coro_ctx_switch, @function\n"
        "coro_ctx_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    subq $8, %rsp\n"
        "    stmxcsr (%rsp)\n"
        "    fnstcw 4(%rsp)\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    ldmxcsr (%rsp)\n"
        "    fldcw 4(%rsp)\n"
        "    addq $8, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size coro_ctx_switch, .-coro_ctx_switch\n");
#else
#define CORO_FAST 0
#endif

#define CANARY_BYTES 64
#define PAINT 0xC5
#define GUARD_REG_MAX 1024

struct coro_waiter {
    struct coro_waiter *next, *prev;
    coro_event_t *ev;
    struct coro *co;
};

struct coro {
    struct coro_waiter w; /* linked on w.ev while waiting */
    coro_sched_t *s;
    uint64_t id;
    char name[CORO_NAME_MAX];
    coro_fn fn;
    void *arg;
    ucontext_t ctx;
    uint8_t *map;
    size_t map_len;
    uint8_t *stack_lo; /* lowest usable byte (just above the guard page) */
    size_t stack_size;
    sim_cycle_t wake;
    uint64_t seq;
    int heap_pos; /* -1 when not in the heap */
    int wake_reason;
    bool in_use, done, canceled;
    void *asan_fake; /* ASan's fake stack of this coroutine while it is switched out */
    void *sp;        /* CORO_FAST: its saved stack pointer while switched out */
};

struct coro_sched {
    struct coro_config cfg;
    struct coro *coros;
    struct coro **heap;
    uint32_t nheap;
    uint64_t next_seq, next_id;
    sim_cycle_t now;
    ucontext_t main_ctx;
    void *main_sp; /* CORO_FAST: the scheduler's saved stack pointer while a coroutine runs */
    const void *main_bottom; /* the scheduler's stack, for the switch back (ASan) */
    size_t main_size;
    struct coro *current;
    size_t page;
    struct coro_stats st;
};

/* From the running stack (its saved state into *save_sp / *save) to another (load_sp / load). */
static inline void stack_switch(void **save_sp, void *load_sp, ucontext_t *save, const ucontext_t *load)
{
#if CORO_FAST
    (void)save, (void)load;
    coro_ctx_switch(save_sp, load_sp);
#else
    (void)save_sp, (void)load_sp;
    swapcontext(save, load);
#endif
}

/* The scheduler running a coroutine right now (single-threaded simulator). */
static struct coro *cur;

/* ---- guard registry and overflow handler ---- */

static struct {
    uintptr_t lo, hi;
    const char *name;
} guards[GUARD_REG_MAX];
static bool handler_installed;
static struct sigaction old_segv;
static uint8_t alt_stack[65536];

static void put_str(const char *s)
{
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

static void segv_handler(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;

    (void)uc;
    for (unsigned i = 0; i < GUARD_REG_MAX; i++) {
        if (guards[i].hi && a >= guards[i].lo && a < guards[i].hi) {
            put_str("coro: FATAL: stack overflow in coroutine '");
            put_str(guards[i].name);
            put_str("' (hit its guard page)\n");
            signal(SIGABRT, SIG_DFL);
            abort();
        }
    }
    /* Not ours: hand back to whatever was there before and re-fault. */
    sigaction(sig, &old_segv, NULL);
}

/* (Re)installs the handler if someone else (a test framework, a debugger helper) replaced it
 * since, keeping theirs as the fallback for faults that are not ours. */
static void install_handler(void)
{
    stack_t ss;
    struct sigaction sa, now;

    if (!handler_installed) {
        ss.ss_sp = alt_stack;
        ss.ss_size = sizeof alt_stack;
        ss.ss_flags = 0;
        sigaltstack(&ss, NULL);
    }
    if (sigaction(SIGSEGV, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == segv_handler)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = segv_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    handler_installed = true;
}

static void guard_register(const struct coro *c)
{
    for (unsigned i = 0; i < GUARD_REG_MAX; i++)
        if (!guards[i].hi) {
            guards[i].lo = (uintptr_t)c->map;
            guards[i].name = c->name;
            guards[i].hi = (uintptr_t)c->stack_lo;
            return;
        }
}

static void guard_unregister(const struct coro *c)
{
    for (unsigned i = 0; i < GUARD_REG_MAX; i++)
        if (guards[i].lo == (uintptr_t)c->map && guards[i].hi)
            guards[i].hi = 0;
}

/* ---- heap ---- */

static bool before(const struct coro *a, const struct coro *b)
{
    return a->wake < b->wake || (a->wake == b->wake && a->seq < b->seq);
}

static void heap_set(coro_sched_t *s, uint32_t i, struct coro *c)
{
    s->heap[i] = c;
    c->heap_pos = (int)i;
}

static void sift_up(coro_sched_t *s, uint32_t i)
{
    struct coro *c = s->heap[i];

    while (i > 0 && before(c, s->heap[(i - 1) / 2])) {
        heap_set(s, i, s->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(s, i, c);
}

static void sift_down(coro_sched_t *s, uint32_t i)
{
    struct coro *c = s->heap[i];

    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        struct coro *best = c;
        if (l < s->nheap && before(s->heap[l], best)) {
            m = l;
            best = s->heap[l];
        }
        if (l + 1 < s->nheap && before(s->heap[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        heap_set(s, i, s->heap[m]);
        i = m;
    }
    heap_set(s, i, c);
}

static void heap_remove(coro_sched_t *s, struct coro *c)
{
    uint32_t i = (uint32_t)c->heap_pos;

    if (c->heap_pos < 0)
        return;
    c->heap_pos = -1;
    if (--s->nheap == i)
        return;
    heap_set(s, i, s->heap[s->nheap]);
    sift_up(s, i);
    sift_down(s, (uint32_t)s->heap[i]->heap_pos);
}

/* Make c ready at wake (a new sequence number: FIFO among equal wake times). */
static void schedule(coro_sched_t *s, struct coro *c, sim_cycle_t wake)
{
    heap_remove(s, c);
    c->wake = wake;
    c->seq = s->next_seq++;
    heap_set(s, s->nheap++, c);
    sift_up(s, s->nheap - 1);
}

/* ---- events ---- */

void coro_event_init(coro_event_t *ev)
{
    memset(ev, 0, sizeof *ev);
}

uint64_t coro_event_count(const coro_event_t *ev)
{
    return ev->count;
}

static void waiter_unlink(struct coro_waiter *w)
{
    coro_event_t *ev = w->ev;

    if (!ev)
        return;
    if (w->prev)
        w->prev->next = w->next;
    else
        ev->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        ev->tail = w->prev;
    w->next = w->prev = NULL;
    w->ev = NULL;
}

void coro_event_signal(coro_event_t *ev, sim_cycle_t now)
{
    ev->count++;
    while (ev->head) {
        struct coro_waiter *w = ev->head;
        struct coro *c = w->co;
        waiter_unlink(w);
        c->wake_reason = SIM_OK;
        schedule(c->s, c, sim_cycle_max(now, c->s->now));
    }
}

/* ---- scheduler ---- */

void coro_config_default(struct coro_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->max_coros = 64;
    cfg->stack_size = 256 * 1024;
    cfg->max_resumes = 1000000;
    cfg->shutdown_rounds = 8;
}

coro_sched_t *coro_sched_create(const struct coro_config *cfg)
{
    struct coro_config def;
    coro_sched_t *s;

    if (!cfg) {
        coro_config_default(&def);
        cfg = &def;
    }
    if (cfg->max_coros == 0 || cfg->max_coros > 65536 || cfg->stack_size < 16384 || cfg->max_resumes == 0)
        return NULL;
    s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cfg = *cfg;
    s->page = (size_t)sysconf(_SC_PAGESIZE);
    s->cfg.stack_size = (cfg->stack_size + s->page - 1) / s->page * s->page;
    s->coros = calloc(cfg->max_coros, sizeof *s->coros);
    s->heap = calloc(cfg->max_coros, sizeof *s->heap);
    if (!s->coros || !s->heap) {
        free(s->coros);
        free(s->heap);
        free(s);
        return NULL;
    }
    s->next_id = 1;
    install_handler();
    return s;
}

static void coro_release(coro_sched_t *s, struct coro *c)
{
    heap_remove(s, c);
    waiter_unlink(&c->w);
    guard_unregister(c);
    munmap(c->map, c->map_len);
    c->map = NULL;
    c->in_use = false;
    s->st.live--;
}

static void trampoline(void)
{
    struct coro *c = cur;

    FIBER_FINISH(NULL, &c->s->main_bottom, &c->s->main_size);
    c->fn(c->arg);
    c->done = true;
    FIBER_START(NULL, c->s->main_bottom, c->s->main_size); /* this stack is not resumed again */
    stack_switch(&c->sp, c->s->main_sp, &c->ctx, &c->s->main_ctx);
    abort(); /* (never resumed) */
}

int coro_spawn(coro_sched_t *s, const char *name, coro_fn fn, void *arg, uint64_t *id)
{
    struct coro *c = NULL;

    if (!fn)
        return SIM_EINVAL;
    for (uint32_t i = 0; i < s->cfg.max_coros && !c; i++)
        if (!s->coros[i].in_use)
            c = &s->coros[i];
    if (!c)
        return SIM_ENOMEM;
    memset(c, 0, sizeof *c);
    c->map_len = s->cfg.stack_size + s->page;
    c->map = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (c->map == MAP_FAILED) {
        c->map = NULL;
        return SIM_ENOMEM;
    }
    if (mprotect(c->map, s->page, PROT_NONE) != 0) {
        munmap(c->map, c->map_len);
        c->map = NULL;
        return SIM_ENOMEM;
    }
    c->stack_lo = c->map + s->page;
    c->stack_size = s->cfg.stack_size;
    memset(c->stack_lo, PAINT, c->stack_size);
    c->s = s;
    c->id = s->next_id++;
    snprintf(c->name, sizeof c->name, "%s", name ? name : "coro");
    c->fn = fn;
    c->arg = arg;
    c->w.co = c;
    c->heap_pos = -1;
    c->in_use = true;
#if CORO_FAST
    {
        /* the first switch in pops what coro_ctx_switch pushes and returns into trampoline, with
         * the stack as a call leaves it (16-byte aligned before the call: rsp = 8 mod 16) */
        uint64_t *top = (uint64_t *)(void *)(c->stack_lo + c->stack_size), *sp = top - 9;
        uint32_t fpu[2];
        __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(fpu[0]), "=m"(fpu[1]));
        memcpy(&sp[0], fpu, sizeof fpu);               /* MXCSR, x87 control word: the scheduler's */
        for (unsigned i = 1; i <= 6; i++)
            sp[i] = 0;                                 /* r15, r14, r13, r12, rbx, rbp */
        sp[7] = (uint64_t)(uintptr_t)trampoline;       /* ret */
        sp[8] = 0;                                     /* trampoline's return address: none */
        c->sp = sp;
    }
#else
    getcontext(&c->ctx);
    c->ctx.uc_stack.ss_sp = c->stack_lo;
    c->ctx.uc_stack.ss_size = c->stack_size;
    c->ctx.uc_link = NULL;
    makecontext(&c->ctx, trampoline, 0);
#endif
    guard_register(c);
    s->st.spawned++;
    s->st.live++;
    schedule(s, c, s->now);
    if (id)
        *id = c->id;
    return SIM_OK;
}

static bool canary_intact(const struct coro *c)
{
    for (unsigned i = 0; i < CANARY_BYTES; i++)
        if (c->stack_lo[i] != PAINT)
            return false;
    return true;
}

int coro_run(coro_sched_t *s, sim_cycle_t now)
{
    int resumes = 0;

    if (cur)
        return SIM_EBUSY;
    if (now > s->now)
        s->now = now;
    while (s->nheap && s->heap[0]->wake <= s->now) {
        struct coro *c = s->heap[0];

        if ((uint32_t)resumes >= s->cfg.max_resumes)
            return SIM_EOVERFLOW;
        heap_remove(s, c);
        cur = c;
        s->current = c;
        void *main_fake = NULL;
        FIBER_START(&main_fake, c->stack_lo, c->stack_size);
        stack_switch(&s->main_sp, c->sp, &s->main_ctx, &c->ctx);
        FIBER_FINISH(main_fake, NULL, NULL);
        cur = NULL;
        s->current = NULL;
        resumes++;
        s->st.resumes++;
        if (!canary_intact(c)) {
            fprintf(stderr, "coro: FATAL: stack overflow in coroutine '%s' (canary overwritten)\n", c->name);
            fflush(stderr);
            abort();
        }
        if (c->done) {
            s->st.finished++;
            coro_release(s, c);
        }
    }
    return resumes;
}

sim_cycle_t coro_next_event(const coro_sched_t *s)
{
    return s->nheap ? s->heap[0]->wake : SIM_CYCLE_NEVER;
}

int coro_alive(const coro_sched_t *s, uint64_t id)
{
    for (uint32_t i = 0; i < s->cfg.max_coros; i++)
        if (s->coros[i].in_use && s->coros[i].id == id)
            return 1;
    return 0;
}

void coro_stats(const coro_sched_t *s, struct coro_stats *out)
{
    *out = s->st;
}

int coro_sched_shutdown(coro_sched_t *s)
{
    int rc = SIM_OK;

    if (cur)
        return SIM_EBUSY;
    for (uint32_t round = 0; round < s->cfg.shutdown_rounds && s->st.live; round++) {
        for (uint32_t i = 0; i < s->cfg.max_coros; i++) {
            struct coro *c = &s->coros[i];
            if (!c->in_use)
                continue;
            if (!c->canceled) {
                c->canceled = true;
                s->st.canceled++;
            }
            waiter_unlink(&c->w);
            schedule(s, c, s->now);
        }
        if (coro_run(s, s->now) < 0)
            break;
    }
    for (uint32_t i = 0; i < s->cfg.max_coros; i++) {
        if (s->coros[i].in_use) {
            coro_release(s, &s->coros[i]);
            s->st.abandoned++;
            rc = SIM_EBUSY;
        }
    }
    return rc;
}

void coro_sched_destroy(coro_sched_t *s)
{
    if (!s)
        return;
    coro_sched_shutdown(s);
    free(s->coros);
    free(s->heap);
    free(s);
}

/* ---- inside a coroutine ---- */

sim_cycle_t coro_now(void)
{
    return cur ? cur->s->now : 0;
}

const char *coro_name(void)
{
    return cur ? cur->name : "";
}

/* Switch back to the scheduler; returns the reason we were resumed. */
static int park(struct coro *c)
{
    FIBER_START(&c->asan_fake, c->s->main_bottom, c->s->main_size);
    stack_switch(&c->sp, c->s->main_sp, &c->ctx, &c->s->main_ctx);
    FIBER_FINISH(c->asan_fake, &c->s->main_bottom, &c->s->main_size);
    return c->canceled ? SIM_ECANCELED : c->wake_reason;
}

int coro_sleep_until(sim_cycle_t t)
{
    struct coro *c = cur;

    if (!c)
        return SIM_EINVAL;
    if (c->canceled) /* parked until the next shutdown round resumes it */
        return park(c);
    c->wake_reason = SIM_OK;
    schedule(c->s, c, sim_cycle_max(t, c->s->now));
    return park(c);
}

int coro_sleep(sim_cycle_t dt)
{
    return coro_sleep_until(sim_cycle_add(coro_now(), dt));
}

int coro_yield(void)
{
    return coro_sleep_until(sim_cycle_add(coro_now(), 1));
}

int coro_wait_change(coro_event_t *ev, uint64_t seen, sim_cycle_t deadline)
{
    struct coro *c = cur;

    if (!c || !ev)
        return SIM_EINVAL;
    if (c->canceled) /* parked until the next shutdown round resumes it */
        return park(c);
    if (ev->count != seen)
        return SIM_OK;
    if (deadline <= c->s->now)
        return SIM_ETIMEDOUT;
    c->w.ev = ev;
    c->w.next = NULL;
    c->w.prev = ev->tail;
    if (ev->tail)
        ev->tail->next = &c->w;
    else
        ev->head = &c->w;
    ev->tail = &c->w;
    c->wake_reason = SIM_ETIMEDOUT; /* unless a signal comes first */
    if (deadline != SIM_CYCLE_NEVER)
        schedule(c->s, c, deadline);
    else
        heap_remove(c->s, c);
    {
        int r = park(c);
        waiter_unlink(&c->w); /* woken by the deadline: leave the event's list */
        return r;
    }
}

int coro_wait(coro_event_t *ev, sim_cycle_t deadline)
{
    if (!ev)
        return SIM_EINVAL;
    return coro_wait_change(ev, ev->count, deadline);
}

void coro_stack_bounds(void **lo, size_t *size)
{
    if (lo)
        *lo = cur ? cur->stack_lo : NULL;
    if (size)
        *size = cur ? cur->stack_size : 0;
}

size_t coro_stack_peak(void)
{
    size_t i = 0;

    if (!cur)
        return 0;
    while (i < cur->stack_size && cur->stack_lo[i] == PAINT)
        i++;
    return cur->stack_size - i;
}
