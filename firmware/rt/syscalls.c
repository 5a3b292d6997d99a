/*
 * syscalls.c: the few system calls newlib needs, for a machine with no OS.
 *
 * newlib is built with --disable-newlib-supplied-syscalls, so these are the only ones linked:
 * stdout/stderr go to the debug console, the heap is the bounded region linker/ncp.ld leaves at
 * the end of SRAM_FWDATA (malloc fails with ENOMEM when it is used up; the NCP's fast path never
 * allocates), and _exit reports to the test mailbox. Everything else fails with ENOSYS/EBADF.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ncp_rt.h"
#include "nic_regs.h"

#undef errno
extern int errno;

extern char __heap_start[], __heap_end[];

int _write(int fd, const char *buf, int len);
int _read(int fd, char *buf, int len);
int _close(int fd);
int _fstat(int fd, struct stat *st);
int _isatty(int fd);
int _lseek(int fd, int off, int whence);
int _kill(int pid, int sig);
int _getpid(void);
void *_sbrk(ptrdiff_t incr);
__attribute__((noreturn)) void _exit(int code);

int _write(int fd, const char *buf, int len)
{
    if (fd != 1 && fd != 2) {
        errno = EBADF;
        return -1;
    }
    if (len < 0) {
        errno = EINVAL;
        return -1;
    }
    ncp_console_write(buf, (size_t)len);
    return len;
}

int _read(int fd, char *buf, int len)
{
    (void)fd;
    (void)buf;
    (void)len;
    errno = ENOSYS;
    return -1;
}

int _close(int fd)
{
    (void)fd;
    errno = EBADF;
    return -1;
}

int _fstat(int fd, struct stat *st)
{
    if (fd < 0 || fd > 2) {
        errno = EBADF;
        return -1;
    }
    st->st_mode = S_IFCHR;
    return 0;
}

int _isatty(int fd)
{
    return fd >= 0 && fd <= 2;
}

int _lseek(int fd, int off, int whence)
{
    (void)fd;
    (void)off;
    (void)whence;
    errno = ESPIPE;
    return -1;
}

int _kill(int pid, int sig)
{
    (void)pid;
    (void)sig;
    errno = ENOSYS;
    return -1;
}

int _getpid(void)
{
    return 1;
}

void *_sbrk(ptrdiff_t incr)
{
    static char *brk = __heap_start;
    char *old = brk;

    if (incr < 0 ? (size_t)-incr > (size_t)(brk - __heap_start) : (size_t)incr > (size_t)(__heap_end - brk)) {
        errno = ENOMEM;
        return (void *)-1;
    }
    brk += incr;
    return old;
}

void _exit(int code)
{
    if (code == 0)
        ncp_test_pass();
    else
        ncp_test_fail((uint32_t)code);
    ncp_halt(NIC_HOSTIF_FW_STATE_STATE_SHUTDOWN, (uint32_t)code);
}
