/*
 * sim_err.h - error codes shared by the host-side models (hostmem, os, pcie, costs, coro) and
 * the switch.
 *
 * Contract: every fallible model function returns SIM_OK (0) or one of these negative codes;
 * sim_strerror() names them for messages. A function documents which codes it can return.
 */
#ifndef SIM_ERR_H
#define SIM_ERR_H

enum sim_err {
    SIM_OK = 0,
    SIM_EINVAL = -1,     /* bad argument (out of range, misaligned, unknown key, bad value) */
    SIM_ENOMEM = -2,     /* a bounded pool is exhausted (frames, processes, pages, slots) */
    SIM_EBUS = -3,       /* host bus error: physical address names no allocated frame */
    SIM_EUNPINNED = -4,  /* the unpinned-DMA oracle fired: frame not pinned for that device */
    SIM_ENOTPINNED = -5, /* unpin of a page that holds no pin for that device */
    SIM_EPINNED = -6,    /* operation refused because the page is pinned (migrate, reclaim, exit) */
    SIM_EFAULT = -7,     /* virtual address not mapped / not present */
    SIM_ENOENT = -8,     /* no such process, tag or object */
    SIM_EFULL = -9,      /* a queue is full: retry later (back-pressure, not a loss) */
    SIM_EAGAIN = -10,    /* nothing ready yet at this cycle */
    SIM_ETIMEDOUT = -11, /* a wait reached its deadline */
    SIM_ECANCELED = -12, /* the scheduler is shutting down: the coroutine must return */
    SIM_EOVERFLOW = -13, /* a counter would saturate (pin count) or a stack overflowed */
    SIM_EBUSY = -14,     /* object still in use (tag in flight, coroutine running) */
};

const char *sim_strerror(int err);

#endif /* SIM_ERR_H */
