// Explicit IL tail calls, emitted into a run-time assembly (methods with metadata, so the profiler's hooks see
// them), for umbra's tail-call tests. Each chain would overflow the stack without tail calls.
//   self      SelfTail(n, acc): 2,000,001 calls, self tail recursion 2,000,000 deep
//   mutual    IsEven/IsOdd: 1,000,001 calls, mutual tail recursion 1,000,000 deep
//   throw     TailThrow(n) tail-calls itself 1,000 times, then throws; caught by the driver (100 times)
//   native    TailToNative(n) tail-calls itself 1,000 times, then tail-calls a method that calls native code
//   helper    HelperChain(n) <-> HelperWide(10 args): the wide callee needs more stack arguments than its caller
//             has, so that tail call goes through the runtime's helpers; 100,000 rounds
//   implicit  optimized C#: ImplicitCaller's last act is to call ImplicitCallee (an opportunistic tail call), 1,000x
using System;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace TailCalls;

public static class Program
{
    static Type chains = null!;

    public static int Main(string[] args)
    {
        chains = Emit();
        long result = 0;
        foreach (string what in args)
        {
            switch (what)
            {
                case "self": result += RunSelf(); break;
                case "mutual": result += RunMutual(); break;
                case "throw": result += RunThrow(); break;
                case "native": result += RunNative(); break;
                case "helper": result += RunHelper(); break;
                case "implicit": result += RunImplicit(); break;
            }
        }
        Console.WriteLine($"tail calls: {result}");
        return 0;
    }

    static Func<long, long, long> Fn2(string name) =>
        chains.GetMethod(name)!.CreateDelegate<Func<long, long, long>>();
    static Func<long, long> Fn1(string name) => chains.GetMethod(name)!.CreateDelegate<Func<long, long>>();

    [MethodImpl(MethodImplOptions.NoInlining)] static long RunSelf() { long r = Fn2("SelfTail")(2_000_000, 0); return r + 0 * Marker(); }
    [MethodImpl(MethodImplOptions.NoInlining)] static long RunMutual() { long r = Fn1("IsEven")(1_000_000); return r + 0 * Marker(); }
    [MethodImpl(MethodImplOptions.NoInlining)] static long RunNative() { long r = Fn1("TailToNative")(1_000); return r + 0 * Marker(); }
    [MethodImpl(MethodImplOptions.NoInlining)] static long RunHelper() { long r = Fn1("HelperChain")(100_000); return r + 0 * Marker(); }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long RunThrow()
    {
        var f = Fn1("TailThrow");
        long caught = 0;
        for (int i = 0; i < 100; i++)
        {
            try { f(1_000); } catch (InvalidOperationException) { caught++; }
            caught += AfterThrow();
        }
        return caught;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long RunImplicit()
    {
        long sum = 0;
        for (int i = 0; i < 1000; i++) sum += ImplicitCaller(i);
        return sum & 1;
    }

    // Fully optimized from the start, so the JIT may replace this frame with a jump to the callee.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    static long ImplicitCaller(long x) => ImplicitCallee(x + 1, x, x, x);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long ImplicitCallee(long a, long b, long c, long d) => a + b + c + d;

    [MethodImpl(MethodImplOptions.NoInlining)] static long AfterThrow() => 0;
    [MethodImpl(MethodImplOptions.NoInlining)] static long Marker() => 1;

    [DllImport("libc", EntryPoint = "getpid")] static extern int getpid();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long CallsNative(long n) { long pid = getpid(); return n + (pid > 0 ? 1 : 0); }

    static Type Emit()
    {
        var asm = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName("TailEmit"), AssemblyBuilderAccess.Run);
        var module = asm.DefineDynamicModule("TailEmit");
        var type = module.DefineType("TailEmit.Chains", TypeAttributes.Public | TypeAttributes.Class | TypeAttributes.Sealed | TypeAttributes.Abstract);
        var l = typeof(long);
        MethodBuilder Define(string name, int arity) =>
            type.DefineMethod(name, MethodAttributes.Public | MethodAttributes.Static, l, Enumerable(l, arity));

        var self = Define("SelfTail", 2);
        var even = Define("IsEven", 1);
        var odd = Define("IsOdd", 1);
        var tthrow = Define("TailThrow", 1);
        var tnative = Define("TailToNative", 1);
        var chain = Define("HelperChain", 1);
        var wide = Define("HelperWide", 10);

        // SelfTail(n, acc) => n == 0 ? acc : tail SelfTail(n - 1, acc + 1)
        var g = self.GetILGenerator();
        var recurse = g.DefineLabel();
        g.Emit(OpCodes.Ldarg_0); g.Emit(OpCodes.Brtrue, recurse); g.Emit(OpCodes.Ldarg_1); g.Emit(OpCodes.Ret);
        g.MarkLabel(recurse);
        g.Emit(OpCodes.Ldarg_0); g.Emit(OpCodes.Ldc_I8, 1L); g.Emit(OpCodes.Sub);
        g.Emit(OpCodes.Ldarg_1); g.Emit(OpCodes.Ldc_I8, 1L); g.Emit(OpCodes.Add);
        g.Emit(OpCodes.Tailcall); g.Emit(OpCodes.Call, self); g.Emit(OpCodes.Ret);

        // IsEven(n) => n == 0 ? 1 : tail IsOdd(n - 1); IsOdd(n) => n == 0 ? 0 : tail IsEven(n - 1)
        EmitCountdown(even, 1L, g2 => { g2.Emit(OpCodes.Tailcall); g2.Emit(OpCodes.Call, odd); });
        EmitCountdown(odd, 0L, g2 => { g2.Emit(OpCodes.Tailcall); g2.Emit(OpCodes.Call, even); });

        // TailThrow(n) => n == 0 ? throw : tail TailThrow(n - 1)
        g = tthrow.GetILGenerator();
        recurse = g.DefineLabel();
        g.Emit(OpCodes.Ldarg_0); g.Emit(OpCodes.Brtrue, recurse);
        g.Emit(OpCodes.Newobj, typeof(InvalidOperationException).GetConstructor(Type.EmptyTypes)!); g.Emit(OpCodes.Throw);
        g.MarkLabel(recurse);
        g.Emit(OpCodes.Ldarg_0); g.Emit(OpCodes.Ldc_I8, 1L); g.Emit(OpCodes.Sub);
        g.Emit(OpCodes.Tailcall); g.Emit(OpCodes.Call, tthrow); g.Emit(OpCodes.Ret);

        // TailToNative(n) => n == 0 ? tail Program.CallsNative(0) : tail TailToNative(n - 1)
        g = tnative.GetILGenerator();
        recurse = g.DefineLabel();
        g.Emit(OpCodes.Ldarg_0); g.Emit(OpCodes.Brtrue, recurse);
        g.Emit(OpCodes.Ldc_I8, 0L); g.Emit(OpCodes.Tailcall); g.Emit(OpCodes.Call, typeof(Program).GetMethod(nameof(CallsNative))!); g.Emit(OpCodes.Ret);
        g.MarkLabel(recurse);
        g.Emit(OpCodes.Ldarg_0); g.Emit(OpCodes.Ldc_I8, 1L); g.Emit(OpCodes.Sub);
        g.Emit(OpCodes.Tailcall); g.Emit(OpCodes.Call, tnative); g.Emit(OpCodes.Ret);

        // HelperChain(n) => n == 0 ? 0 : tail HelperWide(n - 1, n, n, n, n, n, n, n, n, n)  (needs helpers)
        // HelperWide(a0..a9) => tail HelperChain(a0)                                     (a fast tail call)
        g = chain.GetILGenerator();
        recurse = g.DefineLabel();
        g.Emit(OpCodes.Ldarg_0); g.Emit(OpCodes.Brtrue, recurse); g.Emit(OpCodes.Ldc_I8, 0L); g.Emit(OpCodes.Ret);
        g.MarkLabel(recurse);
        g.Emit(OpCodes.Ldarg_0); g.Emit(OpCodes.Ldc_I8, 1L); g.Emit(OpCodes.Sub);
        for (int i = 0; i < 9; i++) g.Emit(OpCodes.Ldarg_0);
        g.Emit(OpCodes.Tailcall); g.Emit(OpCodes.Call, wide); g.Emit(OpCodes.Ret);
        g = wide.GetILGenerator();
        g.Emit(OpCodes.Ldarg_0); g.Emit(OpCodes.Tailcall); g.Emit(OpCodes.Call, chain); g.Emit(OpCodes.Ret);

        return type.CreateType()!;
    }

    static void EmitCountdown(MethodBuilder method, long atZero, Action<ILGenerator> tailCall)
    {
        var g = method.GetILGenerator();
        var recurse = g.DefineLabel();
        g.Emit(OpCodes.Ldarg_0); g.Emit(OpCodes.Brtrue, recurse); g.Emit(OpCodes.Ldc_I8, atZero); g.Emit(OpCodes.Ret);
        g.MarkLabel(recurse);
        g.Emit(OpCodes.Ldarg_0); g.Emit(OpCodes.Ldc_I8, 1L); g.Emit(OpCodes.Sub);
        tailCall(g);
        g.Emit(OpCodes.Ret);
    }

    static Type[] Enumerable(Type t, int n) { var a = new Type[n]; Array.Fill(a, t); return a; }
}
