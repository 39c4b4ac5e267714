import Testing
import NexusCore

struct TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (Int64(951_782_400_123), "2000-02-29T00:00:00.123Z"),
        (Int64(1_795_348_984_005), "2026-11-22T12:03:04.005Z"),
        (Int64(-1), "1969-12-31T23:59:59.999Z"),
    ])
    func formatsAndParses(_ ms: Int64, _ text: String) {
        #expect(Timestamp(milliseconds: ms).iso8601 == text)
        #expect(Timestamp(iso8601: text)?.milliseconds == ms)
    }

    @Test func parsesOffsetsAndDates() {
        #expect(Timestamp(iso8601: "2026-11-22T14:03:04+02:00") == Timestamp(iso8601: "2026-11-22T12:03:04Z"))
        #expect(Timestamp(iso8601: "2026-11-22T12:03:04.5Z")?.milliseconds == Timestamp(iso8601: "2026-11-22T12:03:04Z")!.milliseconds + 500)
        #expect(Timestamp(iso8601: "2026-11-22")?.iso8601 == "2026-11-22T00:00:00.000Z")
    }

    @Test(arguments: ["", "yesterday", "2026-13-01", "2026-11-22T25:00:00Z", "2026-11-22T12:00:00", "2026-11-22T12:00:00Zjunk"])
    func rejects(_ text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }
}
