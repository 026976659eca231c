// Jint, a JavaScript interpreter, against C#: generated nested expressions through the interpreter's recursive
// evaluator, recursive functions and array pipelines, JSON exchanged with Newtonsoft.Json, and .NET objects read
// from script through its interop layer.
using System;
using System.Collections.Generic;
using System.Linq;
using Jint;
using Newtonsoft.Json;
using Newtonsoft.Json.Serialization;
using Xunit;

namespace LibrarySuite;

public class ScriptTests
{
    const string Prelude = @"
function mix(a, b) { return a * 3 - b; }
function clamp(x, lo, hi) { return x < lo ? lo : (x > hi ? hi : x); }
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function tree(depth, seed) {
  if (depth === 0) return { value: seed % 10, children: [] };
  const children = [];
  for (let i = 0; i < 2 + seed % 2; i++) children.push(tree(depth - 1, seed * 31 + i));
  return { value: seed % 10, children };
}
function sum(node) { return node.value + node.children.reduce((s, c) => s + sum(c), 0); }
";

    public static TheoryData<int> Seeds => Make.Seeds(100, 90000);

    static Engine NewEngine()
    {
        var engine = new Engine(options => options.LimitRecursion(2000).TimeoutInterval(TimeSpan.FromSeconds(30)));
        engine.Execute(Prelude);
        return engine;
    }

    // An expression and its value, computed beside it; integers stay far below 2^53, where doubles are exact.
    static (string Js, long Value) Expression(Random r, int depth)
    {
        if (depth == 0 || r.Next(5) == 0)
        {
            long leaf = r.Next(0, 100);
            return (leaf.ToString(), leaf);
        }
        var (a, va) = Expression(r, depth - 1);
        switch (r.Next(7))
        {
            case 0: { var (b, vb) = Expression(r, depth - 1); return ($"({a} + {b})", va + vb); }
            case 1: { var (b, vb) = Expression(r, depth - 1); return ($"({a} - {b})", va - vb); }
            case 2: { int k = r.Next(0, 4); return ($"({a} * {k})", va * k); }
            case 3: { int m = r.Next(1, 97); return ($"({a} % {m})", va % m); }
            case 4: { var (b, vb) = Expression(r, depth - 1); return ($"mix({a}, {b})", va * 3 - vb); }
            case 5:
            {
                int lo = r.Next(-500, 0), hi = r.Next(0, 500);
                return ($"clamp({a}, {lo}, {hi})", Math.Clamp(va, lo, hi));
            }
            default:
            {
                var (b, vb) = Expression(r, depth - 1);
                var (c, vc) = Expression(r, depth - 2 < 0 ? 0 : depth - 2);
                return ($"({a} > {b} ? {c} : {a})", va > vb ? vc : va);
            }
        }
    }

    [Theory, MemberData(nameof(Seeds))]
    public void ExpressionsEvaluateAsInCSharp(int seed)
    {
        var r = new Random(seed);
        var engine = NewEngine();
        for (int i = 0; i < 12; i++)
        {
            var (js, value) = Expression(r, r.Next(3, 9));
            Assert.Equal((double)value, engine.Evaluate(js).AsNumber());
        }
    }

    static long Fib(int n) => n < 2 ? n : Fib(n - 1) + Fib(n - 2);

    [Theory, MemberData(nameof(Seeds))]
    public void FunctionsAndArrays(int seed)
    {
        var r = new Random(seed);
        var engine = NewEngine();
        int n = 8 + seed % 9;
        Assert.Equal(Fib(n), (long)engine.Evaluate($"fib({n})").AsNumber());

        var data = Enumerable.Range(0, r.Next(10, 300)).Select(_ => r.Next(-1000, 1000)).ToArray();
        engine.SetValue("data", data);
        double piped = engine.Evaluate("Array.from(data).filter(x => x % 3 !== 0).map(x => x * 2)" +
                                       ".sort((a, b) => a - b).reduce((s, x, i) => s + x * (i % 7), 0)").AsNumber();
        long expected = data.Where(x => x % 3 != 0).Select(x => x * 2).OrderBy(x => x)
                            .Select((x, i) => (long)x * (i % 7)).Sum();
        Assert.Equal((double)expected, piped);

        int depth = 2 + seed % 5;
        Assert.Equal(TreeSum(depth, seed), (long)engine.Evaluate($"sum(tree({depth}, {seed}))").AsNumber());
        string joined = engine.Evaluate("Array.from(data).slice(0, 5).map(String).join('|')").AsString();
        Assert.Equal(string.Join("|", data.Take(5)), joined);
    }

    // tree() and sum() in the prelude, in C#; JavaScript numbers are doubles, so the seed arithmetic is too.
    static long TreeSum(int depth, double seed)
    {
        long value = (long)(seed % 10);
        if (depth == 0) return value;
        for (int i = 0; i < 2 + seed % 2; i++) value += TreeSum(depth - 1, seed * 31 + i);
        return value;
    }

    [Theory, MemberData(nameof(Seeds))]
    public void JsonCrossesIntoScriptAndBack(int seed)
    {
        Order order = Make.Order(seed);
        string json = JsonConvert.SerializeObject(order, new JsonSerializerSettings
        {
            ContractResolver = new DefaultContractResolver { NamingStrategy = new CamelCaseNamingStrategy() },
        });
        var engine = NewEngine();
        engine.SetValue("json", json);
        double cents = engine.Evaluate(
            "JSON.parse(json).lines.reduce((s, l) => s + l.quantity * Math.round(l.unitPrice * 100), 0)").AsNumber();
        Assert.Equal((double)order.Lines.Sum(l => l.Quantity * (long)(l.UnitPrice * 100)), cents);

        // Numbers come back as JavaScript writes them (12 for 12.00): compare the objects they make.
        string again = engine.Evaluate("JSON.stringify(JSON.parse(json))").AsString();
        Assert.Equal(Fingerprint.Of(order), Fingerprint.Of(JsonConvert.DeserializeObject<Order>(again)!));
        Assert.Equal(order.Customer.Name, engine.Evaluate("JSON.parse(json).customer.name").AsString());
    }

    [Theory, MemberData(nameof(Seeds))]
    public void ScriptReadsDotNetObjects(int seed)
    {
        Order order = Make.Order(seed);
        var engine = NewEngine();
        engine.SetValue("order", order);
        double quantity = engine.Evaluate(
            "let q = 0; for (let i = 0; i < order.Lines.Count; i++) q += order.Lines[i].Quantity; q").AsNumber();
        Assert.Equal(order.Lines.Sum(l => l.Quantity), (int)quantity);
        Assert.Equal(order.Customer.Address.City, engine.Evaluate("order.Customer.Address.City").AsString());
        Assert.Equal((double)order.Total(), engine.Evaluate("order.Total()").AsNumber(), 6);
        engine.Evaluate("order.Note = 'from script'");
        Assert.Equal("from script", order.Note);
    }
}
