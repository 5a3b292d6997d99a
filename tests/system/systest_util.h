/*
 * systest_util.h - small helpers shared by the cluster test programs in tests/system.
 */
#ifndef SYSTEST_UTIL_H
#define SYSTEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The whole file at `path` in a malloc'd buffer (its size in *len); NULL if it cannot be read. */
uint8_t *read_file(const char *path, size_t *len);

#endif /* SYSTEST_UTIL_H */
