/* fencei.S - self-modifying code made visible by fence.i. */
#include "core_test.h"
  .text
  .globl test_main
test_main:
  la s0, patch
  li t0, 0x02a00513        /* addi a0, zero, 42 */
  li a0, 0
  sw t0, 0(s0)
  fence.i
  jal ra, patch
  CHECK_EQ(1, a0, 42)
  li t0, 0x06300513        /* addi a0, zero, 99 */
  sw t0, 0(s0)
  fence.i
  jal ra, patch
  CHECK_EQ(2, a0, 99)
  /* fence is a no-op */
  fence
  fence rw, rw
  j test_pass

  .align 2
patch:
  addi a0, zero, 1
  ret
