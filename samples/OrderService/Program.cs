// A small order-processing service, the sample that tools/demo.sh profiles: JSON in, pricing rules, a catalog tree,
// receipts hashed on worker threads, a summary out.
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Threading;

namespace OrderService;

public record Line(string Sku, int Quantity, decimal UnitPrice);
public record Order(int Id, string Customer, List<Line> Lines);

public static class Program
{
    public static int Main()
    {
        var catalog = Catalog.Build(depth: 4, breadth: 5);
        string json = Feed.Generate(orders: 1500, seed: 17);
        List<Order> orders = Feed.Parse(json);
        var priced = orders.Select(o => (order: o, total: Pricing.Total(o, catalog))).ToList();
        var receipts = Receipts.HashAll(priced, workers: 2);
        var top = priced.GroupBy(p => p.order.Customer)
                        .Select(g => (customer: g.Key, spent: g.Sum(p => p.total)))
                        .OrderByDescending(c => c.spent)
                        .First();
        Console.WriteLine($"orders={orders.Count} receipts={receipts.Count} top={top.customer} spent={top.spent:F2}");
        return 0;
    }
}

public static class Feed
{
    public static string Generate(int orders, int seed)
    {
        var random = new Random(seed);
        var list = new List<Order>(orders);
        for (int i = 0; i < orders; i++)
        {
            var lines = new List<Line>();
            int count = 1 + random.Next(6);
            for (int l = 0; l < count; l++)
                lines.Add(new Line($"SKU-{random.Next(625):D4}", 1 + random.Next(4), 1m + random.Next(9900) / 100m));
            list.Add(new Order(i, $"customer-{random.Next(40)}", lines));
        }
        return JsonSerializer.Serialize(list);
    }

    public static List<Order> Parse(string json) => JsonSerializer.Deserialize<List<Order>>(json)!;
}

public sealed class Category
{
    public string Name = "";
    public decimal Discount;
    public List<Category> Children = new();
}

public static class Catalog
{
    public static Category Build(int depth, int breadth)
    {
        var root = new Category { Name = "all" };
        Grow(root, depth, breadth);
        return root;
    }

    static void Grow(Category parent, int depth, int breadth)
    {
        if (depth == 0) return;
        for (int i = 0; i < breadth; i++)
        {
            var child = new Category { Name = $"{parent.Name}/{i}", Discount = (i % 3) * 0.05m };
            parent.Children.Add(child);
            Grow(child, depth - 1, breadth);
        }
    }

    // Walks the tree along the SKU's digits to the category that prices it.
    public static decimal DiscountFor(Category root, string sku)
    {
        Category node = root;
        decimal discount = 0;
        foreach (char c in sku.Where(char.IsDigit))
        {
            int index = (c - '0') % node.Children.Count;
            node = node.Children[index];
            discount = Math.Max(discount, node.Discount);
            if (node.Children.Count == 0) break;
        }
        return discount;
    }
}

public static class Pricing
{
    public static decimal Total(Order order, Category catalog)
    {
        decimal total = 0;
        foreach (var line in order.Lines)
            total += LineTotal(line, catalog);
        return total + Tax(total);
    }

    static decimal LineTotal(Line line, Category catalog)
    {
        decimal gross = line.UnitPrice * line.Quantity;
        return gross * (1 - Catalog.DiscountFor(catalog, line.Sku));
    }

    static decimal Tax(decimal amount) => Math.Round(amount * 0.2m, 2);
}

public static class Receipts
{
    public static ConcurrentDictionary<int, string> HashAll(List<(Order order, decimal total)> priced, int workers)
    {
        var queue = new BlockingCollection<(Order, decimal)>();
        var results = new ConcurrentDictionary<int, string>();
        var threads = Enumerable.Range(1, workers).Select(w => new Thread(() => Work(queue, results))
        {
            Name = $"receipt-worker-{w}"
        }).ToList();
        threads.ForEach(t => t.Start());
        foreach (var p in priced) queue.Add(p);
        queue.CompleteAdding();
        threads.ForEach(t => t.Join());
        return results;
    }

    static void Work(BlockingCollection<(Order, decimal)> queue, ConcurrentDictionary<int, string> results)
    {
        foreach (var (order, total) in queue.GetConsumingEnumerable())
            results[order.Id] = Hash(Render(order, total));
    }

    static string Render(Order order, decimal total)
    {
        var sb = new StringBuilder();
        sb.Append(order.Id).Append(';').Append(order.Customer);
        foreach (var line in order.Lines) sb.Append(';').Append(line.Sku).Append('x').Append(line.Quantity);
        return sb.Append(';').Append(total.ToString("F2")).ToString();
    }

    static string Hash(string text) => Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(text)));
}
