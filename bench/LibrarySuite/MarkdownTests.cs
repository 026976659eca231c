// Markdig on generated documents that use most of its extensions (pipe tables, task lists, footnotes, emphasis
// extras, maths, emoji, abbreviations, custom containers, definition lists); the generator counts what it wrote, and
// the tests find the same counts in the syntax tree, in the HTML (read back by AngleSharp's HTML5 parser), with each
// extension alone, and in plain CommonMark; the trivia-tracking parser writes the document back unchanged.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using AngleSharp.Html.Parser;
using Markdig;
using Markdig.Extensions.Abbreviations;
using Markdig.Extensions.CustomContainers;
using Markdig.Extensions.DefinitionLists;
using Markdig.Extensions.Emoji;
using Markdig.Extensions.Footnotes;
using Markdig.Extensions.Mathematics;
using Markdig.Extensions.Tables;
using Markdig.Extensions.TaskLists;
using Markdig.Renderers.Roundtrip;
using Markdig.Syntax;
using Markdig.Syntax.Inlines;
using Xunit;

namespace LibrarySuite;

public sealed class MarkdownSample
{
    public string Text = "";
    public readonly int[] Headings = new int[7];
    public readonly List<string> Titles = new();
    public int Tables, TableRows, Bullets, Ordered, TasksDone, TasksOpen, CodeBlocks, InlineCode, Quotes, Links;
    public int Emphasis, Strong, Strike, Footnotes, Terms, Notes, Maths, Emojis, Abbreviations;

    static readonly string[] EmojiCodes = { ":smile:", ":rocket:", ":tada:" };
    public static readonly string[] EmojiGlyphs = { "😄", "🚀", "🎉" };

    public static MarkdownSample Generate(int seed)
    {
        var r = new Random(seed);
        var s = new MarkdownSample();
        var md = new StringBuilder();
        s.Heading(md, 1, $"{Capital(Make.Phrase(r, 2, 4))} {seed}");
        int sections = r.Next(4, 10);
        for (int i = 0; i < sections; i++)
        {
            s.Heading(md, r.Next(2, 5), $"{Capital(Make.Phrase(r, 1, 3))} section {i}");
            for (int blocks = r.Next(2, 7); blocks > 0; blocks--)
            {
                int kind = r.Next(9);
                switch (kind)
                {
                    case 0: case 1: s.Paragraph(md, r); break;
                    case 2: s.BulletList(md, r); break;
                    case 3: s.OrderedList(md, r); break;
                    case 4: s.Table(md, r); break;
                    case 5: s.Code(md, r); break;
                    case 6: md.Append("> "); s.Sentence(md, r); md.Append("\n\n"); s.Quotes++; break;
                    case 7: s.Definition(md, r); break;
                    default: md.Append(":::note\n"); s.Sentence(md, r); md.Append("\n:::\n\n"); s.Notes++; break;
                }
                // Two lists with only a blank line between them would be one list.
                if (kind is 2 or 3) s.Paragraph(md, r);
            }
        }
        // A definition list goes on past a blank line: a paragraph ends it before the footnotes.
        s.Paragraph(md, r);
        for (int n = 1; n <= s.Footnotes; n++) md.Append($"[^{n}]: {Capital(Make.Phrase(r, 2, 6))}.\n\n");
        if (s.Abbreviations > 0) md.Append("*[HTML]: Hypertext Markup Language\n");
        s.Text = md.ToString();
        return s;
    }

    static string Capital(string s) => char.ToUpperInvariant(s[0]) + s[1..];

    void Heading(StringBuilder md, int level, string title)
    {
        md.Append('#', level).Append(' ').Append(title).Append("\n\n");
        Headings[level]++;
        Titles.Add(title);
    }

    void Paragraph(StringBuilder md, Random r)
    {
        for (int i = r.Next(2, 6); i > 0; i--)
        {
            Sentence(md, r);
            md.Append(i > 1 ? ' ' : '\n');
        }
        md.Append('\n');
    }

    // A sentence of plain words, some of them decorated with an inline element that one extension or another renders.
    public void Sentence(StringBuilder md, Random r)
    {
        int words = r.Next(4, 14);
        for (int i = 0; i < words; i++)
        {
            string w = Make.Word(r);
            if (i == 0) w = Capital(w);
            else md.Append(' ');
            switch (r.Next(24))
            {
                case 0: md.Append('*').Append(w).Append('*'); Emphasis++; break;
                case 1: md.Append("**").Append(w).Append("**"); Strong++; break;
                case 2: md.Append("~~").Append(w).Append("~~"); Strike++; break;
                case 3: md.Append('`').Append(w).Append('`'); InlineCode++; break;
                case 4: md.Append($"[{w} {Make.Word(r)}](https://example.org/{w}/{r.Next(1000)})"); Links++; break;
                case 5: md.Append(w).Append($" $x^{{{r.Next(2, 9)}}} + y$"); Maths++; break;
                case 6: md.Append(w).Append(' ').Append(EmojiCodes[r.Next(EmojiCodes.Length)]); Emojis++; break;
                case 7: md.Append(w).Append($"[^{++Footnotes}]"); break;
                case 8: md.Append(w).Append(" HTML"); Abbreviations++; break;
                default: md.Append(w); break;
            }
        }
        md.Append('.');
    }

    void BulletList(StringBuilder md, Random r)
    {
        bool tasks = r.Next(3) == 0;
        for (int i = r.Next(2, 7); i > 0; i--)
        {
            md.Append("- ");
            if (tasks)
            {
                bool done = r.Next(2) == 0;
                md.Append(done ? "[x] " : "[ ] ");
                if (done) TasksDone++;
                else TasksOpen++;
            }
            else Bullets++;
            md.Append(Capital(Make.Phrase(r, 1, 5))).Append('\n');
            if (!tasks && r.Next(4) == 0)
                for (int j = r.Next(1, 4); j > 0; j--, Bullets++)
                    md.Append("  - ").Append(Make.Phrase(r, 1, 3)).Append('\n');
        }
        md.Append('\n');
    }

    void OrderedList(StringBuilder md, Random r)
    {
        int items = r.Next(2, 8);
        for (int i = 1; i <= items; i++, Ordered++)
            md.Append(i).Append(". ").Append(Capital(Make.Phrase(r, 1, 5))).Append('\n');
        md.Append('\n');
    }

    void Table(StringBuilder md, Random r)
    {
        int columns = r.Next(2, 6), rows = r.Next(1, 9);
        md.Append('|');
        for (int c = 0; c < columns; c++) md.Append(' ').Append(Capital(Make.Word(r))).Append(" |");
        md.Append("\n|");
        for (int c = 0; c < columns; c++) md.Append(new[] { "---", ":---", "---:", ":---:" }[r.Next(4)]).Append('|');
        md.Append('\n');
        for (int row = 0; row < rows; row++)
        {
            md.Append('|');
            for (int c = 0; c < columns; c++)
                md.Append(' ').Append(r.Next(2) == 0 ? Make.Word(r) : r.Next(100000).ToString()).Append(" |");
            md.Append('\n');
        }
        md.Append('\n');
        Tables++;
        TableRows += rows;
    }

    void Code(StringBuilder md, Random r)
    {
        md.Append("```csharp\n");
        for (int i = r.Next(1, 8); i > 0; i--) md.Append($"var {Make.Word(r)}{i} = {r.Next(1000)};\n");
        md.Append("```\n\n");
        CodeBlocks++;
    }

    void Definition(StringBuilder md, Random r)
    {
        md.Append(Capital(Make.Word(r))).Append("\n:   ").Append(Capital(Make.Phrase(r, 2, 8)))
          .Append(".\n\n");
        Terms++;
    }
}

public class MarkdownTests
{
    static readonly MarkdownPipeline Advanced = new MarkdownPipelineBuilder().UseAdvancedExtensions()
        .UseEmojiAndSmiley().Build();
    static readonly MarkdownPipeline CommonMark = new MarkdownPipelineBuilder().Build();
    static readonly HtmlParser Html = new();

    public static TheoryData<int> Documents => Make.Seeds(150, 100);

    [Theory, MemberData(nameof(Documents))]
    public void SyntaxTreeHoldsWhatWasWritten(int seed)
    {
        var s = MarkdownSample.Generate(seed);
        MarkdownDocument doc = Markdown.Parse(s.Text, Advanced);
        var headings = doc.Descendants<HeadingBlock>().ToList();
        for (int level = 1; level <= 6; level++) Assert.Equal(s.Headings[level], headings.Count(h => h.Level == level));
        Assert.Equal(s.Tables, doc.Descendants<Table>().Count());
        Assert.Equal(s.TableRows, doc.Descendants<TableRow>().Count(row => !row.IsHeader));
        Assert.Equal(s.Bullets + s.TasksDone + s.TasksOpen + s.Ordered, doc.Descendants<ListItemBlock>().Count());
        Assert.Equal(s.TasksDone, doc.Descendants<TaskList>().Count(t => t.Checked));
        Assert.Equal(s.TasksOpen, doc.Descendants<TaskList>().Count(t => !t.Checked));
        var code = doc.Descendants<FencedCodeBlock>().ToList();
        Assert.Equal(s.CodeBlocks, code.Count);
        Assert.All(code, block => Assert.Equal("csharp", block.Info));
        Assert.Equal(s.Quotes, doc.Descendants<QuoteBlock>().Count());
        Assert.Equal(s.Links,
                     doc.Descendants<LinkInline>().Count(l => l.Url?.StartsWith("https://example.org/") == true));
        var emphasis = doc.Descendants<EmphasisInline>().ToList();
        Assert.Equal(s.Emphasis, emphasis.Count(e => e.DelimiterChar == '*' && e.DelimiterCount == 1));
        Assert.Equal(s.Strong, emphasis.Count(e => e.DelimiterChar == '*' && e.DelimiterCount == 2));
        Assert.Equal(s.Strike, emphasis.Count(e => e.DelimiterChar == '~' && e.DelimiterCount == 2));
        Assert.Equal(s.InlineCode, doc.Descendants<CodeInline>().Count());
        Assert.Equal(s.Maths, doc.Descendants<MathInline>().Count());
        Assert.Equal(s.Emojis, doc.Descendants<EmojiInline>().Count());
        Assert.Equal(s.Abbreviations, doc.Descendants<AbbreviationInline>().Count());
        Assert.Equal(s.Footnotes, doc.Descendants<FootnoteLink>().Count(f => !f.IsBackLink));
        Assert.Equal(s.Footnotes, doc.Descendants<Footnote>().Count());
        Assert.Equal(s.Notes, doc.Descendants<CustomContainer>().Count());
        Assert.Equal(s.Terms, doc.Descendants<DefinitionTerm>().Count());
    }

    [Theory, MemberData(nameof(Documents))]
    public void HtmlHoldsWhatWasWritten(int seed)
    {
        var s = MarkdownSample.Generate(seed);
        string html = Markdown.ToHtml(s.Text, Advanced);
        var dom = Html.ParseDocument(html);
        int Count(string selector) => dom.QuerySelectorAll(selector).Length;
        for (int level = 1; level <= 6; level++) Assert.Equal(s.Headings[level], Count($"h{level}"));
        Assert.Equal(s.Titles, dom.QuerySelectorAll("h1, h2, h3, h4, h5, h6").Select(h => h.TextContent));
        // Auto-identifiers: every heading has an id, and no two the same.
        var ids = dom.QuerySelectorAll("h1, h2, h3, h4, h5, h6").Select(h => h.Id).ToList();
        Assert.All(ids, id => Assert.False(string.IsNullOrEmpty(id)));
        Assert.Equal(ids.Count, ids.Distinct().Count());
        Assert.Equal(s.Tables, Count("table"));
        Assert.Equal(s.TableRows, Count("table tbody tr"));
        Assert.Equal(s.Bullets + s.TasksDone + s.TasksOpen, Count("ul li"));
        Assert.Equal(s.Ordered, Count("ol li") - Count("div.footnotes li"));
        Assert.Equal(s.TasksDone + s.TasksOpen, Count("input[type=checkbox]"));
        Assert.Equal(s.TasksDone, Count("input[checked]"));
        Assert.Equal(s.CodeBlocks, Count("pre code.language-csharp"));
        Assert.Equal(s.InlineCode, Count("code") - s.CodeBlocks);
        Assert.Equal(s.Quotes, Count("blockquote"));
        Assert.Equal(s.Links, Count("a[href^='https://example.org/']"));
        Assert.Equal(s.Emphasis, Count("em"));
        Assert.Equal(s.Strong, Count("strong"));
        Assert.Equal(s.Strike, Count("del"));
        Assert.Equal(s.Maths, Count("span.math"));
        Assert.Equal(s.Abbreviations, Count("abbr[title='Hypertext Markup Language']"));
        Assert.Equal(s.Footnotes, Count("a.footnote-ref"));
        Assert.Equal(s.Footnotes, Count("div.footnotes li"));
        Assert.Equal(s.Notes, Count("div.note"));
        Assert.Equal(s.Terms, Count("dl dt"));
        string text = dom.Body!.TextContent;
        Assert.Equal(s.Emojis, MarkdownSample.EmojiGlyphs.Sum(g => Occurrences(text, g)));
    }

    static int Occurrences(string text, string what)
    {
        int n = 0;
        for (int at = text.IndexOf(what, StringComparison.Ordinal); at >= 0;
             at = text.IndexOf(what, at + what.Length, StringComparison.Ordinal))
            n++;
        return n;
    }

    public static TheoryData<int> Extensions => Make.Seeds(40, 5000);

    // Each extension alone: it renders what it is for, and nothing else changes the count.
    [Theory, MemberData(nameof(Extensions))]
    public void EachExtensionAlone(int seed)
    {
        var s = MarkdownSample.Generate(seed);
        var cases = new (Action<MarkdownPipelineBuilder> Use, string Selector, int Expected)[]
        {
            (b => b.UsePipeTables(), "table tbody tr", s.TableRows),
            (b => b.UseTaskLists(), "input[type=checkbox]", s.TasksDone + s.TasksOpen),
            (b => b.UseFootnotes(), "a.footnote-ref", s.Footnotes),
            (b => b.UseEmphasisExtras(), "del", s.Strike),
            (b => b.UseMathematics(), "span.math", s.Maths),
            (b => b.UseAbbreviations(), "abbr", s.Abbreviations),
            (b => b.UseCustomContainers(), "div.note", s.Notes),
            (b => b.UseDefinitionLists(), "dl dt", s.Terms),
            (b => b.UseAutoIdentifiers(), "h1[id], h2[id], h3[id], h4[id]", s.Titles.Count),
        };
        foreach (var (use, selector, expected) in cases)
        {
            var builder = new MarkdownPipelineBuilder();
            use(builder);
            var dom = Html.ParseDocument(Markdown.ToHtml(s.Text, builder.Build()));
            Assert.Equal(expected, dom.QuerySelectorAll(selector).Length);
        }
    }

    [Theory, MemberData(nameof(Documents))]
    public void CommonMarkAloneKeepsTheCoreAndIgnoresTheRest(int seed)
    {
        var s = MarkdownSample.Generate(seed);
        var dom = Html.ParseDocument(Markdown.ToHtml(s.Text, CommonMark));
        for (int level = 1; level <= 6; level++)
            Assert.Equal(s.Headings[level], dom.QuerySelectorAll($"h{level}").Length);
        Assert.Equal(s.Emphasis, dom.QuerySelectorAll("em").Length);
        Assert.Equal(s.Strong, dom.QuerySelectorAll("strong").Length);
        Assert.Equal(s.CodeBlocks, dom.QuerySelectorAll("pre code").Length);
        Assert.Equal(s.Quotes, dom.QuerySelectorAll("blockquote").Length);
        Assert.Equal(s.Links, dom.QuerySelectorAll("a[href^='https://example.org/']").Length);
        Assert.Equal(s.Bullets + s.TasksDone + s.TasksOpen, dom.QuerySelectorAll("ul li").Length);
        Assert.Empty(dom.QuerySelectorAll("table, del, abbr, dl, input, span.math"));
    }

    [Theory, MemberData(nameof(Documents))]
    public void RoundtripRendererWritesTheSameText(int seed)
    {
        var s = MarkdownSample.Generate(seed);
        MarkdownDocument doc = Markdown.Parse(s.Text, trackTrivia: true);
        var writer = new StringWriter();
        new RoundtripRenderer(writer).Write(doc);
        Assert.Equal(s.Text, writer.ToString());
        string plain = Markdown.ToPlainText(s.Text, Advanced);
        Assert.All(s.Titles, title => Assert.Contains(title, plain));
    }
}
