// Humanizer's English: numbers in words and ordinals against a small reference written here, Roman numerals,
// inflections and quantities, casing, time spans, byte sizes, metric numerals, collections and truncation.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Humanizer;
using Xunit;

namespace LibrarySuite;

public class HumanizerTests
{
    static readonly CultureInfo En = new("en-US");

    public static TheoryData<int> Seeds => Make.Seeds(200, 40000);

    static readonly string[] Small =
    {
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    };
    static readonly string[] Tens =
        { "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety" };

    // British style: "and" before a last part under a hundred, and before any group under a hundred that follows a
    // larger one ("two billion and seventy million"), as Humanizer's English converter writes.
    static string Words(long n)
    {
        if (n < 0) return "minus " + Words(-n);
        if (n == 0) return "zero";
        var parts = new List<string>();
        var scales = new[] { (1_000_000_000L, " billion"), (1_000_000L, " million"), (1000L, " thousand"), (1L, "") };
        foreach (var (scale, name) in scales)
        {
            long group = n / scale % 1000;
            if (group > 0) parts.Add((parts.Count > 0 && group < 100 ? "and " : "") + Hundreds(group) + name);
        }
        return string.Join(" ", parts);
    }

    static string Hundreds(long n) =>
        n < 100 ? UnderHundred(n) : Small[n / 100] + " hundred" + (n % 100 == 0 ? "" : " and " + UnderHundred(n % 100));

    static string UnderHundred(long n) => n < 20 ? Small[n] : Tens[n / 10] + (n % 10 == 0 ? "" : "-" + Small[n % 10]);

    static string Suffix(int n) =>
        (n % 100) is 11 or 12 or 13 ? "th" : (n % 10) switch { 1 => "st", 2 => "nd", 3 => "rd", _ => "th" };

    [Theory, MemberData(nameof(Seeds))]
    public void NumbersInWords(int seed)
    {
        var r = new Random(seed);
        for (int i = 0; i < 25; i++)
        {
            long n = r.Next(6) switch
            {
                0 => r.Next(0, 100),
                1 => r.Next(100, 10_000),
                2 => r.Next(10_000, 10_000_000),
                3 => r.NextInt64(10_000_000, 900_000_000_000),
                4 => -r.Next(1, 1_000_000),
                _ => r.Next(1, 100) * (long)Math.Pow(1000, r.Next(1, 4)),
            };
            Assert.Equal(Words(n), n.ToWords(En));
            int small = (int)(Math.Abs(n) % 100_000);
            Assert.Equal(small.ToString(CultureInfo.InvariantCulture) + Suffix(small), small.Ordinalize(En));
        }
    }

    static string Roman(int n)
    {
        var digits = new[] { (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
                             (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I") };
        var s = "";
        foreach (var (value, letters) in digits)
            for (; n >= value; n -= value) s += letters;
        return s;
    }

    [Theory, MemberData(nameof(Seeds))]
    public void RomanNumerals(int seed)
    {
        for (int n = seed % 200 + 1; n <= 3999; n += 200)
        {
            string roman = n.ToRoman();
            Assert.Equal(Roman(n), roman);
            Assert.Equal(n, roman.FromRoman());
        }
    }

    static readonly (string One, string Many)[] Nouns =
    {
        ("man", "men"), ("child", "children"), ("status", "statuses"), ("quiz", "quizzes"), ("matrix", "matrices"),
        ("ox", "oxen"), ("datum", "data"), ("sheep", "sheep"), ("category", "categories"), ("knife", "knives"),
        ("wife", "wives"), ("bus", "buses"), ("box", "boxes"), ("person", "people"), ("hero", "heroes"),
        ("photo", "photos"), ("cactus", "cacti"), ("analysis", "analyses"), ("radius", "radii"),
        ("criterion", "criteria"), ("tooth", "teeth"), ("goose", "geese"), ("index", "indices"), ("mouse", "mice"),
        ("order", "orders"), ("invoice", "invoices"), ("address", "addresses"), ("city", "cities"),
    };

    [Theory, MemberData(nameof(Seeds))]
    public void InflectionsAndQuantities(int seed)
    {
        var r = new Random(seed);
        for (int i = 0; i < 10; i++)
        {
            var (one, many) = Nouns[r.Next(Nouns.Length)];
            Assert.Equal(many, one.Pluralize());
            Assert.Equal(one, many.Singularize());
            int count = r.Next(0, 3000);
            Assert.Equal($"{count} {(count == 1 ? one : many)}", one.ToQuantity(count));
            Assert.Equal($"{Words(count)} {(count == 1 ? one : many)}", one.ToQuantity(count, ShowQuantityAs.Words));
        }
    }

    [Theory, MemberData(nameof(Seeds))]
    public void Casing(int seed)
    {
        var r = new Random(seed);
        var words = Enumerable.Range(0, r.Next(2, 6)).Select(_ => Make.Word(r)).ToList();
        static string Cap(string w) => char.ToUpperInvariant(w[0]) + w[1..];
        string phrase = string.Join(" ", words), pascal = string.Concat(words.Select(Cap));
        Assert.Equal(pascal, phrase.Pascalize());
        Assert.Equal(words[0] + string.Concat(words.Skip(1).Select(Cap)), phrase.Camelize());
        Assert.Equal(string.Join("_", words), pascal.Underscore());
        Assert.Equal(string.Join("-", words), pascal.Kebaberize());
        Assert.Equal(string.Join(" ", words.Select(Cap)), phrase.Titleize());
        Assert.Equal(Cap(phrase), pascal.Humanize());
        Assert.Equal(phrase.ToUpperInvariant(), pascal.Humanize(LetterCasing.AllCaps));
        Assert.Equal(pascal, Cap(phrase).Dehumanize());
    }

    [Theory, MemberData(nameof(Seeds))]
    public void TimeSpans(int seed)
    {
        var r = new Random(seed);
        for (int i = 0; i < 10; i++)
        {
            int days = r.Next(1, 7), hours = r.Next(1, 24), minutes = r.Next(1, 60), seconds = r.Next(1, 60);
            var span = new TimeSpan(days, hours, minutes, seconds);
            string Unit(int n, string name) => $"{n} {name}{(n == 1 ? "" : "s")}";
            string all =
                $"{Unit(days, "day")}, {Unit(hours, "hour")}, {Unit(minutes, "minute")}, {Unit(seconds, "second")}";
            Assert.Equal(all, span.Humanize(4, En, maxUnit: Humanizer.TimeUnit.Day));
            Assert.Equal(Unit(days, "day"), span.Humanize(1, En, maxUnit: Humanizer.TimeUnit.Day));
            Assert.Equal(Unit(days * 24 + hours, "hour"), span.Humanize(1, En, maxUnit: Humanizer.TimeUnit.Hour));
        }
    }

    [Theory, MemberData(nameof(Seeds))]
    public void ByteSizesAndMetric(int seed)
    {
        var r = new Random(seed);
        for (int i = 0; i < 10; i++)
        {
            long bytes = r.NextInt64(1, 1L << (10 * r.Next(1, 5)));
            ByteSize size = ByteSize.FromBytes(bytes);
            var (unit, symbol) = bytes switch
            {
                >= 1L << 30 => (1L << 30, "GB"),
                >= 1L << 20 => (1L << 20, "MB"),
                >= 1L << 10 => (1L << 10, "KB"),
                _ => (1L, "B"),
            };
            Assert.Equal($"{(bytes / (double)unit).ToString("0.##", En)} {symbol}", size.ToString(En));
            Assert.Equal(bytes, size.Bytes);
            Assert.Equal(size.Bytes / 1024.0, size.Kilobytes, 9);

            int n = r.Next(1, 1_000_000_000);
            double back = n.ToMetric().FromMetric();
            Assert.True(Math.Abs(back - n) <= 1e-6 * n, $"{n} became {n.ToMetric()}, read back as {back}");
        }
    }

    [Theory, MemberData(nameof(Seeds))]
    public void CollectionsAndTruncation(int seed)
    {
        var r = new Random(seed);
        var words = Enumerable.Range(0, r.Next(1, 7)).Select(_ => Make.Word(r)).ToList();
        string expected =
            words.Count == 1 ? words[0] : string.Join(", ", words.Take(words.Count - 1)) + " & " + words[^1];
        Assert.Equal(expected, words.Humanize());
        string text = Make.Phrase(r, 3, 12);
        int length = r.Next(3, 30);
        Assert.Equal(text.Length <= length ? text : text[..(length - 1)] + "…", text.Truncate(length));
        var taken = text.Split(' ');
        int count = r.Next(1, 5);
        Assert.Equal(taken.Length <= count ? text : string.Join(" ", taken.Take(count)) + "…",
                     text.Truncate(count, Truncator.FixedNumberOfWords));
    }
}
