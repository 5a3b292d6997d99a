/*
 * systest_util.h - small helpers shared by the cluster test programs in tests/system.
 */
#ifndef SYSTEST_UTIL_H
#define SYSTEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The whole file at `path` in a malloc'd buffer (its size in *len); NULL if it cannot be read. */
uint8_t *read_file(const char *path, size_t *len);

/*
 * A failed check in a simulated user program: says which program, node and line, counts the
 * failure in r->failed and leaves through the program's `out:` label. The caller's locals are
 * `p` (with ->node) and `r` (with ->failed). SYSTEST_CHECK_RC also names the value: str is
 * nic_strerror for an API return code, nic_wc_status_str for a completion status.
 */
#define SYSTEST_CHECK(name, cond)                                                                      \
    do {                                                                                               \
        if (!(cond)) {                                                                                 \
            fprintf(stderr, "%s: node %u: check failed at line %d: %s\n", name, p->node, __LINE__, #cond); \
            r->failed++;                                                                               \
            goto out;                                                                                  \
        }                                                                                              \
    } while (0)

#define SYSTEST_CHECK_RC(name, call, want, str)                                                        \
    do {                                                                                               \
        int rc_ = (call);                                                                              \
        if (rc_ != (want)) {                                                                           \
            fprintf(stderr, "%s: node %u: line %d: %s = %d (%s), want %s\n", name, p->node, __LINE__, #call, rc_, \
                    str(rc_), #want);                                                                  \
            r->failed++;                                                                               \
            goto out;                                                                                  \
        }                                                                                              \
    } while (0)

#endif /* SYSTEST_UTIL_H */
