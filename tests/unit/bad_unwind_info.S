// A native function whose unwind information sends an unwinder to unmapped memory while it spins: the frame's CFA
// is declared as rbp + 16, and rbp points at a page mapped without access (an unmapped one libunwind notices and
// refuses; a mapped one it reads, and faults). For the capture handler's fault-guard test.
//   void umbra_test_spin_with_bad_unwind_info(const volatile int* stop, void* unreadable);  // until *stop != 0
    .text
    .globl umbra_test_spin_with_bad_unwind_info
    .type umbra_test_spin_with_bad_unwind_info, @function
umbra_test_spin_with_bad_unwind_info:
    .cfi_startproc
    push %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    mov %rsi, %rbp
    .cfi_def_cfa %rbp, 16
1:  pause
    cmpl $0, (%rdi)
    je 1b
    .cfi_def_cfa %rsp, 16
    pop %rbp
    .cfi_def_cfa_offset 8
    ret
    .cfi_endproc
    .size umbra_test_spin_with_bad_unwind_info, .-umbra_test_spin_with_bad_unwind_info
    .section .note.GNU-stack,"",@progbits
