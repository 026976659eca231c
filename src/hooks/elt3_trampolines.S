// ELT3 fast-path hooks for Unix x86-64, registered with SetEnterLeaveFunctionHooks3.
//
// The JIT calls these directly from a method's prolog (enter) and epilog (leave, tailcall), while arguments or the
// return value are still live in registers. So each trampoline saves every register a C++ function may clobber
// that managed code can still need (rax, rdi, rsi, rdx, rcx, r8-r11, xmm0-xmm7), realigns the stack to 16 bytes,
// and calls the C++ hook with FunctionIDOrClientID as its argument: enter receives it in r14 (r15 holds the
// caller's SP), leave and tailcall in rdi. Hot path: no blocking, allocation, logging or throwing (see
// shadow_hooks.h).

#define XMM_BYTES 128
#define SAVE_BYTES 208  /* xmm0-7 (128) + 9 general registers (72), rounded up to 16 */

.macro SAVE_AND_ALIGN
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  mov %rsp, %rbp
  .cfi_def_cfa_register %rbp
  and $-16, %rsp
  sub $SAVE_BYTES, %rsp
  movaps %xmm0, 0(%rsp)
  movaps %xmm1, 16(%rsp)
  movaps %xmm2, 32(%rsp)
  movaps %xmm3, 48(%rsp)
  movaps %xmm4, 64(%rsp)
  movaps %xmm5, 80(%rsp)
  movaps %xmm6, 96(%rsp)
  movaps %xmm7, 112(%rsp)
  mov %rax, XMM_BYTES+0(%rsp)
  mov %rdi, XMM_BYTES+8(%rsp)
  mov %rsi, XMM_BYTES+16(%rsp)
  mov %rdx, XMM_BYTES+24(%rsp)
  mov %rcx, XMM_BYTES+32(%rsp)
  mov %r8, XMM_BYTES+40(%rsp)
  mov %r9, XMM_BYTES+48(%rsp)
  mov %r10, XMM_BYTES+56(%rsp)
  mov %r11, XMM_BYTES+64(%rsp)
.endm

.macro RESTORE_AND_RETURN
  movaps 0(%rsp), %xmm0
  movaps 16(%rsp), %xmm1
  movaps 32(%rsp), %xmm2
  movaps 48(%rsp), %xmm3
  movaps 64(%rsp), %xmm4
  movaps 80(%rsp), %xmm5
  movaps 96(%rsp), %xmm6
  movaps 112(%rsp), %xmm7
  mov XMM_BYTES+0(%rsp), %rax
  mov XMM_BYTES+8(%rsp), %rdi
  mov XMM_BYTES+16(%rsp), %rsi
  mov XMM_BYTES+24(%rsp), %rdx
  mov XMM_BYTES+32(%rsp), %rcx
  mov XMM_BYTES+40(%rsp), %r8
  mov XMM_BYTES+48(%rsp), %r9
  mov XMM_BYTES+56(%rsp), %r10
  mov XMM_BYTES+64(%rsp), %r11
  mov %rbp, %rsp
  .cfi_def_cfa_register %rsp
  pop %rbp
  .cfi_def_cfa_offset 8
  .cfi_restore %rbp
  ret
  .cfi_endproc
.endm

.macro TRAMPOLINE name, target, argument
  .text
  .p2align 4
  .globl \name
  .hidden \name
  .type \name, @function
\name:
  SAVE_AND_ALIGN
  mov \argument, %rdi
  call \target
  RESTORE_AND_RETURN
  .size \name, .-\name
.endm

TRAMPOLINE umbra_elt3_enter, umbra_elt3_on_enter, %r14
TRAMPOLINE umbra_elt3_leave, umbra_elt3_on_leave, %rdi
TRAMPOLINE umbra_elt3_tailcall, umbra_elt3_on_tailcall, %rdi

// The family's floor, for benchmarks: the JIT's call and an immediate return.
  .text
  .p2align 4
  .globl umbra_elt3_noop
  .hidden umbra_elt3_noop
  .type umbra_elt3_noop, @function
umbra_elt3_noop:
  .cfi_startproc
  ret
  .cfi_endproc
  .size umbra_elt3_noop, .-umbra_elt3_noop

  .section .note.GNU-stack,"",@progbits
