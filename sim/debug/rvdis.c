/* rvdis.c - RV32IM + Zba + Zbb disassembler and ELF symbol table (rvdis.h). */
#include "rvdis.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rvdis_reg[32] = {
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
    "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

static const char *csr_name(uint32_t c)
{
    switch (c) {
    case 0x300: return "mstatus";
    case 0x301: return "misa";
    case 0x304: return "mie";
    case 0x305: return "mtvec";
    case 0x340: return "mscratch";
    case 0x341: return "mepc";
    case 0x342: return "mcause";
    case 0x343: return "mtval";
    case 0x344: return "mip";
    case 0xB00: return "mcycle";
    case 0xB02: return "minstret";
    case 0xB80: return "mcycleh";
    case 0xB82: return "minstreth";
    case 0xC00: return "cycle";
    case 0xC02: return "instret";
    case 0xC80: return "cycleh";
    case 0xC82: return "instreth";
    case 0xF14: return "mhartid";
    default: return NULL;
    }
}

void rvdis(uint32_t in, uint32_t pc, char *b, size_t n)
{
    uint32_t op = in & 0x7F, rd = (in >> 7) & 31, f3 = (in >> 12) & 7, rs1 = (in >> 15) & 31,
             rs2 = (in >> 20) & 31, f7 = in >> 25;
    int32_t imm_i = (int32_t)in >> 20;
    int32_t imm_s = ((int32_t)in >> 25) * 32 | (int32_t)rd;
    int32_t imm_b = (int32_t)(((in >> 31) ? 0xFFFFF000u : 0) | ((in & 0x80u) << 4) | ((in >> 20) & 0x7E0u) |
                              ((in >> 7) & 0x1Eu));
    int32_t imm_j = (int32_t)(((in >> 31) ? 0xFFF00000u : 0) | (in & 0xFF000u) | ((in >> 9) & 0x800u) |
                              ((in >> 20) & 0x7FEu));
    const char *D = rvdis_reg[rd], *S1 = rvdis_reg[rs1], *S2 = rvdis_reg[rs2];
    static const char *const ld[8] = { "lb", "lh", "lw", NULL, "lbu", "lhu", NULL, NULL };
    static const char *const st[8] = { "sb", "sh", "sw", NULL, NULL, NULL, NULL, NULL };
    static const char *const br[8] = { "beq", "bne", NULL, NULL, "blt", "bge", "bltu", "bgeu" };
    static const char *const alui[8] = { "addi", "slli", "slti", "sltiu", "xori", "sr?i", "ori", "andi" };
    static const char *const alu[8] = { "add", "sll", "slt", "sltu", "xor", "srl", "or", "and" };
    static const char *const mul[8] = { "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu" };
    /* OP with funct7 0100000 (base + Zbb), 0010000 (Zba), 0000101 (Zbb min/max) */
    static const char *const alt[8] = { "sub", NULL, NULL, NULL, "xnor", "sra", "orn", "andn" };
    static const char *const zba[8] = { NULL, NULL, "sh1add", NULL, "sh2add", NULL, "sh3add", NULL };
    static const char *const minmax[8] = { NULL, NULL, NULL, NULL, "min", "minu", "max", "maxu" };
    /* Zbb unary ops: OP-IMM funct3 1, imm[11:5] 0110000, the operation in the rs2 field */
    static const char *const unary[8] = { "clz", "ctz", "cpop", NULL, "sext.b", "sext.h", NULL, NULL };
    static const char *const csr[8] = { NULL, "csrrw", "csrrs", "csrrc", NULL, "csrrwi", "csrrsi", "csrrci" };

    switch (op) {
    case 0x37:
        snprintf(b, n, "lui %s, 0x%x", D, in >> 12);
        return;
    case 0x17:
        snprintf(b, n, "auipc %s, 0x%x", D, in >> 12);
        return;
    case 0x6F:
        if (rd == 0)
            snprintf(b, n, "j 0x%x", pc + (uint32_t)imm_j);
        else if (rd == 1)
            snprintf(b, n, "jal 0x%x", pc + (uint32_t)imm_j);
        else
            snprintf(b, n, "jal %s, 0x%x", D, pc + (uint32_t)imm_j);
        return;
    case 0x67:
        if (f3)
            break;
        if (rd == 0 && rs1 == 1 && imm_i == 0)
            snprintf(b, n, "ret");
        else if (rd == 0 && imm_i == 0)
            snprintf(b, n, "jr %s", S1);
        else if (rd == 1 && imm_i == 0)
            snprintf(b, n, "jalr %s", S1);
        else
            snprintf(b, n, "jalr %s, %d(%s)", D, imm_i, S1);
        return;
    case 0x63:
        if (!br[f3])
            break;
        if (rs2 == 0 && (f3 == 0 || f3 == 1))
            snprintf(b, n, "%sz %s, 0x%x", br[f3], S1, pc + (uint32_t)imm_b);
        else
            snprintf(b, n, "%s %s, %s, 0x%x", br[f3], S1, S2, pc + (uint32_t)imm_b);
        return;
    case 0x03:
        if (!ld[f3])
            break;
        snprintf(b, n, "%s %s, %d(%s)", ld[f3], D, imm_i, S1);
        return;
    case 0x23:
        if (!st[f3])
            break;
        snprintf(b, n, "%s %s, %d(%s)", st[f3], S2, imm_s, S1);
        return;
    case 0x13:
        if (f3 == 1 && f7 == 0x30) {
            if (rs2 >= 8 || !unary[rs2])
                break;
            snprintf(b, n, "%s %s, %s", unary[rs2], D, S1);
        } else if (f3 == 5 && (in >> 20 == 0x287 || in >> 20 == 0x698)) {
            snprintf(b, n, "%s %s, %s", in >> 20 == 0x287 ? "orc.b" : "rev8", D, S1); /* rev8: RV32 encoding */
        } else if (f3 == 5 && f7 == 0x30) {
            snprintf(b, n, "rori %s, %s, %u", D, S1, rs2);
        } else if (f3 == 1 || f3 == 5) {
            if ((f7 & ~0x20u) || (f3 == 1 && f7))
                break;
            snprintf(b, n, "%s %s, %s, %u", f3 == 1 ? "slli" : f7 ? "srai" : "srli", D, S1, rs2);
        } else if (f3 == 0 && rd == 0 && rs1 == 0 && imm_i == 0) {
            snprintf(b, n, "nop");
        } else if (f3 == 0 && rs1 == 0) {
            snprintf(b, n, "li %s, %d", D, imm_i);
        } else if (f3 == 0 && imm_i == 0) {
            snprintf(b, n, "mv %s, %s", D, S1);
        } else {
            snprintf(b, n, "%s %s, %s, %d", alui[f3], D, S1, imm_i);
        }
        return;
    case 0x33:
        if (f7 == 1)
            snprintf(b, n, "%s %s, %s, %s", mul[f3], D, S1, S2);
        else if (f7 == 0)
            snprintf(b, n, "%s %s, %s, %s", alu[f3], D, S1, S2);
        else if (f7 == 0x20 && alt[f3])
            snprintf(b, n, "%s %s, %s, %s", alt[f3], D, S1, S2);
        else if (f7 == 0x10 && zba[f3])
            snprintf(b, n, "%s %s, %s, %s", zba[f3], D, S1, S2);
        else if (f7 == 0x05 && minmax[f3])
            snprintf(b, n, "%s %s, %s, %s", minmax[f3], D, S1, S2);
        else if (f7 == 0x30 && (f3 == 1 || f3 == 5))
            snprintf(b, n, "%s %s, %s, %s", f3 == 1 ? "rol" : "ror", D, S1, S2);
        else if (f7 == 0x04 && f3 == 4 && rs2 == 0)
            snprintf(b, n, "zext.h %s, %s", D, S1); /* RV32 encoding (pack rd, rs1, zero) */
        else
            break;
        return;
    case 0x0F:
        snprintf(b, n, f3 == 1 ? "fence.i" : "fence");
        return;
    case 0x73:
        if (f3 == 0) {
            const char *s = in == 0x00000073u ? "ecall" : in == 0x00100073u ? "ebreak" : in == 0x30200073u ? "mret"
                            : in == 0x10500073u ? "wfi" : NULL;
            if (!s)
                break;
            snprintf(b, n, "%s", s);
            return;
        }
        if (!csr[f3])
            break;
        {
            char cn[16];
            const char *c = csr_name(in >> 20);
            if (!c) {
                snprintf(cn, sizeof cn, "0x%x", in >> 20);
                c = cn;
            }
            if (f3 & 4)
                snprintf(b, n, "%s %s, %s, %u", csr[f3], D, c, rs1);
            else if (f3 == 2 && rs1 == 0)
                snprintf(b, n, "csrr %s, %s", D, c);
            else
                snprintf(b, n, "%s %s, %s, %s", csr[f3], D, c, S1);
        }
        return;
    default:
        break;
    }
    snprintf(b, n, ".word 0x%08x", in);
}

/* ---- ELF symbols ------------------------------------------------------------------------- */

struct sym {
    uint32_t addr, size;
    const char *name;
};

struct rvsyms {
    struct sym *s;
    size_t n;
    char *strtab;
};

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static int sym_cmp(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr ? 1 : (x->size < y->size) - (x->size > y->size);
}

rvsyms_t *rvsyms_load(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long len;
    rvsyms_t *r = NULL;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 52 || fseek(f, 0, SEEK_SET))
        goto out;
    buf = malloc((size_t)len);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
        goto out;
    if (memcmp(buf, "\177ELF", 4) || buf[4] != 1 || buf[5] != 1 || rd16(buf + 18) != 243)
        goto out;
    uint32_t shoff = rd32(buf + 32), shentsize = rd16(buf + 46), shnum = rd16(buf + 48);
    if (shentsize < 40 || (uint64_t)shoff + (uint64_t)shnum * shentsize > (uint64_t)len)
        goto out;
    for (uint32_t i = 0; i < shnum; i++) {
        const uint8_t *sh = buf + shoff + i * shentsize;
        if (rd32(sh + 4) != 2) /* SHT_SYMTAB */
            continue;
        uint32_t off = rd32(sh + 16), size = rd32(sh + 20), link = rd32(sh + 24), ent = rd32(sh + 36);
        if (ent < 16 || link >= shnum || (uint64_t)off + size > (uint64_t)len)
            goto out;
        const uint8_t *ls = buf + shoff + link * shentsize;
        uint32_t soff = rd32(ls + 16), ssize = rd32(ls + 20);
        if ((uint64_t)soff + ssize > (uint64_t)len || ssize == 0)
            goto out;
        r = calloc(1, sizeof *r);
        if (!r)
            goto out;
        r->strtab = malloc(ssize + 1);
        r->s = calloc(size / ent + 1, sizeof *r->s);
        if (!r->strtab || !r->s) {
            rvsyms_free(r);
            r = NULL;
            goto out;
        }
        memcpy(r->strtab, buf + soff, ssize);
        r->strtab[ssize] = 0;
        for (uint32_t k = 0; k < size / ent; k++) {
            const uint8_t *e = buf + off + k * ent;
            uint32_t name = rd32(e), type = e[12] & 15u;
            bool global_label = type == 0 && (e[12] >> 4) == 1; /* an assembler entry such as _start */
            if ((type != 1 && type != 2 && !global_label) || name >= ssize || !r->strtab[name] || rd16(e + 14) == 0 ||
                rd16(e + 14) >= 0xff00)
                continue; /* OBJECT, FUNC and global labels, defined in a section */
            r->s[r->n].addr = rd32(e + 4);
            r->s[r->n].size = rd32(e + 8);
            r->s[r->n].name = r->strtab + name;
            r->n++;
        }
        qsort(r->s, r->n, sizeof *r->s, sym_cmp);
        break;
    }
out:
    free(buf);
    fclose(f);
    return r;
}

void rvsyms_free(rvsyms_t *s)
{
    if (!s)
        return;
    free(s->s);
    free(s->strtab);
    free(s);
}

const char *rvsyms_lookup(const rvsyms_t *s, uint32_t addr, uint32_t *off)
{
    size_t lo = 0, hi;

    if (!s || !s->n)
        return NULL;
    hi = s->n;
    while (lo < hi) { /* first symbol above addr */
        size_t mid = (lo + hi) / 2;
        if (s->s[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    const struct sym *y = &s->s[lo - 1];
    if (y->size && addr - y->addr >= y->size)
        return NULL;
    *off = addr - y->addr;
    return y->name;
}

int rvsyms_find(const rvsyms_t *s, const char *name, uint32_t *addr)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (!strcmp(s->s[i].name, name)) {
            *addr = s->s[i].addr;
            return 0;
        }
    return -1;
}
