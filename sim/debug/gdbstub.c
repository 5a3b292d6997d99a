/* gdbstub.c - GDB remote serial protocol server (see gdbstub.h). */
#define _POSIX_C_SOURCE 200809L
#include "gdbstub.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PKT_MAX 4096 /* PacketSize: memory reads are answered up to (PKT_MAX - 4) / 2 bytes */
#define SW_BPS 64
#define WPS 8 /* watchpoints: compared in software against the core's data requests */
#define POLL_EVERY 4096 /* cycles between two socket polls while the core runs */
#define EBREAK 0x00100073u

struct swbp {
    bool used;
    uint32_t addr;
    uint8_t orig[4];
};

struct watchpt {
    bool used;
    uint8_t type; /* 2 write, 3 read, 4 access (the Z packet's type) */
    uint32_t addr, len;
};

struct gdbstub {
    struct gdb_target t;
    int fd;
    FILE *log;
    const char *name;
    enum { S_HALTING, S_HALTED, S_RUNNING, S_STEPPING, S_DETACHED, S_DEAD } st;
    int stop_sig; /* the signal of the next stop reply */
    bool reply_due; /* GDB waits for a stop reply (c, s, or the first halt) */
    unsigned poll_count;
    struct swbp sw[SW_BPS];
    bool hw_used[32];
    uint32_t hw_addr[32];
    struct watchpt wp[WPS];
    unsigned nwp;
    bool wp_hit; /* the next stop reply names it */
    uint8_t wp_hit_type;
    uint32_t wp_hit_addr;
    char in[PKT_MAX + 8];
    size_t in_len, in_pos; /* bytes received, not yet parsed */
};

static const char target_xml[] =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n"
    "<architecture>riscv:rv32</architecture>\n<feature name=\"org.gnu.gdb.riscv.cpu\">\n"
    "<reg name=\"zero\" bitsize=\"32\" type=\"int\" regnum=\"0\"/>\n"
    "<reg name=\"ra\" bitsize=\"32\" type=\"code_ptr\"/>\n<reg name=\"sp\" bitsize=\"32\" type=\"data_ptr\"/>\n"
    "<reg name=\"gp\" bitsize=\"32\" type=\"data_ptr\"/>\n<reg name=\"tp\" bitsize=\"32\" type=\"data_ptr\"/>\n"
    "<reg name=\"t0\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"t1\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"t2\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"fp\" bitsize=\"32\" type=\"data_ptr\"/>\n"
    "<reg name=\"s1\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"a0\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"a1\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"a2\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"a3\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"a4\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"a5\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"a6\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"a7\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"s2\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"s3\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"s4\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"s5\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"s6\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"s7\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"s8\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"s9\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"s10\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"s11\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"t3\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"t4\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"t5\" bitsize=\"32\" type=\"int\"/>\n"
    "<reg name=\"t6\" bitsize=\"32\" type=\"int\"/>\n<reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\"/>\n"
    "</feature>\n</target>\n";

static const char hexd[] = "0123456789abcdef";

/* ---- I/O --------------------------------------------------------------------------------- */

static bool send_all(gdbstub_t *g, const char *p, size_t n)
{
    while (n) {
        ssize_t k = send(g->fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            g->st = S_DEAD;
            return false;
        }
        p += k;
        n -= (size_t)k;
    }
    return true;
}

/* $data#cs (no-ack mode is not offered: GDB's '+' acknowledgements are read and ignored) */
static void put_pkt(gdbstub_t *g, const char *data, size_t n)
{
    static char out[2 * PKT_MAX + 8];
    unsigned cs = 0;
    size_t k = 0;

    out[k++] = '$';
    for (size_t i = 0; i < n && k < sizeof out - 4; i++) {
        cs += (unsigned char)data[i];
        out[k++] = data[i];
    }
    out[k++] = '#';
    out[k++] = hexd[(cs >> 4) & 15];
    out[k++] = hexd[cs & 15];
    send_all(g, out, k);
}

static void put_str(gdbstub_t *g, const char *s)
{
    put_pkt(g, s, strlen(s));
}

/* Fill the input buffer; wait for data if `block`. false: connection gone (or nothing, unblocked) */
static bool fill(gdbstub_t *g, bool block)
{
    if (g->in_pos == g->in_len)
        g->in_pos = g->in_len = 0;
    if (g->in_len == sizeof g->in) { /* an over-long packet: drop what was read */
        g->in_pos = g->in_len = 0;
    }
    for (;;) {
        ssize_t k = recv(g->fd, g->in + g->in_len, sizeof g->in - g->in_len, block ? 0 : MSG_DONTWAIT);
        if (k > 0) {
            g->in_len += (size_t)k;
            return true;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && !block && (errno == EAGAIN || errno == EWOULDBLOCK))
            return false;
        g->st = S_DEAD;
        return false;
    }
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Next packet's payload into pkt (NUL-terminated), blocking. Returns its length, -1 when the
 * connection is gone, -2 for an interrupt byte (0x03) outside a packet. */
static int get_pkt(gdbstub_t *g, char *pkt, size_t max)
{
    for (;;) {
        while (g->in_pos < g->in_len) {
            char c = g->in[g->in_pos];
            if (c == 0x03) {
                g->in_pos++;
                return -2;
            }
            if (c != '$') { /* '+', '-' and noise between packets */
                g->in_pos++;
                continue;
            }
            char *hash = memchr(g->in + g->in_pos, '#', g->in_len - g->in_pos);
            if (!hash || (size_t)(hash - g->in) + 3 > g->in_len)
                break; /* incomplete: read more */
            size_t start = g->in_pos + 1, n = (size_t)(hash - g->in) - start;
            unsigned cs = 0, want = (unsigned)(hexval(hash[1]) << 4 | hexval(hash[2]));
            for (size_t i = 0; i < n; i++)
                cs += (unsigned char)g->in[start + i];
            g->in_pos = (size_t)(hash - g->in) + 3;
            if ((cs & 0xFFu) != want || n >= max) {
                send_all(g, "-", 1);
                continue;
            }
            send_all(g, "+", 1);
            memcpy(pkt, g->in + start, n);
            pkt[n] = '\0';
            return (int)n;
        }
        if (g->in_pos) { /* keep the incomplete packet at the front */
            memmove(g->in, g->in + g->in_pos, g->in_len - g->in_pos);
            g->in_len -= g->in_pos;
            g->in_pos = 0;
        }
        if (!fill(g, true))
            return -1;
    }
}

/* ---- packets ----------------------------------------------------------------------------- */

static void hex32le(char *o, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        o[2 * i] = hexd[(v >> (8 * i + 4)) & 15];
        o[2 * i + 1] = hexd[(v >> (8 * i)) & 15];
    }
}

static bool parse_hex32le(const char *s, uint32_t *v)
{
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(s[2 * i]), l = hexval(s[2 * i + 1]);
        if (h < 0 || l < 0)
            return false;
        r |= (uint32_t)(h << 4 | l) << (8 * i);
    }
    *v = r;
    return true;
}

/* "ADDR,LEN" (hex), the rest after *end */
static bool parse_addr_len(const char *s, uint32_t *addr, uint32_t *len, const char **end)
{
    char *e;
    unsigned long a = strtoul(s, &e, 16), l;
    if (e == s || *e != ',' || a > 0xFFFFFFFFul)
        return false;
    s = e + 1;
    l = strtoul(s, &e, 16);
    if (e == s || l > 0xFFFFFFFFul)
        return false;
    *addr = (uint32_t)a;
    *len = (uint32_t)l;
    *end = e;
    return true;
}

static void stop_reply(gdbstub_t *g)
{
    static const char *const kind[] = { "watch", "rwatch", "awatch" };
    char r[40];
    if (g->wp_hit && g->stop_sig == 5)
        snprintf(r, sizeof r, "T05%s:%08" PRIx32 ";", kind[g->wp_hit_type - 2], g->wp_hit_addr);
    else
        snprintf(r, sizeof r, "T%02x", (unsigned)g->stop_sig);
    g->wp_hit = false;
    put_str(g, r);
    g->reply_due = false;
}

static void mem_read_pkt(gdbstub_t *g, const char *args)
{
    static uint8_t buf[PKT_MAX];
    static char out[2 * PKT_MAX + 1];
    uint32_t addr, len;
    const char *end;

    if (!parse_addr_len(args, &addr, &len, &end) || *end) {
        put_str(g, "E01");
        return;
    }
    if (len > (PKT_MAX - 4) / 2)
        len = (PKT_MAX - 4) / 2;
    if (g->t.mem_read(g->t.ctx, addr, buf, len)) {
        put_str(g, "E14"); /* EFAULT */
        return;
    }
    /* GDB sees its own view: the original instructions under software breakpoints */
    for (unsigned i = 0; i < SW_BPS; i++)
        for (uint32_t k = 0; g->sw[i].used && k < 4; k++)
            if (g->sw[i].addr + k - addr < len)
                buf[g->sw[i].addr + k - addr] = g->sw[i].orig[k];
    for (uint32_t i = 0; i < len; i++) {
        out[2 * i] = hexd[buf[i] >> 4];
        out[2 * i + 1] = hexd[buf[i] & 15];
    }
    put_pkt(g, out, 2 * (size_t)len);
}

/* M (hex) or X (binary, escaped with 0x7d) */
static void mem_write_pkt(gdbstub_t *g, const char *args, size_t n, bool binary)
{
    static uint8_t buf[PKT_MAX];
    uint32_t addr, len, k = 0;
    const char *end, *lim = args + n;

    if (!parse_addr_len(args, &addr, &len, &end) || *end != ':' || len > PKT_MAX) {
        put_str(g, "E01");
        return;
    }
    for (const char *p = end + 1; p < lim && k < len;) {
        if (binary) {
            uint8_t c = (uint8_t)*p++;
            if (c == 0x7d && p < lim)
                c = (uint8_t)(*p++ ^ 0x20);
            buf[k++] = c;
        } else {
            if (p + 1 >= lim || hexval(p[0]) < 0 || hexval(p[1]) < 0)
                break;
            buf[k++] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
            p += 2;
        }
    }
    if (k != len) {
        put_str(g, "E01");
        return;
    }
    if (len && g->t.mem_write(g->t.ctx, addr, buf, len)) {
        put_str(g, "E14");
        return;
    }
    put_str(g, "OK");
}

static void regs_read(gdbstub_t *g)
{
    char out[33 * 8];
    for (unsigned i = 0; i < 33; i++) {
        uint32_t v = 0;
        g->t.reg_read(g->t.ctx, i, &v);
        hex32le(out + 8 * i, v);
    }
    put_pkt(g, out, sizeof out);
}

static void regs_write(gdbstub_t *g, const char *s)
{
    if (strlen(s) < 33 * 8) {
        put_str(g, "E01");
        return;
    }
    for (unsigned i = 0; i < 33; i++) {
        uint32_t v;
        if (!parse_hex32le(s + 8 * i, &v)) {
            put_str(g, "E01");
            return;
        }
        if (i)
            g->t.reg_write(g->t.ctx, i, v);
    }
    put_str(g, "OK");
}

static void reg_one(gdbstub_t *g, const char *s, bool write)
{
    char *e;
    unsigned long n = strtoul(s, &e, 16);
    uint32_t v = 0;

    if (e == s || n > 32) {
        put_str(g, "E01");
        return;
    }
    if (write) {
        if (*e != '=' || !parse_hex32le(e + 1, &v)) {
            put_str(g, "E01");
            return;
        }
        if (n)
            g->t.reg_write(g->t.ctx, (unsigned)n, v);
        put_str(g, "OK");
        return;
    }
    char out[9];
    g->t.reg_read(g->t.ctx, (unsigned)n, &v);
    hex32le(out, v);
    put_pkt(g, out, 8);
}

/* Z2-Z4/z2-z4: watchpoints (write, read, access) of 1..4096 bytes, WPS of them; unsupported ("")
 * when the target has no data-access probe */
static void watchpoint(gdbstub_t *g, unsigned type, uint32_t addr, unsigned long len, bool insert)
{
    unsigned i;
    if (!g->t.watch) {
        put_str(g, "");
        return;
    }
    if (!len || len > 4096) {
        put_str(g, "E16"); /* EINVAL */
        return;
    }
    for (i = 0; i < WPS; i++)
        if (g->wp[i].used && g->wp[i].type == type && g->wp[i].addr == addr && g->wp[i].len == len)
            break;
    if (!insert) {
        if (i < WPS) {
            g->wp[i].used = false;
            if (--g->nwp == 0)
                g->t.watch(g->t.ctx, 0);
        }
        put_str(g, "OK");
        return;
    }
    if (i == WPS) {
        for (i = 0; i < WPS && g->wp[i].used; i++)
            ;
        if (i == WPS) {
            put_str(g, "E28"); /* ENOSPC */
            return;
        }
        g->wp[i] = (struct watchpt){ .used = true, .type = (uint8_t)type, .addr = addr, .len = (uint32_t)len };
        if (g->nwp++ == 0)
            g->t.watch(g->t.ctx, 1);
    }
    put_str(g, "OK");
}

/* Z0/z0 (memory: ebreak), Z1/z1 (the core's comparators), Z2-Z4 (watchpoints, above) */
static void breakpoint(gdbstub_t *g, const char *s, bool insert)
{
    char *e;
    unsigned long type = strtoul(s, &e, 10), addr, kind;
    unsigned i;

    if (*e != ',' || type > 4) {
        put_str(g, "E01");
        return;
    }
    addr = strtoul(e + 1, &e, 16);
    kind = *e == ',' ? strtoul(e + 1, NULL, 16) : 4;
    if (type >= 2) {
        watchpoint(g, (unsigned)type, (uint32_t)addr, kind, insert);
        return;
    }
    if (kind != 4) { /* a 2-byte c.ebreak (no C extension here) */
        put_str(g, "");
        return;
    }
    if (type == 1) {
        for (i = 0; i < g->t.hw_bps && i < 32; i++)
            if (insert ? !g->hw_used[i] : g->hw_used[i] && g->hw_addr[i] == addr)
                break;
        if (i == g->t.hw_bps || i == 32) {
            put_str(g, insert ? "E28" : "OK"); /* ENOSPC: GDB reports too many hw breakpoints */
            return;
        }
        g->hw_used[i] = insert;
        g->hw_addr[i] = (uint32_t)addr;
        g->t.hw_bp(g->t.ctx, i, (uint32_t)addr, insert);
        put_str(g, "OK");
        return;
    }
    for (i = 0; i < SW_BPS; i++)
        if (g->sw[i].used && g->sw[i].addr == addr)
            break;
    if (!insert) {
        if (i < SW_BPS) {
            g->t.mem_write(g->t.ctx, g->sw[i].addr, g->sw[i].orig, 4);
            g->sw[i].used = false;
        }
        put_str(g, "OK");
        return;
    }
    if (i < SW_BPS) { /* already there */
        put_str(g, "OK");
        return;
    }
    for (i = 0; i < SW_BPS && g->sw[i].used; i++)
        ;
    uint8_t eb[4] = { EBREAK & 0xFF, (EBREAK >> 8) & 0xFF, (EBREAK >> 16) & 0xFF, EBREAK >> 24 };
    if (i == SW_BPS || (addr & 3u) || g->t.mem_read(g->t.ctx, (uint32_t)addr, g->sw[i].orig, 4) ||
        g->t.mem_write(g->t.ctx, (uint32_t)addr, eb, 4)) {
        put_str(g, "E0e");
        return;
    }
    g->sw[i].used = true;
    g->sw[i].addr = (uint32_t)addr;
    put_str(g, "OK");
}

static void xfer_features(gdbstub_t *g, const char *s)
{
    static char out[PKT_MAX];
    uint32_t off, len;
    const char *end;
    size_t total = sizeof target_xml - 1;

    if (strncmp(s, "target.xml:", 11) || !parse_addr_len(s + 11, &off, &len, &end)) {
        put_str(g, "E00");
        return;
    }
    if (off >= total) {
        put_str(g, "l");
        return;
    }
    if (len > PKT_MAX - 2)
        len = PKT_MAX - 2;
    size_t n = total - off < len ? total - off : len;
    out[0] = off + n < total ? 'm' : 'l';
    memcpy(out + 1, target_xml + off, n); /* the XML has none of $ # } * to escape */
    put_pkt(g, out, n + 1);
}

static void resume(gdbstub_t *g, const char *addr, bool step)
{
    uint32_t pc = 0;
    if (*addr) {
        pc = (uint32_t)strtoul(addr, NULL, 16);
        g->t.reg_write(g->t.ctx, 32, pc);
    }
    g->t.reg_read(g->t.ctx, 32, &pc);
    g->t.halt_req(g->t.ctx, 0);
    g->t.resume(g->t.ctx, pc, step);
    g->st = step ? S_STEPPING : S_RUNNING;
    g->stop_sig = 5;
    g->reply_due = true;
    g->wp_hit = false;
}

/* Serve GDB while the core is halted; returns when it runs again (or GDB left). */
static void serve(gdbstub_t *g)
{
    static char pkt[PKT_MAX + 8];

    if (g->reply_due)
        stop_reply(g);
    while (g->st == S_HALTED) {
        int n = get_pkt(g, pkt, sizeof pkt);
        if (n == -1)
            break;
        if (n == -2) /* Ctrl-C while halted: nothing to do */
            continue;
        switch (pkt[0]) {
        case '?':
            stop_reply(g);
            break;
        case 'g':
            regs_read(g);
            break;
        case 'G':
            regs_write(g, pkt + 1);
            break;
        case 'p':
            reg_one(g, pkt + 1, false);
            break;
        case 'P':
            reg_one(g, pkt + 1, true);
            break;
        case 'm':
            mem_read_pkt(g, pkt + 1);
            break;
        case 'M':
            mem_write_pkt(g, pkt + 1, (size_t)n - 1, false);
            break;
        case 'X':
            mem_write_pkt(g, pkt + 1, (size_t)n - 1, true);
            break;
        case 'c':
            resume(g, pkt + 1, false);
            break;
        case 's':
            resume(g, pkt + 1, true);
            break;
        case 'Z':
        case 'z':
            breakpoint(g, pkt + 1, pkt[0] == 'Z');
            break;
        case 'H':
            put_str(g, "OK");
            break;
        case 'T': /* thread alive */
            put_str(g, "OK");
            break;
        case 'D':
            put_str(g, "OK");
            for (unsigned i = 0; i < SW_BPS; i++)
                if (g->sw[i].used) {
                    g->t.mem_write(g->t.ctx, g->sw[i].addr, g->sw[i].orig, 4);
                    g->sw[i].used = false;
                }
            for (unsigned i = 0; i < g->t.hw_bps && i < 32; i++)
                if (g->hw_used[i]) {
                    g->t.hw_bp(g->t.ctx, i, 0, 0);
                    g->hw_used[i] = false;
                }
            if (g->nwp) {
                memset(g->wp, 0, sizeof g->wp);
                g->nwp = 0;
                g->t.watch(g->t.ctx, 0);
            }
            resume(g, "", false);
            g->st = S_DETACHED;
            g->reply_due = false;
            break;
        case 'k':
            g->st = S_DEAD;
            break;
        case 'q':
            if (!strncmp(pkt, "qSupported", 10))
                put_str(g, "PacketSize=1000;qXfer:features:read+");
            else if (!strncmp(pkt, "qXfer:features:read:", 20))
                xfer_features(g, pkt + 20);
            else if (!strcmp(pkt, "qAttached"))
                put_str(g, "1");
            else if (!strcmp(pkt, "qC"))
                put_str(g, "QC1");
            else if (!strcmp(pkt, "qfThreadInfo"))
                put_str(g, "m1");
            else if (!strcmp(pkt, "qsThreadInfo"))
                put_str(g, "l");
            else if (!strncmp(pkt, "qSymbol", 7))
                put_str(g, "OK");
            else
                put_str(g, "");
            break;
        default: /* vCont?, vMustReplyEmpty, QStartNoAckMode, ...: unsupported */
            put_str(g, "");
            break;
        }
    }
}

/* ---- public ------------------------------------------------------------------------------ */

gdbstub_t *gdbstub_open(int port, const struct gdb_target *t, const char *name, FILE *log)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);
    gdbstub_t *g;

    if (ls < 0)
        return NULL;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(ls, (struct sockaddr *)&sa, sizeof sa) || listen(ls, 1) || getsockname(ls, (struct sockaddr *)&sa, &sl)) {
        int e = errno;
        close(ls);
        errno = e;
        return NULL;
    }
    if (log) {
        fprintf(log, "%s: gdb: listening on port %u (target remote :%u)\n", name, (unsigned)ntohs(sa.sin_port),
                (unsigned)ntohs(sa.sin_port));
        fflush(log);
    }
    int fd;
    do
        fd = accept(ls, NULL, NULL);
    while (fd < 0 && errno == EINTR);
    int e = errno;
    close(ls);
    if (fd < 0) {
        errno = e;
        return NULL;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    g = calloc(1, sizeof *g);
    if (!g) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    g->t = *t;
    g->fd = fd;
    g->log = log;
    g->name = name;
    g->st = S_HALTING;
    g->stop_sig = 5;
    g->reply_due = false; /* GDB asks with '?' */
    g->t.halt_req(g->t.ctx, 1);
    return g;
}

enum gdbstub_state gdbstub_poll(gdbstub_t *g)
{
    switch (g->st) {
    case S_DETACHED:
        return GDBSTUB_DETACHED;
    case S_DEAD:
        return GDBSTUB_KILL;
    case S_RUNNING:
        if (g->t.halted(g->t.ctx)) { /* a breakpoint or ebreak */
            g->st = S_HALTED;
            break;
        }
        if (++g->poll_count % POLL_EVERY)
            return GDBSTUB_RUN;
        /* anything from GDB while running is an interrupt request (0x03) */
        for (;;) { /* what is buffered first (it may have come with the 'c'), then the socket */
            bool intr = memchr(g->in + g->in_pos, 0x03, g->in_len - g->in_pos) != NULL;
            g->in_pos = g->in_len;
            if (intr) {
                g->t.halt_req(g->t.ctx, 1);
                g->st = S_HALTING;
                g->stop_sig = 2;
                break;
            }
            if (!fill(g, false))
                break;
        }
        return g->st == S_DEAD ? GDBSTUB_KILL : g->st == S_HALTING ? GDBSTUB_BUSY : GDBSTUB_RUN;
    case S_HALTING:
    case S_STEPPING:
        if (!g->t.halted(g->t.ctx))
            return GDBSTUB_BUSY;
        g->t.halt_req(g->t.ctx, 1); /* stays halted until GDB resumes it */
        g->st = S_HALTED;
        break;
    case S_HALTED:
        break;
    }
    serve(g);
    if (g->st == S_DEAD)
        return GDBSTUB_KILL;
    return g->st == S_STEPPING ? GDBSTUB_BUSY : g->st == S_DETACHED ? GDBSTUB_DETACHED : GDBSTUB_RUN;
}

void gdbstub_access(gdbstub_t *g, uint32_t addr, unsigned be, int write)
{
    if (!g || !g->nwp || !be || g->wp_hit || (g->st != S_RUNNING && g->st != S_STEPPING))
        return;
    /* the bytes the request touches: the enabled lanes of its word */
    unsigned lo = (unsigned)__builtin_ctz(be), hi = 31u - (unsigned)__builtin_clz(be);
    uint32_t s = (addr & ~3u) + lo, e = (addr & ~3u) + hi + 1;
    for (unsigned i = 0; i < WPS; i++) {
        const struct watchpt *w = &g->wp[i];
        if (!w->used || (w->type == 2 && !write) || (w->type == 3 && write))
            continue;
        if (s < w->addr + w->len && w->addr < e) {
            g->wp_hit = true;
            g->wp_hit_type = w->type;
            g->wp_hit_addr = w->addr > s ? w->addr : s;
            if (g->st == S_RUNNING) { /* a step stops anyway: its reply names the hit */
                g->t.halt_req(g->t.ctx, 1);
                g->st = S_HALTING;
                g->stop_sig = 5;
            }
            return;
        }
    }
}

void gdbstub_close(gdbstub_t *g, int status)
{
    if (!g)
        return;
    if (g->st == S_RUNNING || g->st == S_STEPPING || g->st == S_HALTING) {
        char r[8];
        snprintf(r, sizeof r, "W%02x", (unsigned)(status & 0xFF));
        put_str(g, r);
        /* let GDB read it before the socket goes */
        struct pollfd pf = { .fd = g->fd, .events = POLLIN };
        shutdown(g->fd, SHUT_WR);
        for (int i = 0; i < 20 && poll(&pf, 1, 100) > 0; i++) {
            char b[256];
            if (recv(g->fd, b, sizeof b, 0) <= 0)
                break;
        }
    }
    close(g->fd);
    free(g);
}
