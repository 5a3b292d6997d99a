/* bigmem.S - an ELF whose stack and heap lie beyond its loadable segments
 * (the ELF maps 64 KiB at most): coresim's default RAM (0x80000000, 16 MiB,
 * as QEMU's and Spike's RAM base) must serve them without --mem, and the
 * first address past that RAM must still fault. */
#include "core_test.h"
#define STACK_TOP 0x80800000     /* 8 MiB up */
#define HEAP      0x80F00000     /* 15 MiB up */
#define RAM_END   0x81000000
  .text
  .globl test_main
test_main:
  mv s9, sp
  li sp, STACK_TOP
  li a0, 200                  /* 200 frames of 16 bytes on the far stack */
  call deep
  CHECK_EQ(1, a0, 20100)      /* 200 + 199 + ... + 1 */
  li t0, STACK_TOP
  CHECK_REG(2, sp, t0)
  /* heap: a pattern written and read back at both ends of 64 KiB */
  li s1, HEAP
  li t1, 0x5a5a1234
  sw t1, 0(s1)
  li t2, 0xffff
  add t2, t2, s1
  sb t1, 0(t2)
  lw a1, 0(s1)
  CHECK_EQ(3, a1, 0x5a5a1234)
  lbu a1, 0(t2)
  CHECK_EQ(4, a1, 0x34)
  /* the last word of the RAM works, the next address faults */
  li s1, RAM_END
  sw t1, -4(s1)
  lw a1, -4(s1)
  CHECK_EQ(5, a1, 0x5a5a1234)
  EXPECT_TRAP(6, 5, lw a1, 0(s1))
  EXPECT_TRAP(7, 7, sw a1, 0(s1))
  mv sp, s9
  j test_pass

deep:                         /* a0 = a0 + ... + 1, one stack frame per level */
  beqz a0, 1f
  addi sp, sp, -16
  sw ra, 12(sp)
  sw a0, 8(sp)
  addi a0, a0, -1
  call deep
  lw t1, 8(sp)
  lw ra, 12(sp)
  addi sp, sp, 16
  add a0, a0, t1
1:ret
