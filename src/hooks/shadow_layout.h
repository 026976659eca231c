// Where the ELT3 assembly fast path (elt3_trampolines.S) finds what it reads and writes: the first cache lines of a
// ThreadShadow (ShadowHotState), a shadow frame, a HotNode and the hooks' clock. Plain macros, so that the assembly
// includes this file too; thread_shadow.h checks every offset against the C++ types at compile time.
#pragma once

// ShadowHotState, at offset 0 of every ThreadShadow.
#define UMBRA_HOT_DEPTH 0           // uint32_t: frames on the stack
#define UMBRA_HOT_FAST_LIMIT 4      // uint32_t: the fast path may push below this depth; 0: it may do nothing
#define UMBRA_HOT_FRAMES 8          // ShadowFrame*
#define UMBRA_HOT_NODES 16          // HotNode*
#define UMBRA_HOT_HINT_FUNCTION 24  // FunctionID of the frame that last returned or tail-called
#define UMBRA_HOT_HINT_DEPTH 32     // uint32_t: the depth it left, or ~0
#define UMBRA_HOT_HINT_NODE 36      // uint32_t: its node
#define UMBRA_HOT_CURRENT 40        // uint32_t: the node on top of the stack (0: the root)
#define UMBRA_HOT_TREE_FULL 44      // uint32_t: the collector node of a full tree
#define UMBRA_HOT_ENTERS 48         // uint64_t
#define UMBRA_HOT_LEAVES 56         // uint64_t
// The next cache line, which only tail calls and their callees' enters touch.
#define UMBRA_HOT_TAILCALLS 64           // uint64_t
#define UMBRA_HOT_PENDING_TAIL_ENTRY 72  // bool: the next enter is a tail call's callee
#define UMBRA_HOT_LIMIT_AFTER_TAIL 76    // uint32_t: fast_limit once that enter is done
#define UMBRA_HOT_COLD_NODES 80          // CallNode*
#define UMBRA_HOT_STATE_SIZE 128

// ShadowFrame.
#define UMBRA_FRAME_NODE 0       // uint32_t
#define UMBRA_FRAME_START 8      // uint64_t ticks
#define UMBRA_FRAME_FUNCTION 16  // FunctionID
#define UMBRA_FRAME_SIZE 24

// HotNode: node n is at nodes + (n << UMBRA_NODE_SHIFT).
#define UMBRA_NODE_FUNCTION 0
#define UMBRA_NODE_CALLS 8
#define UMBRA_NODE_TICKS 16
#define UMBRA_NODE_SUCCESSOR 24  // uint32_t
#define UMBRA_NODE_LAST_HIT 28   // uint32_t
#define UMBRA_NODE_SHIFT 5

// CallNode: node n is at cold_nodes + (n << UMBRA_COLD_NODE_SHIFT).
#define UMBRA_COLD_NODE_TAIL_ENTRIES 48  // uint64_t
#define UMBRA_COLD_NODE_SHIFT 6

// HookClock (tick_clock.h).
#define UMBRA_CLOCK_COARSE_TICKS 0  // uint64_t
#define UMBRA_CLOCK_EXACT 8         // bool
