// The object graphs the serializers exchange, in four shapes (an order with nested records, a recursive tree,
// dictionaries of dictionaries, a polymorphic drawing), each made from a seed so that a failing case names the seed
// that makes it again. Fingerprint gives each a canonical text, the same whichever library read it back.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.Json.Serialization;
using Xunit;

namespace LibrarySuite;

public enum OrderStatus { Pending, Paid, Shipped, Delivered, Cancelled }

public class Address
{
    public string Street { get; set; } = "";
    public string City { get; set; } = "";
    public string PostalCode { get; set; } = "";
    public string Country { get; set; } = "";
}

public class Customer
{
    public string Name { get; set; } = "";
    public string Email { get; set; } = "";
    public Address Address { get; set; } = new();
    public List<string> Phones { get; set; } = new();
}

public class OrderLine
{
    public string Sku { get; set; } = "";
    public string Description { get; set; } = "";
    public int Quantity { get; set; }
    public decimal UnitPrice { get; set; }
    public List<string> Tags { get; set; } = new();
}

public class Order
{
    public int Id { get; set; }
    public Customer Customer { get; set; } = new();
    public DateTime PlacedUtc { get; set; }
    public OrderStatus Status { get; set; }
    public List<OrderLine> Lines { get; set; } = new();
    public string? Note { get; set; }
    public decimal? Discount { get; set; }

    public decimal Total() => Lines.Sum(l => l.Quantity * l.UnitPrice) - (Discount ?? 0);
}

public class TreeNode
{
    public string Name { get; set; } = "";
    public double Weight { get; set; }
    public List<TreeNode> Children { get; set; } = new();

    public int Count() => 1 + Children.Sum(c => c.Count());
    public int Depth() => 1 + (Children.Count == 0 ? 0 : Children.Max(c => c.Depth()));
    public double TotalWeight() => Weight + Children.Sum(c => c.TotalWeight());
}

public class Inventory
{
    public string Name { get; set; } = "";
    public Dictionary<string, Dictionary<string, int>> Stock { get; set; } = new();
    public List<int> Thresholds { get; set; } = new();
}

public class Point
{
    public double X { get; set; }
    public double Y { get; set; }
}

[JsonPolymorphic(TypeDiscriminatorPropertyName = "kind")]
[JsonDerivedType(typeof(Circle), "circle")]
[JsonDerivedType(typeof(Rect), "rect")]
[JsonDerivedType(typeof(Polygon), "polygon")]
public abstract class Shape
{
    public string Id { get; set; } = "";
    public abstract double Area();
}

public class Circle : Shape
{
    public double Radius { get; set; }
    public override double Area() => Math.PI * Radius * Radius;
}

public class Rect : Shape
{
    public double Width { get; set; }
    public double Height { get; set; }
    public override double Area() => Width * Height;
}

public class Polygon : Shape
{
    public List<Point> Points { get; set; } = new();

    // The shoelace formula: the points go round the polygon once.
    public override double Area()
    {
        double twice = 0;
        for (int i = 0; i < Points.Count; i++)
        {
            Point a = Points[i], b = Points[(i + 1) % Points.Count];
            twice += a.X * b.Y - b.X * a.Y;
        }
        return Math.Abs(twice) / 2;
    }
}

public class Drawing
{
    public string Title { get; set; } = "";
    public List<Shape> Shapes { get; set; } = new();
}

public enum GraphShape { Order, Tree, Inventory, Drawing }

public static class Make
{
    static readonly string[] Words =
    {
        "alpha", "bravo", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kestrel",
        "lantern", "meadow", "nectar", "orchid", "pepper", "quartz", "raven", "saffron", "timber", "umber", "velvet",
        "willow", "xenon", "yarrow", "zephyr", "anchor", "basalt", "canyon", "dune", "estuary", "falcon", "glacier",
        "heron", "island", "jasper", "kelp", "lagoon", "marble", "nimbus", "ochre", "prairie", "quill", "ridge",
        "summit", "tundra", "upland", "valley", "wharf", "yonder",
    };

    // Strings that need quoting or escaping somewhere: JSON, YAML, CSV and JavaScript each trip on some of them.
    static readonly string[] Tricky =
    {
        "O'Brien", "say \"hi\"", "key: value", "# not a comment", "- not a list", "line one\nline two", "tab\there",
        "yes", "no", "null", "~", "123", "0x1F", "1e3", "  padded  ", "Zürich", "東京", "party 🎉", "back\\slash",
        "{braces}", "[brackets]", "*star", "&anchor", "!tag", "%percent", "@at", "`tick`", "", "a,b,c", "semi;colon",
        "true", "-", "?", ": colon", "trailing space ", "naïve café", "Ωmega", "<b>html</b>", "50% off", "x|y",
    };

    public static string Word(Random r) => Words[r.Next(Words.Length)];

    public static string Phrase(Random r, int min, int max) =>
        string.Join(" ", Enumerable.Range(0, r.Next(min, max + 1)).Select(_ => Word(r)));

    public static string Text(Random r) => r.Next(4) == 0 ? Tricky[r.Next(Tricky.Length)] : Phrase(r, 1, 4);

    // Eighths are exact in binary: every library writes and reads them back unchanged.
    public static double Eighths(Random r, int max) => r.Next(max * 8) / 8.0;

    public static object Graph(GraphShape shape, int seed) => shape switch
    {
        GraphShape.Order => Order(seed),
        GraphShape.Tree => Tree(seed),
        GraphShape.Inventory => Inventory(seed),
        _ => Drawing(seed),
    };

    public static Order Order(int seed)
    {
        var r = new Random(seed);
        var order = new Order
        {
            Id = seed,
            Customer = new Customer
            {
                Name = Text(r),
                Email = $"{Word(r)}.{Word(r)}@example.org",
                Address = new Address { Street = $"{r.Next(1, 400)} {Text(r)}", City = Text(r),
                                        PostalCode = r.Next(10000, 99999).ToString(CultureInfo.InvariantCulture),
                                        Country = Word(r) },
            },
            PlacedUtc = new DateTime(2000, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddSeconds(r.Next(0, 800_000_000)),
            Status = (OrderStatus)r.Next(5),
            Note = r.Next(3) == 0 ? null : Text(r),
            Discount = r.Next(2) == 0 ? null : r.Next(0, 2000) / 100m,
        };
        for (int i = r.Next(0, 4); i > 0; i--) order.Customer.Phones.Add($"+{r.Next(1, 99)} {r.Next(100000, 999999)}");
        for (int i = r.Next(1, 12); i > 0; i--)
        {
            var line = new OrderLine { Sku = $"SKU-{r.Next(100000):D6}", Description = Text(r),
                                       Quantity = r.Next(1, 20), UnitPrice = r.Next(1, 100000) / 100m };
            for (int t = r.Next(0, 4); t > 0; t--) line.Tags.Add(Text(r));
            order.Lines.Add(line);
        }
        return order;
    }

    public static TreeNode Tree(int seed)
    {
        var r = new Random(seed);
        int budget = r.Next(20, 200);
        return Node(r, 0, ref budget);
    }

    static TreeNode Node(Random r, int depth, ref int budget)
    {
        var node = new TreeNode { Name = Text(r), Weight = Eighths(r, 100) };
        // Deep, narrow chains as well as bushy levels: both are what serializers recurse through.
        int children = depth >= 9 ? 0 : r.Next(0, depth < 2 ? 5 : 3);
        for (int i = 0; i < children && budget > 0; i++)
        {
            budget--;
            node.Children.Add(Node(r, depth + 1, ref budget));
        }
        return node;
    }

    public static Inventory Inventory(int seed)
    {
        var r = new Random(seed);
        var inv = new Inventory { Name = Text(r) };
        for (int w = r.Next(1, 6); w > 0; w--)
        {
            var items = new Dictionary<string, int>();
            for (int i = r.Next(0, 15); i > 0; i--) items[$"{Word(r)}-{r.Next(1000)}"] = r.Next(-5, 10000);
            inv.Stock[$"{Word(r)} {w}"] = items;
        }
        for (int i = r.Next(0, 6); i > 0; i--) inv.Thresholds.Add(r.Next(-1000, 1000));
        return inv;
    }

    public static Drawing Drawing(int seed)
    {
        var r = new Random(seed);
        var drawing = new Drawing { Title = Text(r) };
        for (int i = r.Next(1, 15); i > 0; i--)
        {
            string id = $"{Word(r)}{i}";
            drawing.Shapes.Add(r.Next(3) switch
            {
                0 => new Circle { Id = id, Radius = Eighths(r, 50) },
                1 => new Rect { Id = id, Width = Eighths(r, 80), Height = Eighths(r, 80) },
                _ => Polygon(r, id),
            });
        }
        return drawing;
    }

    static Polygon Polygon(Random r, string id)
    {
        // A convex polygon: points on a circle at increasing angles, rounded to eighths.
        var polygon = new Polygon { Id = id };
        int n = r.Next(3, 9);
        double radius = 1 + Eighths(r, 30);
        for (int i = 0; i < n; i++)
        {
            double angle = 2 * Math.PI * i / n;
            // + 0.0 turns a rounded -0 into 0, which JSON text does not keep apart.
            polygon.Points.Add(new Point { X = Math.Round(radius * Math.Cos(angle) * 8) / 8 + 0.0,
                                           Y = Math.Round(radius * Math.Sin(angle) * 8) / 8 + 0.0 });
        }
        return polygon;
    }

    public static TheoryData<int> Seeds(int count, int first = 1)
    {
        var data = new TheoryData<int>();
        for (int i = 0; i < count; i++) data.Add(first + i);
        return data;
    }

    public static TheoryData<GraphShape, int> ShapesAndSeeds(int perShape, params GraphShape[] only)
    {
        var data = new TheoryData<GraphShape, int>();
        foreach (GraphShape shape in only.Length > 0 ? only : Enum.GetValues<GraphShape>())
            for (int i = 1; i <= perShape; i++) data.Add(shape, i * 7919);
        return data;
    }
}

public static class Fingerprint
{
    static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    public static string Of(object graph) => graph switch
    {
        Order o => Of(o),
        TreeNode t => Of(t),
        Inventory i => Of(i),
        Drawing d => Of(d),
        _ => throw new ArgumentException($"no fingerprint for {graph.GetType()}"),
    };

    // Decimals keep their scale (1.50 and 1.5 differ): compare values.
    static string Dec(decimal d) => d.ToString("0.############################", Inv);

    static string Utc(DateTime d) =>
        (d.Kind == DateTimeKind.Local ? d.ToUniversalTime() : d).ToString("yyyy-MM-dd'T'HH:mm:ss.fffffff", Inv);

    public static string Of(Order o)
    {
        var sb = new StringBuilder();
        sb.Append(o.Id).Append('|').Append(o.Customer.Name).Append('|').Append(o.Customer.Email).Append('|')
          .Append(o.Customer.Address.Street).Append('|').Append(o.Customer.Address.City).Append('|')
          .Append(o.Customer.Address.PostalCode).Append('|').Append(o.Customer.Address.Country).Append('|')
          .Append(string.Join(";", o.Customer.Phones)).Append('|').Append(Utc(o.PlacedUtc)).Append('|')
          .Append(o.Status).Append('|').Append(o.Note ?? "<null>").Append('|')
          .Append(o.Discount is decimal d ? Dec(d) : "<null>");
        foreach (var line in o.Lines)
            sb.Append("\n  ").Append(line.Sku).Append('|').Append(line.Description).Append('|').Append(line.Quantity)
              .Append('|').Append(Dec(line.UnitPrice)).Append('|').Append(string.Join(";", line.Tags));
        return sb.Append("\ntotal ").Append(Dec(o.Total())).ToString();
    }

    public static string Of(TreeNode t)
    {
        var sb = new StringBuilder();
        Append(sb, t, 0);
        return sb.ToString();
    }

    static void Append(StringBuilder sb, TreeNode t, int depth)
    {
        sb.Append(' ', depth * 2).Append(t.Name).Append(" = ").Append(t.Weight.ToString("R", Inv)).Append('\n');
        foreach (var child in t.Children) Append(sb, child, depth + 1);
    }

    public static string Of(Inventory inv)
    {
        var sb = new StringBuilder(inv.Name);
        // Dictionaries in key order: a reader may not keep the writer's order.
        foreach (var (warehouse, items) in inv.Stock.OrderBy(kv => kv.Key, StringComparer.Ordinal))
        {
            sb.Append('\n').Append(warehouse).Append(':');
            foreach (var (item, count) in items.OrderBy(kv => kv.Key, StringComparer.Ordinal))
                sb.Append(' ').Append(item).Append('=').Append(count);
        }
        return sb.Append("\nthresholds ").Append(string.Join(",", inv.Thresholds)).ToString();
    }

    public static string Of(Drawing d)
    {
        var sb = new StringBuilder(d.Title);
        foreach (var s in d.Shapes)
        {
            sb.Append('\n').Append(s.GetType().Name).Append(' ').Append(s.Id).Append(' ');
            switch (s)
            {
                case Circle c: sb.Append(c.Radius.ToString("R", Inv)); break;
                case Rect r:
                    sb.Append(r.Width.ToString("R", Inv)).Append('x').Append(r.Height.ToString("R", Inv));
                    break;
                case Polygon p:
                    foreach (var pt in p.Points)
                        sb.Append('(').Append(pt.X.ToString("R", Inv)).Append(',').Append(pt.Y.ToString("R", Inv))
                          .Append(')');
                    break;
            }
            sb.Append(" area ").Append(s.Area().ToString("F6", Inv));
        }
        return sb.ToString();
    }
}
