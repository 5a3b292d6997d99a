/* bench_start.S - test_main for the C benchmark: PASS when bench_main() == 0. */
#include "core_test.h"
  .text
  .globl test_main
test_main:
  call bench_main
  beqz a0, test_pass
  li gp, 1
  j test_fail
