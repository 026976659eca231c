// Calls an ELT3 hook the way JIT-compiled code does, with known values in every register the hook must preserve,
// and records what those registers hold when it returns.
//
// void umbra_test_call_hook(void (*hook)(void), uint64_t r14_value, uint64_t rdi_value, RegisterDump* out,
//                           uint64_t misalign_words)
// RegisterDump: rax, rdi, rsi, rdx, rcx, r8, r9, r10, r11, r14 (8 bytes each), then xmm0..xmm7 (16 bytes each),
// then vector registers 0-7 at the width umbra_test_vector_width names (1: ymm, 2: zmm; 64 bytes each).
// misalign_words (0 or 1) shifts the stack by 8 bytes at the call, as a prolog may leave it.

// Vector registers 0-7 from the wide sentinels, or into the dump after its xmm part, with \move at width \reg.
.macro WIDE_SENTINELS move, reg
.irp n, 0, 1, 2, 3, 4, 5, 6, 7
  \move wide_sentinels+\n*64(%rip), %\reg\()\n
.endr
.endm

.macro WIDE_DUMP move, reg
.irp n, 0, 1, 2, 3, 4, 5, 6, 7
  \move %\reg\()\n, 208+\n*64(%r12)
.endr
  vzeroupper
.endm

  .text
  .p2align 4
  .globl umbra_test_call_hook
  .type umbra_test_call_hook, @function
umbra_test_call_hook:
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  mov %rsp, %rbp
  .cfi_def_cfa_register %rbp
  push %rbx
  push %r12
  push %r13
  push %r14
  push %r15
  sub $8, %rsp
  mov %rdi, %rbx               // the hook
  mov %rcx, %r12               // the dump
  mov %rsi, %r14
  mov %rdx, %rdi
  shl $3, %r8
  sub %r8, %rsp
  movdqu xmm_sentinels+0(%rip), %xmm0
  movdqu xmm_sentinels+16(%rip), %xmm1
  movdqu xmm_sentinels+32(%rip), %xmm2
  movdqu xmm_sentinels+48(%rip), %xmm3
  movdqu xmm_sentinels+64(%rip), %xmm4
  movdqu xmm_sentinels+80(%rip), %xmm5
  movdqu xmm_sentinels+96(%rip), %xmm6
  movdqu xmm_sentinels+112(%rip), %xmm7
  cmpb $1, umbra_test_vector_width(%rip)
  jb 2f
  ja 1f
  WIDE_SENTINELS vmovdqu, ymm
  jmp 2f
1:
  WIDE_SENTINELS vmovdqu64, zmm
2:
  movabs $0xa0a0a0a0a0a0a0a0, %rax
  movabs $0xa1a1a1a1a1a1a1a1, %rsi
  movabs $0xa2a2a2a2a2a2a2a2, %rdx
  movabs $0xa3a3a3a3a3a3a3a3, %rcx
  movabs $0xa4a4a4a4a4a4a4a4, %r8
  movabs $0xa5a5a5a5a5a5a5a5, %r9
  movabs $0xa6a6a6a6a6a6a6a6, %r10
  movabs $0xa7a7a7a7a7a7a7a7, %r11
  call *%rbx
  mov %rax, 0(%r12)
  mov %rdi, 8(%r12)
  mov %rsi, 16(%r12)
  mov %rdx, 24(%r12)
  mov %rcx, 32(%r12)
  mov %r8, 40(%r12)
  mov %r9, 48(%r12)
  mov %r10, 56(%r12)
  mov %r11, 64(%r12)
  mov %r14, 72(%r12)
  movdqu %xmm0, 80(%r12)
  movdqu %xmm1, 96(%r12)
  movdqu %xmm2, 112(%r12)
  movdqu %xmm3, 128(%r12)
  movdqu %xmm4, 144(%r12)
  movdqu %xmm5, 160(%r12)
  movdqu %xmm6, 176(%r12)
  movdqu %xmm7, 192(%r12)
  cmpb $1, umbra_test_vector_width(%rip)
  jb 2f
  ja 1f
  WIDE_DUMP vmovdqu, ymm
  jmp 2f
1:
  WIDE_DUMP vmovdqu64, zmm
2:
  lea -40(%rbp), %rsp
  pop %r15
  pop %r14
  pop %r13
  pop %r12
  pop %rbx
  pop %rbp
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
  .size umbra_test_call_hook, .-umbra_test_call_hook

  .section .rodata
  .p2align 4
  .globl umbra_test_xmm_sentinels
umbra_test_xmm_sentinels:
xmm_sentinels:
  .quad 0xb0b0b0b0b0b0b0b0, 0xc0c0c0c0c0c0c0c0
  .quad 0xb1b1b1b1b1b1b1b1, 0xc1c1c1c1c1c1c1c1
  .quad 0xb2b2b2b2b2b2b2b2, 0xc2c2c2c2c2c2c2c2
  .quad 0xb3b3b3b3b3b3b3b3, 0xc3c3c3c3c3c3c3c3
  .quad 0xb4b4b4b4b4b4b4b4, 0xc4c4c4c4c4c4c4c4
  .quad 0xb5b5b5b5b5b5b5b5, 0xc5c5c5c5c5c5c5c5
  .quad 0xb6b6b6b6b6b6b6b6, 0xc6c6c6c6c6c6c6c6
  .quad 0xb7b7b7b7b7b7b7b7, 0xc7c7c7c7c7c7c7c7

  // Vector registers 0-7 at their widest: the low 16 bytes of each as above, the rest distinct per register and word.
  .p2align 6
  .globl umbra_test_wide_sentinels
umbra_test_wide_sentinels:
wide_sentinels:
  .quad 0xb0b0b0b0b0b0b0b0, 0xc0c0c0c0c0c0c0c0, 0xd0d0d0d0d0d0d0d0, 0xd1d0d0d0d0d0d0d0, 0xd2d0d0d0d0d0d0d0, 0xd3d0d0d0d0d0d0d0, 0xd4d0d0d0d0d0d0d0, 0xd5d0d0d0d0d0d0d0
  .quad 0xb1b1b1b1b1b1b1b1, 0xc1c1c1c1c1c1c1c1, 0xd1d1d1d1d1d1d1d1, 0xd2d1d1d1d1d1d1d1, 0xd3d1d1d1d1d1d1d1, 0xd4d1d1d1d1d1d1d1, 0xd5d1d1d1d1d1d1d1, 0xd6d1d1d1d1d1d1d1
  .quad 0xb2b2b2b2b2b2b2b2, 0xc2c2c2c2c2c2c2c2, 0xd2d2d2d2d2d2d2d2, 0xd3d2d2d2d2d2d2d2, 0xd4d2d2d2d2d2d2d2, 0xd5d2d2d2d2d2d2d2, 0xd6d2d2d2d2d2d2d2, 0xd7d2d2d2d2d2d2d2
  .quad 0xb3b3b3b3b3b3b3b3, 0xc3c3c3c3c3c3c3c3, 0xd3d3d3d3d3d3d3d3, 0xd4d3d3d3d3d3d3d3, 0xd5d3d3d3d3d3d3d3, 0xd6d3d3d3d3d3d3d3, 0xd7d3d3d3d3d3d3d3, 0xd8d3d3d3d3d3d3d3
  .quad 0xb4b4b4b4b4b4b4b4, 0xc4c4c4c4c4c4c4c4, 0xd4d4d4d4d4d4d4d4, 0xd5d4d4d4d4d4d4d4, 0xd6d4d4d4d4d4d4d4, 0xd7d4d4d4d4d4d4d4, 0xd8d4d4d4d4d4d4d4, 0xd9d4d4d4d4d4d4d4
  .quad 0xb5b5b5b5b5b5b5b5, 0xc5c5c5c5c5c5c5c5, 0xd5d5d5d5d5d5d5d5, 0xd6d5d5d5d5d5d5d5, 0xd7d5d5d5d5d5d5d5, 0xd8d5d5d5d5d5d5d5, 0xd9d5d5d5d5d5d5d5, 0xdad5d5d5d5d5d5d5
  .quad 0xb6b6b6b6b6b6b6b6, 0xc6c6c6c6c6c6c6c6, 0xd6d6d6d6d6d6d6d6, 0xd7d6d6d6d6d6d6d6, 0xd8d6d6d6d6d6d6d6, 0xd9d6d6d6d6d6d6d6, 0xdad6d6d6d6d6d6d6, 0xdbd6d6d6d6d6d6d6
  .quad 0xb7b7b7b7b7b7b7b7, 0xc7c7c7c7c7c7c7c7, 0xd7d7d7d7d7d7d7d7, 0xd8d7d7d7d7d7d7d7, 0xd9d7d7d7d7d7d7d7, 0xdad7d7d7d7d7d7d7, 0xdbd7d7d7d7d7d7d7, 0xdcd7d7d7d7d7d7d7

  .section .note.GNU-stack,"",@progbits
