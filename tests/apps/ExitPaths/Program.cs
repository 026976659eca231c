// Ends in the way its first argument names, after known calls, for umbra's exit-path tests:
//   return | exit | exit-from-worker | unhandled | unhandled-on-worker | runtime-catches
//   | sigterm | sigint (sends itself the signal, then waits to be ended by it)
//   | spawn (runs this program twice more as child processes, each ending by return, then returns)
//   | spawn-wide (runs this program once more in mode wide, then returns at once)
//   | wide (Left(20): 2,097,151 calls of Left and Right, each on a path of its own: a report that takes a while)
//   | failfast | failfast-from-worker (Environment.FailFast) | native-abort (libc's abort() through P/Invoke)
//   | signals (prints "ready", counts Ctrl-C presses until a line arrives on stdin, then prints the count)
//   | hostile-names (a thread and a run-time emitted method whose names carry newlines, terminal escapes,
//     U+2028 and HTML, each running known calls)
//   | native-exit (libc's exit(11) through P/Invoke) | sigkill (sends itself SIGKILL)
//   | own-sigterm (handles SIGTERM itself through PosixSignalRegistration, sends it to itself, goes on)
//   | deep (Deep recursing 100 calls deep, then 42 calls of Counted at the bottom)
//   | node-limit (Left(22): 8,388,607 calls of Left and Right, each on a path of its own, more than a thread's
//     node space holds)
//   | outlive (starts this program as a descendant in mode after-parent, which ends after this process does)
using System;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Threading;

namespace ExitPaths;

public static class Program
{
    static long sink;

    public static int Main(string[] args)
    {
        string how = args.Length > 0 ? args[0] : "return";
        for (int i = 0; i < 42; i++) sink += Counted(i);
        sink += OptimizedCaller();
        Console.WriteLine($"ending by {how}");
        Console.Out.Flush();
        switch (how)
        {
            case "exit":
                Environment.Exit(7);
                break;
            case "exit-from-worker":
                var t = new Thread(() => Environment.Exit(9));
                t.Start();
                t.Join();
                break;
            case "unhandled":
                Fail();
                break;
            case "runtime-catches":
                RuntimeCatches();
                for (int i = 0; i < 42; i++) sink += AfterRuntimeCatches(i);
                break;
            case "sigterm":
                SignalSelfAndWait(15);
                break;
            case "sigint":
                SignalSelfAndWait(2);
                break;
            case "spawn":
                for (int i = 0; i < 2; i++) RunChild("return");
                break;
            case "failfast":
                FailFastNow();
                break;
            case "failfast-from-worker":
                var f = new Thread(FailFastNow);
                f.Start();
                f.Join();
                break;
            case "native-abort":
                AbortNatively();
                break;
            case "signals":
                CountCancelKeyPresses();
                break;
            case "hostile-names":
                HostileNames();
                break;
            case "native-exit":
                ExitNatively(11);
                break;
            case "sigkill":
                SignalSelfAndWait(9);
                break;
            case "own-sigterm":
                HandleOwnSigterm();
                break;
            case "deep":
                sink += Deep(100);
                break;
            case "node-limit":
                Left(22);
                break;
            case "spawn-wide":
                RunChild("wide");
                break;
            case "wide":
                Left(20);
                break;
            case "outlive":
                StartDescendant();
                break;
            case "after-parent":
                return AfterParent(int.Parse(args[1]));
            case "unhandled-on-worker":
                var w = new Thread(() => Fail());
                w.Start();
                w.Join();
                break;
        }
        return 5;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Counted(int i) => i & 1;

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "abort")]
    static extern void Abort();

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void AbortNatively() => Abort();

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "kill")]
    static extern int Kill(int pid, int signal);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void SignalSelfAndWait(int signal)
    {
        Kill(Environment.ProcessId, signal);
        Thread.Sleep(60000);  // the signal ends the program long before this
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "exit")]
    static extern void Exit(int code);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void ExitNatively(int code) => Exit(code);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void HandleOwnSigterm()
    {
        using var handled = new ManualResetEventSlim();
        using var registration = System.Runtime.InteropServices.PosixSignalRegistration.Create(
            System.Runtime.InteropServices.PosixSignal.SIGTERM, context => { context.Cancel = true; handled.Set(); });
        Kill(Environment.ProcessId, 15);
        handled.Wait();
        for (int i = 0; i < 42; i++) sink += AfterOwnHandler(i);
        Console.WriteLine("handled SIGTERM itself");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int AfterOwnHandler(int i) => i & 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Deep(int n)
    {
        if (n > 1) return Deep(n - 1) + 1;
        for (int i = 0; i < 42; i++) sink += Counted(i);
        return 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Left(int depth)
    {
        if (depth == 0) return;
        Left(depth - 1);
        Right(depth - 1);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Right(int depth)
    {
        if (depth == 0) return;
        Left(depth - 1);
        Right(depth - 1);
    }

    // The descendant's stdin is a pipe only this process writes to: it reads end-of-file once this process is gone.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void StartDescendant()
    {
        var start = new System.Diagnostics.ProcessStartInfo(Environment.ProcessPath!) { RedirectStandardInput = true };
        if (!Environment.ProcessPath!.EndsWith("/ExitPaths")) start.ArgumentList.Add(typeof(Program).Assembly.Location);
        start.ArgumentList.Add("after-parent");
        start.ArgumentList.Add(Environment.ProcessId.ToString());
        System.Diagnostics.Process.Start(start);
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "getppid")]
    static extern int GetParentPid();

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int AfterParent(int parent)
    {
        Console.In.ReadToEnd();
        for (int i = 0; i < 42; i++) sink += AfterParentEnded(i);
        Console.WriteLine($"descendant ran on after its parent: {GetParentPid() != parent}");
        return 6;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int AfterParentEnded(int i) => i & 1;

    static int cancelKeyPresses;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void CountCancelKeyPresses()
    {
        Console.CancelKeyPress += (_, e) =>
        {
            e.Cancel = true;
            Console.WriteLine($"cancel key press {Interlocked.Increment(ref cancelKeyPresses)}");
            Console.Out.Flush();
        };
        Console.WriteLine("ready");
        Console.Out.Flush();
        Console.ReadLine();
        Console.WriteLine($"cancel key presses: {cancelKeyPresses}");
    }

    public const string HostileThreadName = "evil\n=== thread \"forged\"\u001b]0;pwned\u0007\u001b[2J\r\u2028\u0085end";
    public const string HostileMethodName = "Evil\n999 \u2028<!--<script>\u001b[2J;x</script>";

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void HostileNames()
    {
        var worker = new Thread(() => { for (int i = 0; i < 42; i++) sink += Counted(i); }) { Name = HostileThreadName };
        worker.Start();
        worker.Join();
        var module = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName("Hostile"), AssemblyBuilderAccess.Run)
            .DefineDynamicModule("Hostile");
        var type = module.DefineType("Hostile.Names", TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed);
        var method = type.DefineMethod(HostileMethodName, MethodAttributes.Public | MethodAttributes.Static, typeof(int), Type.EmptyTypes);
        var il = method.GetILGenerator();
        il.Emit(OpCodes.Ldc_I4, 7);
        il.Emit(OpCodes.Ret);
        var emitted = type.CreateType().GetMethod(HostileMethodName)!;
        for (int i = 0; i < 3; i++) sink += (int)emitted.Invoke(null, null)!;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RunChild(string mode)
    {
        // In a working directory of its own where nothing can be written, as a build runs its compiler in the
        // project's: a report placed by the child's working directory would be lost.
        var start = new System.Diagnostics.ProcessStartInfo(Environment.ProcessPath!)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            WorkingDirectory = "/proc",
        };
        start.ArgumentList.Add(typeof(Program).Assembly.Location);
        start.ArgumentList.Add(mode);
        using var child = System.Diagnostics.Process.Start(start)!;
        var error = child.StandardError.ReadToEndAsync();
        string output = child.StandardOutput.ReadToEnd();
        child.WaitForExit();
        Console.WriteLine($"child said '{output.Trim()}' and '{error.Result.Trim()}' on stderr, and exited with {child.ExitCode}");
    }

    // Compiled fully optimized at once, so the JIT inlines Inlinable here unless the profiler forbids inlining.
    [MethodImpl(MethodImplOptions.AggressiveOptimization | MethodImplOptions.NoInlining)]
    static int OptimizedCaller()
    {
        int sum = 0;
        for (int i = 0; i < 42; i++) sum += Inlinable(i);
        return sum;
    }

    static int Inlinable(int i) => i + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void FailFastNow() => Environment.FailFast("deliberate fail-fast");

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Fail() => throw new InvalidOperationException("deliberately unhandled");

    // Exceptions that no managed frame catches but runtime code does: none of them ends the process.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RuntimeCatches()
    {
        try { sink += Throwing.Value; } catch (TypeInitializationException) { sink++; }
        try { typeof(Program).GetMethod(nameof(Fail), BindingFlags.NonPublic | BindingFlags.Static)!.Invoke(null, null); }
        catch (TargetInvocationException) { sink++; }
        try { Filtered(); } catch (InvalidOperationException) { sink++; }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Filtered()
    {
        try { Fail(); }
        catch (Exception e) when (ThrowInFilter(e)) { sink--; }  // the filter's own exception is swallowed
    }

    static bool ThrowInFilter(Exception e) => throw new ArgumentException("from a filter");

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int AfterRuntimeCatches(int i) => i & 1;

    static class Throwing
    {
        public static readonly int Value = Init();
        static int Init() => throw new InvalidOperationException("type initializer");
    }
}
