// Native and managed work in known proportions, for umbra's sampled-mode tests. First argument:
//   spin      managed Spin() calls a CPU-heavy native function for ~1.5 s
//   callback  managed RunCallback() -> native umbra_native_callback -> native trampoline -> managed Callback()
//   ratio MS  two busy managed methods doing 3:1 of the work for MS milliseconds (2,000 unless given), each timed;
//             prints BusyThree's measured share of their time in per mille (about 750; preemptions move it)
//   churn     5,000 short-lived threads, each running ChurnBody()
//   blocked   a thread sleeps in native code (SleepInNative) for the whole run while the main thread works
//   eintr MS  two threads wait in native poll and nanosleep, 1 ms at a time, for MS milliseconds, counting the
//             waits that failed with EINTR (none should), while the main thread works
//   dlopen MS a thread loads and unloads a library (libumbra_testplugin.so, beside the native one) in a loop for MS
//             milliseconds while the main thread works
//   shapes MS PHASE...  mixed stacks of everyday shapes (Shapes.cs), each phase for about MS milliseconds
// The native library's path comes from UMBRA_TEST_NATIVE_LIB; libumbra_shapes.so lies beside it.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace NativeMix;

public static unsafe class Program
{
    static long sink;
    static IntPtr lib;

    public static int Main(string[] args)
    {
        string native = Environment.GetEnvironmentVariable("UMBRA_TEST_NATIVE_LIB")!;
        NativeLibrary.SetDllImportResolver(typeof(Program).Assembly, (name, _, _) => name switch
        {
            "umbra_testnative" => lib = NativeLibrary.Load(native),
            "umbra_shapes" => NativeLibrary.Load(System.IO.Path.Combine(System.IO.Path.GetDirectoryName(native)!, "libumbra_shapes.so")),
            "libc" => NativeLibrary.Load("libc.so.6"),
            "libz" => NativeLibrary.Load("libz.so.1"),
            _ => IntPtr.Zero,
        });
        switch (args[0])
        {
            case "spin": Console.WriteLine($"spin {Spin(1500) > 0}"); break;
            case "callback": Console.WriteLine($"callback {RunCallback()}"); break;
            case "ratio": Console.WriteLine($"ratio done three_permille={Ratio(args.Length > 1 ? int.Parse(args[1]) : 2000)}"); break;
            case "churn": Console.WriteLine($"churn {Churn(args.Length > 1 ? int.Parse(args[1]) : 5000, args.Length > 2 ? double.Parse(args[2]) : 0.2)}"); break;
            case "blocked": Console.WriteLine($"blocked {Blocked()}"); break;
            case "eintr": Console.WriteLine($"eintr failures={StrictWaits(int.Parse(args[1]))}"); break;
            case "dlopen": Console.WriteLine(LoadUnload(int.Parse(args[1])) > 0 ? "dlopen ok" : "dlopen failed"); break;
            case "shapes": Shapes.Run(args[1..]); break;
        }
        return 0;
    }

    [DllImport("umbra_testnative")] static extern double umbra_native_spin(int ms);
    [DllImport("umbra_testnative")] static extern int umbra_native_callback(delegate* unmanaged<int, int> callback, int count);
    [DllImport("umbra_testnative")] static extern void umbra_native_sleep(int ms);
    [DllImport("umbra_testnative")] static extern int umbra_native_strict_waits(int ms);
    [DllImport("umbra_testnative")] static extern int umbra_native_load_unload([MarshalAs(UnmanagedType.LPUTF8Str)] string path, int ms);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static double Spin(int ms) { double r = umbra_native_spin(ms); sink++; return r; }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int RunCallback() { int r = umbra_native_callback(&Callback, 300); sink++; return r; }

    [UnmanagedCallersOnly]
    static int Callback(int value) => BusyFor(5) + value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int BusyFor(int ms)
    {
        var sw = Stopwatch.StartNew();
        int x = 0;
        while (sw.ElapsedMilliseconds < ms) x++;
        return x & 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Ratio(int totalMs)
    {
        long threeTicks = 0, oneTicks = 0;
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < totalMs)
        {
            long start = Stopwatch.GetTimestamp();
            sink += BusyThree();
            long between = Stopwatch.GetTimestamp();
            sink += BusyOne();
            threeTicks += between - start;
            oneTicks += Stopwatch.GetTimestamp() - between;
        }
        return threeTicks * 1000 / (threeTicks + oneTicks);
    }

    // Fixed amounts of work, not of time: 3:1 of the CPU even when the machine is busy with other things.
    [MethodImpl(MethodImplOptions.NoInlining)] static long BusyThree() => Work(3 * WorkUnit);
    [MethodImpl(MethodImplOptions.NoInlining)] static long BusyOne() => Work(WorkUnit);

    const long WorkUnit = 400_000;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Work(long iterations)
    {
        long x = 1;
        for (long i = 0; i < iterations; i++) x = x * 6364136223846793005L + i;
        return x & 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long CpuFor(TimeSpan span)
    {
        var end = Stopwatch.GetTimestamp() + (long)(span.TotalSeconds * Stopwatch.Frequency);
        long x = 0;
        while (Stopwatch.GetTimestamp() < end) x++;
        return x & 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Churn(int count, double bodyMs)
    {
        long done = 0;
        for (int batch = 0; batch < count / 50; batch++)
        {
            var threads = new Thread[50];
            for (int i = 0; i < threads.Length; i++)
            {
                threads[i] = new Thread(() => Interlocked.Add(ref done, ChurnBody(bodyMs)));
                threads[i].Start();
            }
            foreach (var t in threads) t.Join();
        }
        return done;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long ChurnBody(double ms) => CpuFor(TimeSpan.FromMilliseconds(ms)) * 0 + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Blocked()
    {
        // The first call binds the import and compiles its stub, work a loaded machine may stretch over many ticks;
        // SleepInNative's samples are those of the sleep alone.
        var sleeper = new Thread(() => { umbra_native_sleep(0); SleepInNative(2500); }) { Name = "native-sleeper", IsBackground = true };
        sleeper.Start();
        Thread.Sleep(50);
        long x = 0;
        x += CpuFor(TimeSpan.FromMilliseconds(1500));
        sleeper.Join();
        return x + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void SleepInNative(int ms) { umbra_native_sleep(ms); sink++; }

    // Rounds done by the loading thread (each a dlopen, a call, a dlclose), or minus the rounds that failed.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int LoadUnload(int ms)
    {
        string plugin = System.IO.Path.Combine(System.IO.Path.GetDirectoryName(Environment.GetEnvironmentVariable("UMBRA_TEST_NATIVE_LIB"))!, "libumbra_testplugin.so");
        int rounds = 0;
        var loader = new Thread(() => rounds = umbra_native_load_unload(plugin, ms)) { Name = "loader" };
        loader.Start();
        sink += CpuFor(TimeSpan.FromMilliseconds(ms / 2));
        loader.Join();
        return rounds;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int StrictWaits(int ms)
    {
        int failures = 0;
        var waiters = new Thread[2];
        for (int i = 0; i < waiters.Length; i++)
        {
            waiters[i] = new Thread(() => Interlocked.Add(ref failures, umbra_native_strict_waits(ms))) { Name = $"strict-{i}" };
            waiters[i].Start();
        }
        sink += CpuFor(TimeSpan.FromMilliseconds(ms / 2));
        foreach (var w in waiters) w.Join();
        return failures;
    }
}
