import Foundation
import Pipeline
import Runtime
import Testing

/// Unix milliseconds of an ISO 8601 UTC time (`2026-01-15T21:00:00Z`).
private func ms(_ text: String) throws -> Int64 {
    let date = try #require(ISO8601DateFormatter().date(from: text), "not ISO 8601: \(text)")
    return Int64(date.timeIntervalSince1970 * 1000)
}

private func window(_ start: String, _ end: String, _ zone: String = "Europe/Berlin",
                    coverage: QuietHours.Coverage = .all) throws -> QuietHours {
    QuietHours(start: try #require(TimeOfDay(start)), end: try #require(TimeOfDay(end)), timeZone: zone,
               coverage: coverage)
}

@Suite("Quiet hours: the window in the user's time zone")
struct QuietHoursTests {
    @Test("22:00–08:00 in Berlin on a winter night: held from 22:00 to 07:59 local, released at 08:00 local")
    func overnightWindow() throws {
        let quiet = try window("22:00", "08:00")
        #expect(quiet.release(at: try ms("2026-01-15T20:59:00Z"), userTimeZone: nil) == nil)  // 21:59 CET
        #expect(try quiet.release(at: try ms("2026-01-15T21:00:00Z"), userTimeZone: nil) == ms("2026-01-16T07:00:00Z"))
        #expect(try quiet.release(at: try ms("2026-01-16T06:59:59Z"), userTimeZone: nil) == ms("2026-01-16T07:00:00Z"))
        #expect(quiet.release(at: try ms("2026-01-16T07:00:00Z"), userTimeZone: nil) == nil)  // 08:00 CET
    }

    @Test("a window within one day (13:00–14:30) holds only between its ends")
    func daytimeWindow() throws {
        let quiet = try window("13:00", "14:30", "UTC")
        #expect(quiet.release(at: try ms("2026-01-15T12:59:00Z"), userTimeZone: nil) == nil)
        #expect(try quiet.release(at: try ms("2026-01-15T13:10:00Z"), userTimeZone: nil) == ms("2026-01-15T14:30:00Z"))
        #expect(quiet.release(at: try ms("2026-01-15T14:30:00Z"), userTimeZone: nil) == nil)
    }

    @Test("the user's profile zone decides, the pipeline's is the default, and an unknown name falls back to it")
    func userZoneWins() throws {
        let quiet = try window("22:00", "08:00", "UTC")
        let instant = try ms("2026-01-15T23:00:00Z")
        #expect(try quiet.release(at: instant, userTimeZone: nil) == ms("2026-01-16T08:00:00Z"))
        #expect(try quiet.release(at: instant, userTimeZone: "Europe/Berlin") == ms("2026-01-16T07:00:00Z"))  // 00:00 CET
        #expect(quiet.release(at: instant, userTimeZone: "Asia/Tokyo") == nil)  // 08:00 JST
        #expect(quiet.release(at: instant, userTimeZone: "America/New_York") == nil)  // 18:00 EST
        #expect(try quiet.release(at: instant, userTimeZone: "Mars/Olympus") == ms("2026-01-16T08:00:00Z"))
    }

    @Test("the night clocks go forward (Berlin, 29 March 2026) the window is 9 hours and ends at 08:00 summer time")
    func springForwardNight() throws {
        let quiet = try window("22:00", "08:00")
        #expect(try quiet.release(at: try ms("2026-03-28T21:00:00Z"), userTimeZone: nil) == ms("2026-03-29T06:00:00Z"))
    }

    @Test("the night clocks go back (Berlin, 25 October 2026) the window is 11 hours and ends at 08:00 winter time")
    func fallBackNight() throws {
        let quiet = try window("22:00", "08:00")
        #expect(try quiet.release(at: try ms("2026-10-24T20:00:00Z"), userTimeZone: nil) == ms("2026-10-25T07:00:00Z"))
    }

    @Test("a window ending at a time the clocks skip (02:30 on 29 March in Berlin) ends at the first time after it, 03:00")
    func endInSkippedHour() throws {
        let quiet = try window("01:00", "02:30")
        #expect(try quiet.release(at: try ms("2026-03-29T00:30:00Z"), userTimeZone: nil) == ms("2026-03-29T01:00:00Z"))
        #expect(quiet.release(at: try ms("2026-03-29T01:00:00Z"), userTimeZone: nil) == nil)  // 03:00 CEST
    }

    @Test("a window ending at a time that occurs twice (02:30 on 25 October) ends at its first occurrence; the repeated hour is wall-clock time again")
    func endInRepeatedHour() throws {
        let quiet = try window("01:00", "02:30")
        #expect(try quiet.release(at: try ms("2026-10-24T23:30:00Z"), userTimeZone: nil) == ms("2026-10-25T00:30:00Z"))  // 01:30 CEST
        #expect(quiet.release(at: try ms("2026-10-25T00:40:00Z"), userTimeZone: nil) == nil)  // 02:40 CEST
        #expect(try quiet.release(at: try ms("2026-10-25T01:10:00Z"), userTimeZone: nil) == ms("2026-10-25T01:30:00Z"))  // 02:10 CET
    }

    @Test("a window that starts where it ends holds nothing")
    func emptyWindow() throws {
        let quiet = try window("08:00", "08:00")
        for hour in 0..<24 {
            #expect(quiet.release(at: try ms("2026-01-15T\(hour < 10 ? "0" : "")\(hour):00:00Z"), userTimeZone: nil) == nil)
        }
    }

    @Test("categories: only the listed ones are held; exempt categories: all but those, intents without a category included")
    func coverage() throws {
        let listed = try window("22:00", "08:00", coverage: .categories(["marketing"]))
        #expect(listed.covers(category: "marketing"))
        #expect(!listed.covers(category: "security"))
        #expect(!listed.covers(category: nil))
        let exempt = try window("22:00", "08:00", coverage: .allExcept(["security", "call"]))
        #expect(exempt.covers(category: "marketing"))
        #expect(exempt.covers(category: nil))
        #expect(!exempt.covers(category: "security"))
        #expect(!exempt.covers(category: "call"))
        #expect(try window("22:00", "08:00").covers(category: "security"))
    }

    @Test("times of day are HH:MM on a 24-hour clock")
    func timeOfDay() {
        #expect(TimeOfDay("22:00")?.description == "22:00")
        #expect(TimeOfDay("7:30")?.description == "07:30")
        for bad in ["24:00", "22:60", "2200", "22:0", "-1:00", "+1:00", "", "22:00:00", "２２:00"] {
            #expect(TimeOfDay(bad) == nil, "\(bad)")
        }
    }
}
