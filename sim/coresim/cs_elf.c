/* cs_elf.c - RV32 ELF loader for coresim (see cs_elf.h).
 * Every offset and size read from the file is checked against the file length
 * before use: the file is untrusted input. */
#include "cs_elf.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int in_file(const struct cs_elf *e, uint64_t off, uint64_t len)
{
    return off <= e->len && len <= e->len - off;
}

int cs_elf_open(struct cs_elf *e, const char *path, char *err, size_t errlen)
{
    FILE *f;
    long sz;
    const Elf32_Ehdr *h;

    memset(e, 0, sizeof(*e));
    f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "%s: cannot read", path);
        goto fail_close;
    }
    e->len = (size_t)sz;
    e->buf = malloc(e->len ? e->len : 1);
    if (!e->buf || fread(e->buf, 1, e->len, f) != e->len) {
        snprintf(err, errlen, "%s: cannot read", path);
        goto fail_free;
    }
    fclose(f);

    h = (const Elf32_Ehdr *)e->buf;
    if (e->len < sizeof(Elf32_Ehdr) || memcmp(h->e_ident, ELFMAG, SELFMAG) != 0) {
        snprintf(err, errlen, "%s: not an ELF file", path);
        goto fail_buf;
    }
    if (h->e_ident[EI_CLASS] != ELFCLASS32 || h->e_ident[EI_DATA] != ELFDATA2LSB || h->e_machine != EM_RISCV) {
        snprintf(err, errlen, "%s: not an ELFCLASS32 little-endian EM_RISCV file", path);
        goto fail_buf;
    }
    if (h->e_phnum &&
        (h->e_phentsize != sizeof(Elf32_Phdr) || !in_file(e, h->e_phoff, (uint64_t)h->e_phnum * sizeof(Elf32_Phdr)))) {
        snprintf(err, errlen, "%s: bad program header table", path);
        goto fail_buf;
    }
    e->entry = h->e_entry;
    return 0;

fail_free:
    free(e->buf);
    e->buf = NULL;
fail_close:
    fclose(f);
    return -1;
fail_buf:
    free(e->buf);
    e->buf = NULL;
    return -1;
}

void cs_elf_close(struct cs_elf *e)
{
    free(e->buf);
    e->buf = NULL;
}

static const Elf32_Phdr *phdr(const struct cs_elf *e, int i)
{
    const Elf32_Ehdr *h = (const Elf32_Ehdr *)e->buf;
    return (const Elf32_Phdr *)(e->buf + h->e_phoff) + i;
}

int cs_elf_add_regions(const struct cs_elf *e, struct cs_mem *m, char *err, size_t errlen)
{
    const Elf32_Ehdr *h = (const Elf32_Ehdr *)e->buf;
    for (int i = 0; i < h->e_phnum; i++) {
        const Elf32_Phdr *p = phdr(e, i);
        if (p->p_type != PT_LOAD || p->p_memsz == 0)
            continue;
        /* the load image (LMA) and where the program runs it (VMA) must both exist */
        if (cs_mem_add(m, p->p_vaddr, p->p_memsz) != 0 || cs_mem_add(m, p->p_paddr, p->p_memsz) != 0) {
            snprintf(err, errlen, "segment %d [0x%08x, +0x%x) cannot be mapped", i, (unsigned)p->p_vaddr,
                     (unsigned)p->p_memsz);
            return -1;
        }
    }
    return 0;
}

/* Segments are loaded at their physical (load) address, as a flasher or QEMU does: for the
 * firmware, .data's image lives in instruction memory and the startup code copies it to SRAM. */
int cs_elf_load(const struct cs_elf *e, struct cs_mem *m, char *err, size_t errlen)
{
    const Elf32_Ehdr *h = (const Elf32_Ehdr *)e->buf;
    for (int i = 0; i < h->e_phnum; i++) {
        const Elf32_Phdr *p = phdr(e, i);
        uint8_t *dst;
        if (p->p_type != PT_LOAD || p->p_memsz == 0)
            continue;
        if (p->p_filesz > p->p_memsz || !in_file(e, p->p_offset, p->p_filesz)) {
            snprintf(err, errlen, "segment %d has a bad size or offset", i);
            return -1;
        }
        dst = cs_mem_ptr(m, p->p_paddr, p->p_memsz);
        if (!dst) {
            snprintf(err, errlen, "segment %d [0x%08x, +0x%x) is outside memory", i, (unsigned)p->p_paddr,
                     (unsigned)p->p_memsz);
            return -1;
        }
        memcpy(dst, e->buf + p->p_offset, p->p_filesz);
        memset(dst + p->p_filesz, 0, p->p_memsz - p->p_filesz);
    }
    return 0;
}

int cs_elf_symbol(const struct cs_elf *e, const char *name, uint32_t *value)
{
    const Elf32_Ehdr *h = (const Elf32_Ehdr *)e->buf;
    const Elf32_Shdr *sh;
    if (h->e_shnum == 0 || h->e_shentsize != sizeof(Elf32_Shdr) ||
        !in_file(e, h->e_shoff, (uint64_t)h->e_shnum * sizeof(Elf32_Shdr)))
        return -1;
    sh = (const Elf32_Shdr *)(e->buf + h->e_shoff);
    for (int i = 0; i < h->e_shnum; i++) {
        const Elf32_Shdr *str;
        const Elf32_Sym *sym;
        uint32_t n;
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= h->e_shnum || sh[i].sh_entsize != sizeof(Elf32_Sym) ||
            !in_file(e, sh[i].sh_offset, sh[i].sh_size))
            continue;
        str = &sh[sh[i].sh_link];
        if (!in_file(e, str->sh_offset, str->sh_size) || str->sh_size == 0)
            continue;
        sym = (const Elf32_Sym *)(e->buf + sh[i].sh_offset);
        n = sh[i].sh_size / sizeof(Elf32_Sym);
        for (uint32_t k = 0; k < n; k++) {
            const char *s;
            if (sym[k].st_name >= str->sh_size)
                continue;
            s = (const char *)e->buf + str->sh_offset + sym[k].st_name;
            /* names must be terminated inside the string table */
            if (!memchr(s, 0, str->sh_size - sym[k].st_name))
                continue;
            if (strcmp(s, name) == 0 && sym[k].st_shndx != SHN_UNDEF) {
                *value = sym[k].st_value;
                return 0;
            }
        }
    }
    return -1;
}
