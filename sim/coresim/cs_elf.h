/* cs_elf.h - RV32 ELF loader for coresim.
 * Contract: cs_elf_open reads and validates the whole file (ELFCLASS32,
 * little-endian, EM_RISCV); errors are reported as a message in err. */
#ifndef CS_ELF_H
#define CS_ELF_H
#include <stddef.h>
#include <stdint.h>

#include "cs_mem.h"

struct cs_elf {
    uint8_t *buf;
    size_t len;
    uint32_t entry;
};

int cs_elf_open(struct cs_elf *e, const char *path, char *err, size_t errlen);
void cs_elf_close(struct cs_elf *e);
/* add each PT_LOAD's [vaddr, vaddr+memsz) and [paddr, paddr+memsz) to the memory map */
int cs_elf_add_regions(const struct cs_elf *e, struct cs_mem *m, char *err, size_t errlen);
/* copy PT_LOAD contents to their physical (load) addresses; fails if a segment is outside */
int cs_elf_load(const struct cs_elf *e, struct cs_mem *m, char *err, size_t errlen);
/* value of a symbol from .symtab; 0 found, -1 not found */
int cs_elf_symbol(const struct cs_elf *e, const char *name, uint32_t *value);

#endif
