/*
 * sim_err.c - names of the shared model error codes (see sim_err.h).
 */
#include "sim_err.h"

const char *sim_strerror(int err)
{
    switch (err) {
    case SIM_OK:
        return "ok";
    case SIM_EINVAL:
        return "invalid argument";
    case SIM_ENOMEM:
        return "pool exhausted";
    case SIM_EBUS:
        return "host bus error (no such frame)";
    case SIM_EUNPINNED:
        return "DMA to a page not pinned for this device";
    case SIM_ENOTPINNED:
        return "unpin of a page that is not pinned";
    case SIM_EPINNED:
        return "page is pinned";
    case SIM_EFAULT:
        return "address not mapped";
    case SIM_ENOENT:
        return "no such object";
    case SIM_EFULL:
        return "queue full";
    case SIM_EAGAIN:
        return "not ready";
    case SIM_ETIMEDOUT:
        return "timed out";
    case SIM_ECANCELED:
        return "canceled";
    case SIM_EOVERFLOW:
        return "overflow";
    case SIM_EBUSY:
        return "busy";
    default:
        return "unknown error";
    }
}
