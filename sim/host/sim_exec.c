/*
 * sim_exec.c - running a simulator tool on its traced twin (sim_exec.h).
 */
#define _POSIX_C_SOURCE 200809L /* readlink, execv */
#include "sim_exec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int sim_exec_twin(const char *tool, const char *twin, const char *option, char *const argv[])
{
    char path[PATH_MAX];
    size_t tl = strlen(twin);
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    char *slash;
    size_t dir;

    if (n <= 0) {
        fprintf(stderr, "%s: cannot locate %s: /proc/self/exe: %s (needed for %s)\n", tool, twin,
                n < 0 ? strerror(errno) : "empty", option);
        return -1;
    }
    path[n] = '\0';
    slash = strrchr(path, '/');
    dir = slash ? (size_t)(slash + 1 - path) : 0;
    if (dir + tl + 1 > sizeof path) {
        fprintf(stderr, "%s: cannot locate %s: path too long (needed for %s)\n", tool, twin, option);
        return -1;
    }
    memcpy(path + dir, twin, tl + 1);
    execv(path, argv);
    fprintf(stderr, "%s: %s: %s (needed for %s)\n", tool, path, strerror(errno), option);
    return -1;
}
