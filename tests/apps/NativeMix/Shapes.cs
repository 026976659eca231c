// Mixed stacks in the shapes programs make every day, one phase each, for umbra's tests of native frames between
// managed ones. `NativeMix shapes MS PHASE...` runs each phase for about MS milliseconds (or a fixed amount of work)
// and prints its truth: how many times its callbacks ran.
//   fnptr     Main -> RunFnPtr -> libc qsort -> [UnmanagedCallersOnly] CompareFnPtr -> Order, at a high frequency
//   delegate  RunDelegate -> libc qsort -> a marshalled delegate (Marshal.GetFunctionPointerForDelegate) ->
//             CompareDelegate -> Order
//   thread    RunThread -> umbra_shapes_run_thread; on a thread made by pthread_create: umbra_shapes_thread_start ->
//             [UnmanagedCallersOnly] ThreadEntry -> ThreadWork, then native work, then ThreadEntry again
//   crc       RunCrc -> qsort -> CompareCrc -> zlib crc32 (a callback that calls native code again)
//   ladder    RunLadder -> Ladder(1) -> qsort -> LadderCompare -> Ladder(2) -> qsort -> ..., four levels, then
//             LadderTop
//   compress  RunCompress -> zlib compress2 (a managed caller of a CPU-heavy native function)
//   nofp      RunNoFramePointers -> umbra_shapes_nofp_each -> umbra_shapes_nofp_inner (no frame pointers, unwind tables)
//             -> [UnmanagedCallersOnly] NoFpCallback -> BusyCallback
//   keeprbp   RunKeepRbp -> KeepRbpRound -> umbra_shapes_keep_rbp_each -> umbra_shapes_nofp_inner (both leave RBP
//             as it was) -> [UnmanagedCallersOnly] KeepRbpCallback -> BusyCallback
//   slow      RunSlow -> qsort -> CompareSlow, each call busy for 20 ms (callbacks at a low frequency)
// Each phase runs on the main thread except `thread`'s work.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace NativeMix;

public static unsafe class Shapes
{
    static long sink;
    static long calls;

    public static void Run(string[] args)
    {
        int ms = int.Parse(args[0]);
        for (int i = 1; i < args.Length; i++)
        {
            calls = 0;
            string truth = args[i] switch
            {
                "fnptr" => $"callbacks={RunFnPtr(ms)}",
                "delegate" => $"callbacks={RunDelegate(ms)}",
                "thread" => $"entries={RunThread(ms)}",
                "crc" => $"callbacks={RunCrc(ms)}",
                "ladder" => RunLadder(ms),
                "compress" => $"calls={RunCompress(ms)}",
                "nofp" => $"callbacks={RunNoFramePointers(ms)}",
                "keeprbp" => $"callbacks={RunKeepRbp(ms)}",
                "slow" => $"callbacks={RunSlow(ms)}",
                _ => throw new ArgumentException($"unknown shape {args[i]}"),
            };
            Console.WriteLine($"shape {args[i]} {truth}");
        }
    }

    [DllImport("libc", EntryPoint = "qsort")]
    static extern void qsort(void* data, nuint count, nuint size, delegate* unmanaged<int*, int*, int> compare);
    [DllImport("libc", EntryPoint = "qsort")]
    static extern void qsort_delegate(void* data, nuint count, nuint size, IntPtr compare);
    [DllImport("libz")] static extern uint crc32(uint crc, byte* data, uint length);
    [DllImport("libz")] static extern int compress2(byte* dest, nuint* destLength, byte* source, nuint sourceLength, int level);
    [DllImport("umbra_shapes")] static extern long umbra_shapes_run_thread(delegate* unmanaged<int, long> entry, int ms);
    [DllImport("umbra_shapes")] static extern int umbra_shapes_nofp_each(delegate* unmanaged<int, int> callback, int count);
    [DllImport("umbra_shapes")] static extern int umbra_shapes_keep_rbp_each(delegate* unmanaged<int, int> callback, int count);

    static int[] Shuffled(int n, int seed)
    {
        var r = new Random(seed);
        var a = new int[n];
        for (int i = 0; i < n; i++) a[i] = r.Next();
        return a;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Order(int a, int b) => a < b ? -1 : a > b ? 1 : 0;

    // --- fnptr: a tiny UnmanagedCallersOnly comparer called millions of times a second ---
    [UnmanagedCallersOnly]
    static int CompareFnPtr(int* a, int* b)
    {
        calls++;
        return Order(*a, *b);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long RunFnPtr(int ms)
    {
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < ms)
        {
            int[] a = Shuffled(4096, (int)calls);
            fixed (int* p = a) qsort(p, (nuint)a.Length, sizeof(int), &CompareFnPtr);
        }
        return calls;
    }

    // --- delegate: the same comparer as a marshalled delegate ---
    delegate int Comparer(int* a, int* b);

    static int CompareDelegate(int* a, int* b)
    {
        calls++;
        return Order(*a, *b);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long RunDelegate(int ms)
    {
        Comparer compare = CompareDelegate;
        IntPtr f = Marshal.GetFunctionPointerForDelegate(compare);
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < ms)
        {
            int[] a = Shuffled(4096, (int)calls);
            fixed (int* p = a) qsort_delegate(p, (nuint)a.Length, sizeof(int), f);
        }
        GC.KeepAlive(compare);
        return calls;
    }

    // --- thread: a thread of native code's own entering managed code, leaving it, entering it again ---
    [UnmanagedCallersOnly]
    static long ThreadEntry(int ms)
    {
        calls++;
        return ThreadWork(ms);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long ThreadWork(int ms)
    {
        var sw = Stopwatch.StartNew();
        long x = 0;
        while (sw.ElapsedMilliseconds < ms) x = x * 6364136223846793005L + 1;
        return (x & 1) + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long RunThread(int ms)
    {
        long r = umbra_shapes_run_thread(&ThreadEntry, ms / 2);
        if (r < 0) throw new InvalidOperationException("pthread_create failed");
        return calls;
    }

    // --- crc: native code on top of a callback ---
    static byte[] block = new byte[16384];

    [UnmanagedCallersOnly]
    static int CompareCrc(int* a, int* b)
    {
        calls++;
        fixed (byte* p = block) sink += crc32(0, p, (uint)block.Length);
        return Order(*a, *b);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long RunCrc(int ms)
    {
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < ms)
        {
            int[] a = Shuffled(64, (int)calls);
            fixed (int* p = a) qsort(p, (nuint)a.Length, sizeof(int), &CompareCrc);
        }
        return calls;
    }

    // --- ladder: managed -> qsort -> comparer -> managed -> qsort -> ..., four levels ---
    const int LadderLevels = 4;
    static int level;
    static readonly long[] ladderCalls = new long[LadderLevels + 1];

    [UnmanagedCallersOnly]
    static int LadderCompare(int* a, int* b)
    {
        ladderCalls[level]++;
        if (level < LadderLevels) Ladder(level + 1);
        else sink += LadderTop();
        return Order(*a, *b);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long LadderTop()
    {
        long x = 1;
        for (int i = 0; i < 200_000; i++) x = x * 6364136223846793005L + i;
        return x & 1;
    }

    // Sorts two elements: qsort compares them once.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Ladder(int at)
    {
        int saved = level;
        level = at;
        int* pair = stackalloc int[2] { 2, 1 };
        qsort(pair, 2, sizeof(int), &LadderCompare);
        level = saved;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static string RunLadder(int ms)
    {
        Array.Clear(ladderCalls);
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < ms) Ladder(1);
        return $"callbacks={ladderCalls[1]},{ladderCalls[2]},{ladderCalls[3]},{ladderCalls[4]}";
    }

    // --- compress: a managed caller of a CPU-heavy native function ---
    [MethodImpl(MethodImplOptions.NoInlining)]
    static long RunCompress(int ms)
    {
        var source = new byte[1 << 20];
        new Random(1).NextBytes(source);
        var dest = new byte[(1 << 20) + (1 << 16)];
        long n = 0;
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < ms)
        {
            nuint length = (nuint)dest.Length;
            fixed (byte* d = dest)
            fixed (byte* s = source)
                if (compress2(d, &length, s, (nuint)source.Length, 6) != 0) throw new InvalidOperationException("compress2");
            n++;
        }
        return n;
    }

    // --- nofp: callbacks from a library built without frame pointers ---
    [UnmanagedCallersOnly]
    static int NoFpCallback(int value)
    {
        calls++;
        return BusyCallback(value);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int BusyCallback(int value)
    {
        long x = value;
        for (int i = 0; i < 20_000; i++) x = x * 6364136223846793005L + i;
        return (int)(x & 1);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long RunNoFramePointers(int ms)
    {
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < ms) sink += umbra_shapes_nofp_each(&NoFpCallback, 100);
        return calls;
    }

    // --- keeprbp: callbacks from native code that leaves RBP as it was ---
    [UnmanagedCallersOnly]
    static int KeepRbpCallback(int value)
    {
        calls++;
        return BusyCallback(value);
    }

    // The call into native code from a method without a loop: never replaced on stack (KeepRbpRound's frame record
    // is the one RBP holds during the callbacks).
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int KeepRbpRound() => umbra_shapes_keep_rbp_each(&KeepRbpCallback, 100);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long RunKeepRbp(int ms)
    {
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < ms) sink += KeepRbpRound();
        return calls;
    }

    // --- slow: few callbacks, each long ---
    [UnmanagedCallersOnly]
    static int CompareSlow(int* a, int* b)
    {
        calls++;
        var sw = Stopwatch.StartNew();
        long x = 0;
        while (sw.ElapsedMilliseconds < 20) x++;
        sink += x & 1;
        return Order(*a, *b);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long RunSlow(int ms)
    {
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < ms)
        {
            int[] a = Shuffled(8, (int)calls);
            fixed (int* p = a) qsort(p, (nuint)a.Length, sizeof(int), &CompareSlow);
        }
        return calls;
    }
}
