// ELT3 fast-path hooks for Unix x86-64, registered with SetEnterLeaveFunctionHooks3.
//
// The JIT calls these directly from a method's prolog (enter) and epilog (leave, tailcall), while arguments or the
// return value are still live in registers: every register managed code can still need (rax, rdi, rsi, rdx, rcx,
// r8-r11, xmm0-xmm7) must survive. FunctionIDOrClientID arrives in r14 for enter (r15 holds the caller's SP) and
// in rdi for leave and tailcall.
//
// Two paths. Each hook first tries the common case in umbra_elt3_try_enter/leave/tailcall (elt3_fast_path.cpp), which
// are compiled without vector instructions and call nothing: only the general registers a C++ function may
// clobber are saved around them. When they answer false they have changed nothing, and the slow path saves
// everything, realigns the stack to 16 bytes and calls the full C++ hook. Hot path: no blocking, allocation,
// logging or throwing (see shadow_hooks.h).

#define XMM_BYTES 128
#define SAVE_BYTES 208  /* xmm0-7 (128) + 9 general registers (72), rounded up to 16 */

.macro SAVE_AND_ALIGN
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
.endm

.macro BEGIN name
  .text
  .p2align 4
  .globl \name
  .hidden \name
  .type \name, @function
\name:
  .cfi_startproc
.endm

.macro END name
  .cfi_endproc
  .size \name, .-\name
.endm

// Calls \target(\argument) with everything saved, and returns from the trampoline.
.macro SLOW_PATH target, argument
  SAVE_AND_ALIGN
  mov \argument, %rdi
  call \target
  RESTORE_AND_RETURN
.endm

// Saves and restores the general registers a C++ function may clobber (pops leave the flags alone). The CFA is
// kept exact at every instruction: the runtime may unwind from any of them (a suspension signal landing here).
.macro PUSH_SCRATCH
  push %rax
  .cfi_adjust_cfa_offset 8
  push %rdi
  .cfi_adjust_cfa_offset 8
  push %rsi
  .cfi_adjust_cfa_offset 8
  push %rdx
  .cfi_adjust_cfa_offset 8
  push %rcx
  .cfi_adjust_cfa_offset 8
  push %r8
  .cfi_adjust_cfa_offset 8
  push %r9
  .cfi_adjust_cfa_offset 8
  push %r10
  .cfi_adjust_cfa_offset 8
  push %r11
  .cfi_adjust_cfa_offset 8
.endm

.macro POP_SCRATCH
  pop %r11
  .cfi_adjust_cfa_offset -8
  pop %r10
  .cfi_adjust_cfa_offset -8
  pop %r9
  .cfi_adjust_cfa_offset -8
  pop %r8
  .cfi_adjust_cfa_offset -8
  pop %rcx
  .cfi_adjust_cfa_offset -8
  pop %rdx
  .cfi_adjust_cfa_offset -8
  pop %rsi
  .cfi_adjust_cfa_offset -8
  pop %rdi
  .cfi_adjust_cfa_offset -8
  pop %rax
  .cfi_adjust_cfa_offset -8
.endm

// Returns if \fast(\argument) did the work, else falls through to the slow path.
.macro FAST_PATH fast, argument
  PUSH_SCRATCH
  mov \argument, %rdi
  call \fast
  test %al, %al
  POP_SCRATCH
  jz 1f
  ret
1:
.endm

BEGIN umbra_elt3_enter
  FAST_PATH umbra_elt3_try_enter, %r14
  SLOW_PATH umbra_elt3_on_enter, %r14
END umbra_elt3_enter

BEGIN umbra_elt3_leave
  FAST_PATH umbra_elt3_try_leave, %rdi
  SLOW_PATH umbra_elt3_on_leave, %rdi
END umbra_elt3_leave

BEGIN umbra_elt3_tailcall
  FAST_PATH umbra_elt3_try_tailcall, %rdi
  SLOW_PATH umbra_elt3_on_tailcall, %rdi
END umbra_elt3_tailcall

// The family's floor, for benchmarks: the JIT's call and an immediate return.
BEGIN umbra_elt3_noop
  ret
END umbra_elt3_noop

  .section .note.GNU-stack,"",@progbits
