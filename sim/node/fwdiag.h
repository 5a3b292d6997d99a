/*
 * fwdiag.h - a halted NCP explained: which node, the decoded mcause and mtval, the symbolised mepc
 * (function, file:line from the ELF next to the flash image, X.img -> X.elf, through
 * riscv64-unknown-elf-addr2line) and the node's last console lines. Used by nicsim and nicrun.
 *
 * Contract: reads node_status() (halted/trapped, filled from the runtime's fatal-path console
 * lines); a missing ELF or addr2line falls back to the raw address, said so.
 */
#ifndef FWDIAG_H
#define FWDIAG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "node.h"

/* "illegal instruction", "load access fault", ..., or "interrupt N" / "exception N". */
const char *fwdiag_mcause_name(uint32_t mcause, char *buf, size_t n);
/* "func (file:line)" for addr in the ELF next to img_path, or "0xADDR (why not symbolised)". */
void fwdiag_symbolise(const char *img_path, uint32_t addr, char *buf, size_t n);
/* One line: "NCP trapped: illegal instruction (mcause 2, mtval 0x0) at func (file:line)" or
 * "NCP halted: WHY". */
void fwdiag_summary(const node_t *n, const char *img_path, char *buf, size_t len);
/* The full explanation, every line prefixed "tool: node N: ". */
void fwdiag_explain(FILE *f, const char *tool, const node_t *n, const char *img_path);

#endif /* FWDIAG_H */
