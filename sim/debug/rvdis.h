/*
 * rvdis.h - RV32IM + Zba + Zbb + Zicsr + Zifencei disassembler (one instruction to text) and an ELF symbol
 * table for addr -> function+offset, for the instruction traces (sim/node/insntrace.c, coresim).
 * Mnemonics and operand order as objdump prints them (ABI register names, common pseudo-ops:
 * nop, li, mv, j, jr, ret, beqz, ...); an unknown word prints as ".word 0x...".
 */
#ifndef RVDIS_H
#define RVDIS_H

#include <stddef.h>
#include <stdint.h>

extern const char *const rvdis_reg[32];

/* Disassembles insn at pc into buf (NUL-terminated, truncated to n). */
void rvdis(uint32_t insn, uint32_t pc, char *buf, size_t n);

/* RISC-V opcode classes the traces need */
static inline int rvdis_is_load(uint32_t insn) { return (insn & 0x7F) == 0x03; }
static inline int rvdis_is_store(uint32_t insn) { return (insn & 0x7F) == 0x23; }

typedef struct rvsyms rvsyms_t;
/* The FUNC and OBJECT symbols of an RV32 ELF (.symtab); NULL if the file is no such ELF. */
rvsyms_t *rvsyms_load(const char *elf_path);
void rvsyms_free(rvsyms_t *s);
/* Name of the function or object containing addr (the nearest symbol at or below it, within its
 * size when it has one), *off the offset into it; NULL if none. */
const char *rvsyms_lookup(const rvsyms_t *s, uint32_t addr, uint32_t *off);
/* Address of a symbol by name: 0 found, -1 not */
int rvsyms_find(const rvsyms_t *s, const char *name, uint32_t *addr);

#endif /* RVDIS_H */
