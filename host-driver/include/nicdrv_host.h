/*
 * nicdrv_host.h - what the driver needs from its host OS, besides MMIO (nicdrv_bus.h).
 *
 * The driver is written against these services so that it runs on a simulated node (sim/hostsw:
 * the OS model, host memory, coroutines, the cost model), against a fake NIC in unit tests
 * (tests/unit/drv_fake.c), and, with a thin shim, in a real kernel.
 *
 * Contract: every call returns NICDRV_OK or a negative NICDRV_E* (nicdrv.h) unless stated.
 * Calls may block (in the simulator they yield to other host coroutines): the driver never holds
 * a half-updated structure across one (see drv_priv.h). Times are in NIC core cycles.
 *
 *   pin/unpin       one reference per page of [va, va+len) of process pid for the NIC, all or
 *                   nothing; pin charges its cost (seed 004) in simulated time before returning
 *   translate       pid's va -> physical address (NICDRV_EFAULT if not resident)
 *   proc_read/write CPU access to a process's memory (the library's completion queue)
 *   dma_alloc/free  one zeroed, pinned, physically contiguous kernel page for NIC DMA
 *   phys_read/write CPU access to a kernel page by physical address
 *   now, sleep      simulated time; sleep(0) is a yield
 *   ev_count/ev_signal/ev_wait   wait queues: counters, waiters wake when the count changes
 *                   (read ev_count before testing the condition: no lost wake-ups); ev_wait
 *                   returns NICDRV_OK, NICDRV_ETIMEDOUT at deadline, NICDRV_ECANCELED at shutdown
 *   syscall         charge one user -> kernel crossing (library calls into the driver)
 *   va_check        (optional, NULL = not checked) NICDRV_OK if the OS can back every page of
 *                   [va, va+len) of pid (inside its address space), else NICDRV_EFAULT:
 *                   registration refuses what no miss could ever resolve
 */
#ifndef NICDRV_HOST_H
#define NICDRV_HOST_H

#include <stddef.h>
#include <stdint.h>

#define NICDRV_PAGE_SHIFT 12
#define NICDRV_PAGE_SIZE (1u << NICDRV_PAGE_SHIFT)
#define NICDRV_NEVER UINT64_MAX

enum nicdrv_waitq {
    NICDRV_WQ_CMD = 0,  /* a command was answered, a ring slot or the ring lock was freed */
    NICDRV_WQ_MISS = 1, /* a miss was queued for the miss thread */
    NICDRV_WQ_PIN = 2,  /* background pinning work appeared (NICDRV_PIN_OVERLAP: nicdrv_pin_step) */
    NICDRV_WQ_EQ = 3,   /* an armed event queue fired (NIC_EV_EQ): its process may have events */
    NICDRV_WQ__COUNT
};

struct nicdrv_host {
    void *ctx;
    int (*pin)(void *ctx, uint32_t pid, uint64_t va, uint64_t len);
    int (*unpin)(void *ctx, uint32_t pid, uint64_t va, uint64_t len);
    int (*translate)(void *ctx, uint32_t pid, uint64_t va, uint64_t *pa);
    int (*proc_read)(void *ctx, uint32_t pid, uint64_t va, void *buf, size_t len);
    int (*proc_write)(void *ctx, uint32_t pid, uint64_t va, const void *buf, size_t len);
    int (*dma_alloc)(void *ctx, uint64_t *pa);
    void (*dma_free)(void *ctx, uint64_t pa);
    int (*phys_read)(void *ctx, uint64_t pa, void *buf, size_t len);
    int (*phys_write)(void *ctx, uint64_t pa, const void *buf, size_t len);
    uint64_t (*now)(void *ctx);
    int (*sleep)(void *ctx, uint64_t cycles);
    uint64_t (*ev_count)(void *ctx, enum nicdrv_waitq q);
    void (*ev_signal)(void *ctx, enum nicdrv_waitq q);
    int (*ev_wait)(void *ctx, enum nicdrv_waitq q, uint64_t seen, uint64_t deadline);
    void (*syscall)(void *ctx);
    int (*va_check)(void *ctx, uint32_t pid, uint64_t va, uint64_t len);
};

#endif /* NICDRV_HOST_H */
