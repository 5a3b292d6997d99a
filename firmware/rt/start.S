/*
 * start.S: reset entry and trap entry of every image that runs on the NIC's core.
 *
 * _start is the first word of instruction memory (the core's reset vector, asserted by
 * linker/ncp.ld). ncp_trap_entry saves a struct ncp_trap_frame (include/ncp_rt.h) and calls
 * ncp_trap_dispatch(frame); the frame's registers and mepc are restored on return.
 */
    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      sp, __stack_top
    la      t0, ncp_trap_entry
    csrw    mtvec, t0
    csrw    mie, zero

    /* .data: copy the load image from instruction memory to SRAM */
    la      a0, __data_start
    la      a1, __data_end
    la      a2, __data_load
1:  bgeu    a0, a1, 2f
    lw      t0, 0(a2)
    sw      t0, 0(a0)
    addi    a0, a0, 4
    addi    a2, a2, 4
    j       1b

    /* .bss: zero */
2:  la      a0, __bss_start
    la      a1, __bss_end
3:  bgeu    a0, a1, 4f
    sw      zero, 0(a0)
    addi    a0, a0, 4
    j       3b

4:  li      a0, 0
    li      a1, 0
    call    main
    tail    _exit

/* Frame: x0..x31 at 4*n, then mepc, mcause, mtval, mstatus: 36 words, rounded to 144 bytes. */
    .equ    FRAME, 144
    .text
    .globl  ncp_trap_entry
    .balign 4
ncp_trap_entry:
    addi    sp, sp, -FRAME
    sw      x1, 4(sp)
    sw      x3, 12(sp)
    sw      x4, 16(sp)
    sw      x5, 20(sp)
    sw      x6, 24(sp)
    sw      x7, 28(sp)
    sw      x8, 32(sp)
    sw      x9, 36(sp)
    sw      x10, 40(sp)
    sw      x11, 44(sp)
    sw      x12, 48(sp)
    sw      x13, 52(sp)
    sw      x14, 56(sp)
    sw      x15, 60(sp)
    sw      x16, 64(sp)
    sw      x17, 68(sp)
    sw      x18, 72(sp)
    sw      x19, 76(sp)
    sw      x20, 80(sp)
    sw      x21, 84(sp)
    sw      x22, 88(sp)
    sw      x23, 92(sp)
    sw      x24, 96(sp)
    sw      x25, 100(sp)
    sw      x26, 104(sp)
    sw      x27, 108(sp)
    sw      x28, 112(sp)
    sw      x29, 116(sp)
    sw      x30, 120(sp)
    sw      x31, 124(sp)
    addi    t0, sp, FRAME
    sw      t0, 8(sp)               /* x2 as it was before the trap */
    csrr    t0, mepc
    sw      t0, 128(sp)
    csrr    t0, mcause
    sw      t0, 132(sp)
    csrr    t0, mtval
    sw      t0, 136(sp)
    csrr    t0, mstatus
    sw      t0, 140(sp)
    mv      a0, sp
    call    ncp_trap_dispatch
    lw      t0, 128(sp)
    csrw    mepc, t0
    lw      x1, 4(sp)
    lw      x3, 12(sp)
    lw      x4, 16(sp)
    lw      x5, 20(sp)
    lw      x6, 24(sp)
    lw      x7, 28(sp)
    lw      x8, 32(sp)
    lw      x9, 36(sp)
    lw      x10, 40(sp)
    lw      x11, 44(sp)
    lw      x12, 48(sp)
    lw      x13, 52(sp)
    lw      x14, 56(sp)
    lw      x15, 60(sp)
    lw      x16, 64(sp)
    lw      x17, 68(sp)
    lw      x18, 72(sp)
    lw      x19, 76(sp)
    lw      x20, 80(sp)
    lw      x21, 84(sp)
    lw      x22, 88(sp)
    lw      x23, 92(sp)
    lw      x24, 96(sp)
    lw      x25, 100(sp)
    lw      x26, 104(sp)
    lw      x27, 108(sp)
    lw      x28, 112(sp)
    lw      x29, 116(sp)
    lw      x30, 120(sp)
    lw      x31, 124(sp)
    addi    sp, sp, FRAME
    mret
