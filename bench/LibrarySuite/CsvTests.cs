// CsvHelper: records with awkward text (quotes, delimiters, line breaks, padding) written and read back by
// attribute-free mapping, by a class map with renamed columns and another delimiter, and as dynamic rows.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using CsvHelper;
using CsvHelper.Configuration;
using Xunit;

namespace LibrarySuite;

public class CsvRow
{
    public int Id { get; set; }
    public string Name { get; set; } = "";
    public string Comment { get; set; } = "";
    public decimal Price { get; set; }
    public DateTime When { get; set; }
    public bool Active { get; set; }
    public double? Score { get; set; }
    public OrderStatus Status { get; set; }

    public override string ToString() =>
        string.Join("|", Id, Name, Comment, Price.ToString(CultureInfo.InvariantCulture),
                    When.ToString("O", CultureInfo.InvariantCulture), Active,
                    Score?.ToString("R", CultureInfo.InvariantCulture) ?? "-", Status);
}

sealed class RenamedColumns : ClassMap<CsvRow>
{
    public RenamedColumns()
    {
        Map(m => m.Id).Name("row id");
        Map(m => m.Name).Name("full name");
        Map(m => m.Comment).Name("remarks");
        Map(m => m.Price).Name("price (EUR)");
        Map(m => m.When).Name("when").TypeConverterOption.Format("yyyy-MM-dd HH:mm:ss");
        Map(m => m.Active).Name("active?").TypeConverterOption.BooleanValues(true, true, "yes")
            .TypeConverterOption.BooleanValues(false, true, "no");
        Map(m => m.Score).Name("score");
        Map(m => m.Status).Name("status");
    }
}

public class CsvTests
{
    public static TheoryData<int> Seeds => Make.Seeds(60, 20000);

    static List<CsvRow> Rows(int seed)
    {
        var r = new Random(seed);
        return Enumerable.Range(0, r.Next(1, 60)).Select(i => new CsvRow
        {
            Id = i,
            Name = Make.Text(r),
            Comment = Make.Text(r) + (r.Next(3) == 0 ? ", " + Make.Text(r) : ""),
            Price = r.Next(-100000, 100000) / 100m,
            When = new DateTime(2010, 1, 1).AddSeconds(r.Next(0, 400_000_000)),
            Active = r.Next(2) == 0,
            Score = r.Next(4) == 0 ? null : Make.Eighths(r, 1000),
            Status = (OrderStatus)r.Next(5),
        }).ToList();
    }

    [Theory, MemberData(nameof(Seeds))]
    public void RoundTripsByAutomaticMapping(int seed)
    {
        var rows = Rows(seed);
        var text = new StringWriter();
        using (var csv = new CsvWriter(text, CultureInfo.InvariantCulture)) csv.WriteRecords(rows);
        using var reader = new CsvReader(new StringReader(text.ToString()), CultureInfo.InvariantCulture);
        var back = reader.GetRecords<CsvRow>().ToList();
        Assert.Equal(rows.Select(x => x.ToString()), back.Select(x => x.ToString()));
    }

    [Theory, MemberData(nameof(Seeds))]
    public void RoundTripsThroughAClassMap(int seed)
    {
        var rows = Rows(seed);
        var config = new CsvConfiguration(CultureInfo.InvariantCulture) { Delimiter = ";" };
        var text = new StringWriter();
        using (var csv = new CsvWriter(text, config))
        {
            csv.Context.RegisterClassMap<RenamedColumns>();
            csv.WriteRecords(rows);
        }
        string written = text.ToString();
        Assert.StartsWith("row id;full name;remarks;price (EUR);when;active?;score;status", written);
        using var reader = new CsvReader(new StringReader(written), config);
        reader.Context.RegisterClassMap<RenamedColumns>();
        var back = reader.GetRecords<CsvRow>().ToList();
        Assert.Equal(rows.Select(x => x.ToString()), back.Select(x => x.ToString()));
    }

    [Theory, MemberData(nameof(Seeds))]
    public void ReadsDynamicRows(int seed)
    {
        var rows = Rows(seed);
        var text = new StringWriter();
        using (var csv = new CsvWriter(text, CultureInfo.InvariantCulture)) csv.WriteRecords(rows);
        using var reader = new CsvReader(new StringReader(text.ToString()), CultureInfo.InvariantCulture);
        var back = reader.GetRecords<dynamic>().Cast<IDictionary<string, object>>().ToList();
        Assert.Equal(rows.Count, back.Count);
        for (int i = 0; i < rows.Count; i++)
        {
            Assert.Equal(rows[i].Name, back[i]["Name"]);
            Assert.Equal(rows[i].Comment, back[i]["Comment"]);
            Assert.Equal(rows[i].Price, decimal.Parse((string)back[i]["Price"], CultureInfo.InvariantCulture));
        }
    }
}
