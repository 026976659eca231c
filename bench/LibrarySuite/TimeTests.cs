// NodaTime against the BCL and against itself: date arithmetic beside DateOnly, periods, text patterns beside
// DateTime's formatting, every time zone of its embedded tz database, and other calendars (the Julian calendar
// beside System.Globalization's).
using System;
using System.Globalization;
using System.Linq;
using NodaTime;
using NodaTime.Calendars;
using NodaTime.Text;
using NodaTime.TimeZones;
using Xunit;

namespace LibrarySuite;

public class TimeTests
{
    static readonly string[] ZoneIds =
        DateTimeZoneProviders.Tzdb.Ids.OrderBy(id => id, StringComparer.Ordinal).ToArray();

    // The offset beside the zone: it tells which of two ambiguous local times was meant.
    static readonly ZonedDateTimePattern Zoned = ZonedDateTimePattern.CreateWithInvariantCulture(
        "uuuu'-'MM'-'dd'T'HH':'mm':'ss;FFFFFFFFF z '('o<g>')'", DateTimeZoneProviders.Tzdb);

    public static TheoryData<int> Seeds => Make.Seeds(200, 70000);

    static LocalDate RandomDate(Random r) => new LocalDate(1900, 1, 1).PlusDays(r.Next(0, 200 * 365));

    [Theory, MemberData(nameof(Seeds))]
    public void ArithmeticAgreesWithDateOnly(int seed)
    {
        var r = new Random(seed);
        for (int i = 0; i < 20; i++)
        {
            LocalDate date = RandomDate(r);
            var bcl = new DateOnly(date.Year, date.Month, date.Day);
            Assert.Equal((int)bcl.DayOfWeek, (int)date.DayOfWeek % 7);
            Assert.Equal(bcl.DayOfYear, date.DayOfYear);
            int days = r.Next(-5000, 5000), months = r.Next(-200, 200), years = r.Next(-50, 50);
            Assert.Equal(bcl.AddDays(days), Bcl(date.PlusDays(days)));
            Assert.Equal(bcl.AddMonths(months), Bcl(date.PlusMonths(months)));
            Assert.Equal(bcl.AddYears(years), Bcl(date.PlusYears(years)));
            LocalDate other = RandomDate(r);
            Assert.Equal(Bcl(other).DayNumber - bcl.DayNumber, Period.Between(date, other, PeriodUnits.Days).Days);
            Period period = Period.Between(date, other);
            Assert.Equal(other, date + period);
            DateTime midnight = bcl.ToDateTime(TimeOnly.MinValue);
            Assert.Equal(ISOWeek.GetYear(midnight), WeekYearRules.Iso.GetWeekYear(date));
            Assert.Equal(ISOWeek.GetWeekOfYear(midnight), WeekYearRules.Iso.GetWeekOfWeekYear(date));
        }
    }

    static DateOnly Bcl(LocalDate d) => new(d.Year, d.Month, d.Day);

    [Theory, MemberData(nameof(Seeds))]
    public void PatternsRoundTripAndAgreeWithTheBcl(int seed)
    {
        var r = new Random(seed);
        var local = LocalDateTimePattern.CreateWithInvariantCulture("uuuu'-'MM'-'dd'T'HH':'mm':'ss.fffffff");
        var longDate = LocalDatePattern.Create("dddd, d MMMM yyyy", CultureInfo.InvariantCulture);
        for (int i = 0; i < 15; i++)
        {
            LocalDateTime value = RandomDate(r).At(new LocalTime(r.Next(24), r.Next(60), r.Next(60)))
                .PlusNanoseconds(r.Next(0, 10_000_000) * 100L);
            string text = local.Format(value);
            DateTime bcl = value.ToDateTimeUnspecified();
            Assert.Equal(bcl.ToString("yyyy-MM-dd'T'HH:mm:ss.fffffff", CultureInfo.InvariantCulture), text);
            Assert.Equal(value, local.Parse(text).Value);
            Assert.Equal(bcl.ToString("dddd, d MMMM yyyy", CultureInfo.InvariantCulture), longDate.Format(value.Date));
            Assert.Equal(value.Date, longDate.Parse(longDate.Format(value.Date)).Value);

            Instant instant = Instant.FromUnixTimeTicks(r.NextInt64(0, 4_000_000_000L * TimeSpan.TicksPerSecond));
            Assert.Equal(instant, InstantPattern.ExtendedIso.Parse(InstantPattern.ExtendedIso.Format(instant)).Value);
            var offset = Offset.FromSeconds(r.Next(-18 * 4, 18 * 4) * 900);
            var odt = instant.WithOffset(offset);
            var offsetPattern = OffsetDateTimePattern.ExtendedIso;
            Assert.Equal(odt, offsetPattern.Parse(offsetPattern.Format(odt)).Value);
            Duration duration = Duration.FromTicks(r.NextInt64(-1L << 50, 1L << 50));
            Assert.Equal(duration, DurationPattern.Roundtrip.Parse(DurationPattern.Roundtrip.Format(duration)).Value);
            Assert.False(local.Parse("not a date " + i).Success);
        }
    }

    [Theory, MemberData(nameof(Seeds))]
    public void TimeZonesMapInstantsBothWays(int seed)
    {
        var r = new Random(seed);
        for (int i = 0; i < 3; i++)
        {
            DateTimeZone zone = DateTimeZoneProviders.Tzdb[ZoneIds[(seed * 3 + i) % ZoneIds.Length]];
            for (int j = 0; j < 10; j++)
            {
                Instant instant = Instant.FromUnixTimeSeconds(r.NextInt64(-2_000_000_000, 2_500_000_000));
                ZonedDateTime zoned = instant.InZone(zone);
                Assert.Equal(instant, zoned.ToInstant());
                Assert.Equal(zoned.LocalDateTime, instant.WithOffset(zone.GetUtcOffset(instant)).LocalDateTime);
                ZoneInterval interval = zone.GetZoneInterval(instant);
                Assert.True(interval.Contains(instant));
                Assert.Equal(interval.WallOffset, zoned.Offset);
                // Its local time maps back to it: the only candidate, or one of two where the clocks went back.
                ZoneLocalMapping mapping = zone.MapLocal(zoned.LocalDateTime);
                Assert.InRange(mapping.Count, 1, 2);
                Assert.True(mapping.First().ToInstant() == instant || mapping.Last().ToInstant() == instant);
                Assert.Equal(zoned, Zoned.Parse(Zoned.Format(zoned)).Value);
            }
        }
    }

    [Theory, MemberData(nameof(Seeds))]
    public void CalendarsConvertAndReturn(int seed)
    {
        var r = new Random(seed);
        var julian = new JulianCalendar();
        CalendarSystem[] calendars =
        {
            CalendarSystem.Julian, CalendarSystem.Gregorian, CalendarSystem.Coptic, CalendarSystem.HebrewCivil,
            CalendarSystem.PersianSimple, CalendarSystem.IslamicBcl, CalendarSystem.UmAlQura, CalendarSystem.Badi,
        };
        for (int i = 0; i < 10; i++)
        {
            LocalDate iso = new LocalDate(1950, 1, 1).PlusDays(r.Next(0, 70 * 365));
            DateTime bcl = iso.ToDateTimeUnspecified();
            LocalDate inJulian = iso.WithCalendar(CalendarSystem.Julian);
            Assert.Equal(julian.GetYear(bcl), inJulian.Year);
            Assert.Equal(julian.GetMonth(bcl), inJulian.Month);
            Assert.Equal(julian.GetDayOfMonth(bcl), inJulian.Day);
            foreach (var calendar in calendars)
            {
                LocalDate converted = iso.WithCalendar(calendar);
                Assert.Equal(iso, converted.WithCalendar(CalendarSystem.Iso));
                Assert.Equal(iso.DayOfWeek, converted.DayOfWeek);
                Assert.Equal(iso.PlusDays(40), converted.PlusDays(40).WithCalendar(CalendarSystem.Iso));
            }
        }
    }
}
