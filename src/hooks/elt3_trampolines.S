// ELT3 fast-path hooks for Unix x86-64, registered with SetEnterLeaveFunctionHooks3.
//
// The JIT calls these directly from a method's prolog (enter) and epilog (leave, tailcall), while arguments or the
// return value are still live in registers: every register managed code can still need (rax, rdi, rsi, rdx, rcx,
// r8-r11, xmm0-xmm7) must survive. FunctionIDOrClientID arrives in r14 for enter (r15 holds the caller's SP) and
// in rdi for leave and tailcall.
//
// Three paths, each tried only when the one before declines having changed nothing:
// - Here, in assembly, the calls that repeat: an enter into the node just left, the node entered after it last
//   time (its successor) or the parent's last-entered child; a leave or tail call of the frame on top. Six general
//   registers saved, no call, and only the lines an enter or leave must touch: the shadow's first cache line
//   (ShadowHotState), the frame, the node (shadow_layout.h names every offset).
// - umbra_elt3_try_enter/leave/tailcall (elt3_fast_path.cpp): the same cases under the exact clock, and the rest of
//   what needs no new node (a child searched for, a tail call's callee found so), compiled without vector
//   instructions and calling nothing, so only the general scratch registers are saved around them.
// - The slow path: everything saved (the vector registers at the width the machine has), the stack realigned to 16
//   bytes, the full C++ hook.
// Sanitizer builds (UMBRA_NO_ELT3_FAST_PATH) take the slow path for everything, so that every hook's work is
// instrumented.
// Hot path: no blocking, allocation, logging or throwing (see shadow_hooks.h).

#include "hooks/shadow_layout.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UMBRA_NO_ELT3_FAST_PATH 1
#endif

// Defined in C++ (tick_clock.h) and never exported: reached PC-relative.
.hidden umbra_hook_clock

// The JIT counts on a hook to keep the argument and return registers, and a value it holds in vector registers 0-7
// across a hook may use their full width (ymm, zmm): with only xmm0-7 kept, a web API's vectorized header check
// failed whenever the C++ behind the slow path ran the C library's AVX string functions, whose vzeroupper clears
// every upper half. umbra_hook_vector_width (shadow_hooks.cpp) says how wide they are here: 0 xmm, 1 ymm, 2 zmm.
.hidden umbra_hook_vector_width
#define VECTOR_BYTES 512  /* registers 0-7, 64 bytes each whatever their width */
#define SAVE_BYTES 592    /* the vectors (512) + 9 general registers (72), rounded up to 16 */

// Vector registers 0-7 to or from the save area, 64 bytes apart, with \move at width \reg (xmm, ymm or zmm).
.macro VECTORS_TO_STACK move, reg
.irp n, 0, 1, 2, 3, 4, 5, 6, 7
  \move %\reg\()\n, \n*64(%rsp)
.endr
.endm

.macro VECTORS_FROM_STACK move, reg
.irp n, 0, 1, 2, 3, 4, 5, 6, 7
  \move \n*64(%rsp), %\reg\()\n
.endr
.endm

.macro SAVE_AND_ALIGN
  push %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  mov %rsp, %rbp
  .cfi_def_cfa_register %rbp
  and $-16, %rsp
  sub $SAVE_BYTES, %rsp
  mov %rax, VECTOR_BYTES+0(%rsp)
  mov %rdi, VECTOR_BYTES+8(%rsp)
  mov %rsi, VECTOR_BYTES+16(%rsp)
  mov %rdx, VECTOR_BYTES+24(%rsp)
  mov %rcx, VECTOR_BYTES+32(%rsp)
  mov %r8, VECTOR_BYTES+40(%rsp)
  mov %r9, VECTOR_BYTES+48(%rsp)
  mov %r10, VECTOR_BYTES+56(%rsp)
  mov %r11, VECTOR_BYTES+64(%rsp)
  cmpb $1, umbra_hook_vector_width(%rip)
  ja .Lsave_zmm\@
  je .Lsave_ymm\@
  VECTORS_TO_STACK movdqu, xmm
  jmp .Lsaved\@
.Lsave_ymm\@:
  VECTORS_TO_STACK vmovdqu, ymm
  jmp .Lsaved\@
.Lsave_zmm\@:
  VECTORS_TO_STACK vmovdqu64, zmm
.Lsaved\@:
.endm

.macro RESTORE_AND_RETURN
  cmpb $1, umbra_hook_vector_width(%rip)
  ja .Lrestore_zmm\@
  je .Lrestore_ymm\@
  VECTORS_FROM_STACK movdqu, xmm
  jmp .Lrestored\@
.Lrestore_ymm\@:
  VECTORS_FROM_STACK vmovdqu, ymm
  jmp .Lrestored\@
.Lrestore_zmm\@:
  VECTORS_FROM_STACK vmovdqu64, zmm
.Lrestored\@:
  mov VECTOR_BYTES+0(%rsp), %rax
  mov VECTOR_BYTES+8(%rsp), %rdi
  mov VECTOR_BYTES+16(%rsp), %rsi
  mov VECTOR_BYTES+24(%rsp), %rdx
  mov VECTOR_BYTES+32(%rsp), %rcx
  mov VECTOR_BYTES+40(%rsp), %r8
  mov VECTOR_BYTES+48(%rsp), %r9
  mov VECTOR_BYTES+56(%rsp), %r10
  mov VECTOR_BYTES+64(%rsp), %r11
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

// The registers the assembly fast path uses.
.macro PUSH_OWN
  push %rax
  .cfi_adjust_cfa_offset 8
  push %rcx
  .cfi_adjust_cfa_offset 8
  push %rdx
  .cfi_adjust_cfa_offset 8
  push %rsi
  .cfi_adjust_cfa_offset 8
  push %rdi
  .cfi_adjust_cfa_offset 8
  push %r8
  .cfi_adjust_cfa_offset 8
.endm

.macro POP_OWN
  pop %r8
  .cfi_adjust_cfa_offset -8
  pop %rdi
  .cfi_adjust_cfa_offset -8
  pop %rsi
  .cfi_adjust_cfa_offset -8
  pop %rdx
  .cfi_adjust_cfa_offset -8
  pop %rcx
  .cfi_adjust_cfa_offset -8
  pop %rax
  .cfi_adjust_cfa_offset -8
.endm

// rax = the calling thread's shadow, or jumps to \declined (no shadow yet, or the hooks read the exact clock).
.macro LOAD_SHADOW declined
#ifdef UMBRA_NO_ELT3_FAST_PATH
  jmp \declined
#endif
  movq umbra_t_shadow@gottpoff(%rip), %rax
  movq %fs:(%rax), %rax
  test %rax, %rax
  jz \declined
  cmpb $0, umbra_hook_clock+UMBRA_CLOCK_EXACT(%rip)
  jne \declined
.endm

// Pops the top frame, if it is \function's, as ThreadShadow::pop_returning does: its time charged to its node, it
// becomes the hint, the frame below becomes current. Jumps to \declined having changed nothing if the fast path must
// not: an empty stack, another function on top, fast_limit 0.
.macro POP_RETURNING function, declined
  cmpl $0, UMBRA_HOT_FAST_LIMIT(%rax)
  je \declined
  mov UMBRA_HOT_DEPTH(%rax), %ecx
  sub $1, %ecx
  jb \declined
  mov UMBRA_HOT_FRAMES(%rax), %rsi
  lea (%rcx,%rcx,2), %rdx
  lea (%rsi,%rdx,8), %rdx                      // the top frame
  cmp UMBRA_FRAME_FUNCTION(%rdx), \function
  jne \declined
  mov \function, UMBRA_HOT_HINT_FUNCTION(%rax)
  mov %ecx, UMBRA_HOT_HINT_DEPTH(%rax)
  mov UMBRA_FRAME_NODE(%rdx), %r8d
  mov %r8d, UMBRA_HOT_HINT_NODE(%rax)
  // The collector of a full tree is not charged: frames nested under it would count its time twice.
  cmp UMBRA_HOT_TREE_FULL(%rax), %r8d
  je 1f
  mov umbra_hook_clock+UMBRA_CLOCK_COARSE_TICKS(%rip), %rsi
  sub UMBRA_FRAME_START(%rdx), %rsi
  // Nothing to charge: the clock has not moved since the call began (most calls, and the node's line is then
  // not touched), or it began on a later reading.
  jbe 1f
  shl $UMBRA_NODE_SHIFT, %r8
  add UMBRA_HOT_NODES(%rax), %r8
  add %rsi, UMBRA_NODE_TICKS(%r8)
1:
  mov %ecx, UMBRA_HOT_DEPTH(%rax)              // published: a store is a release on x86-64
  xor %r8d, %r8d                               // the root, under the bottom frame
  test %ecx, %ecx
  jz 2f
  mov UMBRA_FRAME_NODE-UMBRA_FRAME_SIZE(%rdx), %r8d
2:
  mov %r8d, UMBRA_HOT_CURRENT(%rax)
.endm

BEGIN umbra_elt3_enter
  PUSH_OWN
  LOAD_SHADOW .Lenter_declined
  mov UMBRA_HOT_DEPTH(%rax), %ecx
  xor %r8d, %r8d                               // r8d: 1 if this enter is a tail call's callee
  cmp UMBRA_HOT_FAST_LIMIT(%rax), %ecx
  jae .Lenter_after_tail_call
.Lenter_lookup:
  mov UMBRA_HOT_NODES(%rax), %rsi
  cmp UMBRA_HOT_HINT_DEPTH(%rax), %ecx
  jne .Lenter_last_hit
  // A frame returned at this depth: its node again (a loop), else its successor (a sequence of calls).
  mov UMBRA_HOT_HINT_NODE(%rax), %edx
  cmp UMBRA_HOT_HINT_FUNCTION(%rax), %r14
  je .Lenter_found
  cmp UMBRA_HOT_TREE_FULL(%rax), %edx
  je .Lenter_declined                          // the collector stands for any parent's child: no successor
  shl $UMBRA_NODE_SHIFT, %rdx
  mov UMBRA_NODE_SUCCESSOR(%rsi,%rdx), %edx
  jmp .Lenter_candidate
.Lenter_last_hit:
  // The parent's last-entered child; the parent is the top frame's node, or the root.
  xor %edx, %edx
  test %ecx, %ecx
  jz 1f
  mov UMBRA_HOT_FRAMES(%rax), %rdi
  lea (%rcx,%rcx,2), %rdx
  mov UMBRA_FRAME_NODE-UMBRA_FRAME_SIZE(%rdi,%rdx,8), %edx
1:
  shl $UMBRA_NODE_SHIFT, %rdx
  mov UMBRA_NODE_LAST_HIT(%rsi,%rdx), %edx
.Lenter_candidate:
  test %edx, %edx
  jz .Lenter_declined
  mov %rdx, %rdi
  shl $UMBRA_NODE_SHIFT, %rdi
  cmp UMBRA_NODE_FUNCTION(%rsi,%rdi), %r14
  jne .Lenter_declined
  jmp .Lenter_push
.Lenter_found:
  mov %rdx, %rdi
  shl $UMBRA_NODE_SHIFT, %rdi
.Lenter_push:
  // edx: the node, rdi: its offset among the nodes. Counted, then a frame pushed at depth ecx and published.
  addq $1, UMBRA_NODE_CALLS(%rsi,%rdi)
  addq $1, UMBRA_HOT_ENTERS(%rax)
  mov UMBRA_HOT_FRAMES(%rax), %rsi
  lea (%rcx,%rcx,2), %rdi
  lea (%rsi,%rdi,8), %rdi
  mov %edx, UMBRA_FRAME_NODE(%rdi)
  mov umbra_hook_clock+UMBRA_CLOCK_COARSE_TICKS(%rip), %rsi
  mov %rsi, UMBRA_FRAME_START(%rdi)
  mov %r14, UMBRA_FRAME_FUNCTION(%rdi)
  test %r8d, %r8d
  jnz .Lenter_tail_entry
.Lenter_publish:
  add $1, %ecx
  mov %ecx, UMBRA_HOT_DEPTH(%rax)
  mov %edx, UMBRA_HOT_CURRENT(%rax)
  .cfi_remember_state
  POP_OWN
  ret
  .cfi_restore_state
.Lenter_after_tail_call:
  // The fast path is off: if only for a tail call's callee to count, this enter is it.
  cmpb $0, UMBRA_HOT_PENDING_TAIL_ENTRY(%rax)
  je .Lenter_declined
  cmp UMBRA_HOT_LIMIT_AFTER_TAIL(%rax), %ecx
  jae .Lenter_declined
  mov $1, %r8d
  jmp .Lenter_lookup
.Lenter_tail_entry:
  mov %rdx, %r8
  shl $UMBRA_COLD_NODE_SHIFT, %r8
  add UMBRA_HOT_COLD_NODES(%rax), %r8
  addq $1, UMBRA_COLD_NODE_TAIL_ENTRIES(%r8)
  movb $0, UMBRA_HOT_PENDING_TAIL_ENTRY(%rax)
  mov UMBRA_HOT_LIMIT_AFTER_TAIL(%rax), %r8d
  mov %r8d, UMBRA_HOT_FAST_LIMIT(%rax)
  jmp .Lenter_publish
.Lenter_declined:
  POP_OWN
  FAST_PATH umbra_elt3_try_enter, %r14
  SLOW_PATH umbra_elt3_on_enter, %r14
END umbra_elt3_enter

BEGIN umbra_elt3_leave
  PUSH_OWN
  LOAD_SHADOW .Lleave_declined
  POP_RETURNING %rdi, .Lleave_declined
  addq $1, UMBRA_HOT_LEAVES(%rax)
  .cfi_remember_state
  POP_OWN
  ret
  .cfi_restore_state
.Lleave_declined:
  POP_OWN
  FAST_PATH umbra_elt3_try_leave, %rdi
  SLOW_PATH umbra_elt3_on_leave, %rdi
END umbra_elt3_leave

BEGIN umbra_elt3_tailcall
  PUSH_OWN
  LOAD_SHADOW .Ltailcall_declined
  POP_RETURNING %rdi, .Ltailcall_declined
  // The callee's enter comes next and counts its tail entry: fast_limit stays 0 until then, so that only an enter,
  // which checks for it, takes a fast path.
  addq $1, UMBRA_HOT_TAILCALLS(%rax)
  movb $1, UMBRA_HOT_PENDING_TAIL_ENTRY(%rax)
  movl $0, UMBRA_HOT_FAST_LIMIT(%rax)
  .cfi_remember_state
  POP_OWN
  ret
  .cfi_restore_state
.Ltailcall_declined:
  POP_OWN
  FAST_PATH umbra_elt3_try_tailcall, %rdi
  SLOW_PATH umbra_elt3_on_tailcall, %rdi
END umbra_elt3_tailcall

// The family's floor, for benchmarks: the JIT's call and an immediate return.
BEGIN umbra_elt3_noop
  ret
END umbra_elt3_noop

  .section .note.GNU-stack,"",@progbits
