/*
 * fwdiag.c - a halted NCP explained (fwdiag.h).
 */
#define _POSIX_C_SOURCE 200809L /* fork, execvp, pipe */
#include "fwdiag.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ADDR2LINE "riscv64-unknown-elf-addr2line"

const char *fwdiag_mcause_name(uint32_t mcause, char *buf, size_t n)
{
    static const char *const exc[] = {
        "instruction address misaligned", "instruction access fault", "illegal instruction", "breakpoint",
        "load address misaligned", "load access fault", "store address misaligned", "store access fault",
        "environment call from U-mode", "environment call from S-mode", NULL, "environment call from M-mode",
        "instruction page fault", "load page fault", NULL, "store page fault",
    };
    static const char *const irq[] = { [3] = "machine software interrupt", [7] = "machine timer interrupt",
                                       [11] = "machine external interrupt" };
    uint32_t code = mcause & 0x7FFFFFFFu;
    if (mcause & 0x80000000u) {
        if (code < sizeof irq / sizeof irq[0] && irq[code])
            return irq[code];
        snprintf(buf, n, "interrupt %" PRIu32, code);
        return buf;
    }
    if (code < sizeof exc / sizeof exc[0] && exc[code])
        return exc[code];
    snprintf(buf, n, "exception %" PRIu32, code);
    return buf;
}

/* X.img -> X.elf (any other name: name + ".elf"). */
static void elf_path(const char *img, char *buf, size_t n)
{
    size_t l = strlen(img);
    snprintf(buf, n, "%.*s.elf", (int)(l > 4 && !strcmp(img + l - 4, ".img") ? l - 4 : l), img);
}

static void copy(char *d, size_t n, const char *s)
{
    size_t l = strlen(s);
    if (l >= n)
        l = n - 1;
    memcpy(d, s, l);
    d[l] = 0;
}

/* addr2line -f -e ELF ADDR: two lines, function and file:line ("??" when unknown). */
static int addr2line(const char *elf, uint32_t addr, char *func, size_t fn, char *loc, size_t ln)
{
    int fd[2], st;
    char a[16], out[1024];
    size_t got = 0;
    ssize_t k;
    pid_t pid;

    snprintf(a, sizeof a, "0x%08" PRIx32, addr);
    if (pipe(fd))
        return -1;
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        char *argv[] = { (char *)ADDR2LINE, (char *)"-f", (char *)"-e", (char *)elf, a, NULL };
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    while (got < sizeof out - 1 && (k = read(fd[0], out + got, sizeof out - 1 - got)) > 0)
        got += (size_t)k;
    close(fd[0]);
    out[got] = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    char *nl = strchr(out, '\n');
    if (!nl)
        return -1;
    *nl = 0;
    copy(func, fn, out);
    char *l2 = nl + 1;
    l2[strcspn(l2, "\n")] = 0;
    copy(loc, ln, l2);
    return 0;
}

void fwdiag_symbolise(const char *img_path, uint32_t addr, char *buf, size_t n)
{
    char elf[4096], func[256], loc[512];
    FILE *f;

    elf_path(img_path, elf, sizeof elf);
    if (!(f = fopen(elf, "rb"))) {
        snprintf(buf, n, "0x%08" PRIx32 " (no ELF at %s: not symbolised)", addr, elf);
        return;
    }
    fclose(f);
    if (addr2line(elf, addr, func, sizeof func, loc, sizeof loc)) {
        snprintf(buf, n, "0x%08" PRIx32 " (" ADDR2LINE " failed on %s: not symbolised)", addr, elf);
        return;
    }
    /* a path under the source tree reads better relative: keep from "firmware/" or "tests/" on */
    const char *rel = loc;
    const char *roots[] = { "/firmware/", "/tests/", "/hal/" };
    for (unsigned i = 0; i < 3; i++) {
        const char *p = strstr(loc, roots[i]);
        if (p) {
            rel = p + 1;
            break;
        }
    }
    snprintf(buf, n, "%s (%s) [0x%08" PRIx32 "]", strcmp(func, "??") ? func : "unknown function", rel, addr);
}

void fwdiag_summary(const node_t *n, const char *img_path, char *buf, size_t len)
{
    const struct node_status *s = node_status(n);
    char name[32], where[900];

    if (!s->trapped) {
        snprintf(buf, len, "NCP halted: %s", s->why);
        return;
    }
    fwdiag_symbolise(img_path, s->mepc, where, sizeof where);
    snprintf(buf, len, "NCP trapped: %s (mcause %" PRIu32 ", mtval 0x%08" PRIx32 ") at %s",
             fwdiag_mcause_name(s->mcause, name, sizeof name), s->mcause & 0x7FFFFFFFu, s->mtval, where);
}

void fwdiag_explain(FILE *f, const char *tool, const node_t *n, const char *img_path)
{
    const struct node_status *s = node_status(n);
    char lines[NODE_CONSOLE_TAIL][NODE_CONSOLE_LINE], sum[1200];
    unsigned id = node_id(n), k;

    fwdiag_summary(n, img_path, sum, sizeof sum);
    fprintf(f, "%s: node %u: %s\n", tool, id, sum);
    fprintf(f, "%s: node %u: halted at cycle %" PRIu64 " (%s)\n", tool, id, (uint64_t)s->halted_at,
            s->why[0] ? s->why : "?");
    k = node_console_tail(n, lines, NODE_CONSOLE_TAIL);
    fprintf(f, "%s: node %u: last %u console line%s:\n", tool, id, k, k == 1 ? "" : "s");
    for (unsigned i = 0; i < k; i++)
        fprintf(f, "  [node %u] %s\n", id, lines[i]);
}
