import NexusCore
import Testing

@testable import NexusCLI

/// Smart times at fixed clocks. Local time is the machine's; the cases are built from
/// local noon so they hold in any zone.
struct SmartTimeTests {
    /// Local noon of the day `daysAgo` before a fixed Wednesday, 2026-11-18.
    func localNoon(daysAgo: Int64) -> Timestamp {
        let utcNoon = Timestamp(iso8601: "2026-11-18T12:00:00Z")!.milliseconds - daysAgo * 86_400_000
        let offset = Int64(LocalTime.parts(Timestamp(milliseconds: utcNoon)).tm_gmtoff) * 1000
        return Timestamp(milliseconds: utcNoon - offset)
    }

    @Test(arguments: [
        (Int64(0), "Just now"),
        (Int64(59), "Just now"),
        (Int64(60), "1m"),
        (Int64(5 * 60), "5m"),
        (Int64(59 * 60), "59m"),
        (Int64(2 * 3600), "2h"),
    ])
    func withinTheDay(_ secondsAgo: Int64, _ expected: String) {
        let now = localNoon(daysAgo: 0)
        #expect(SmartTime.short(Timestamp(milliseconds: now.milliseconds - secondsAgo * 1000), now: now) == expected)
    }

    /// Under 24 hours is hours, even when midnight lies between: 23:30 seen at 01:30 is "2h".
    @Test func hoursAcrossMidnight() {
        let halfPastOne = Timestamp(milliseconds: localNoon(daysAgo: 0).milliseconds - (10 * 3600 + 1800) * 1000)
        #expect(SmartTime.short(Timestamp(milliseconds: halfPastOne.milliseconds - 2 * 3600 * 1000), now: halfPastOne) == "2h")
        #expect(SmartTime.short(Timestamp(milliseconds: halfPastOne.milliseconds - 25 * 3600 * 1000), now: halfPastOne) == "Yesterday")
    }

    @Test(arguments: [
        (Int64(1), "Yesterday"),
        (Int64(2), "Mon"),
        (Int64(6), "Thu"),
        (Int64(7), "11/11"),
        (Int64(329), "12/24"),
    ])
    func earlierDays(_ daysAgo: Int64, _ expected: String) {
        #expect(SmartTime.short(localNoon(daysAgo: daysAgo), now: localNoon(daysAgo: 0)) == expected)
    }

    @Test(arguments: [
        (Int64(30), "Last seen just now"),
        (Int64(5 * 60), "Last seen 5m ago"),
        (Int64(2 * 3600), "Last seen 2h ago"),
        (Int64(86_400), "Last seen yesterday"),
        (Int64(3 * 86_400), "Last seen 11/15"),
    ])
    func lastSeen(_ secondsAgo: Int64, _ expected: String) {
        let now = localNoon(daysAgo: 0)
        #expect(SmartTime.lastSeen(Timestamp(milliseconds: now.milliseconds - secondsAgo * 1000), now: now) == expected)
    }

    @Test func convosAreFilteredAndOrdered() {
        func conversation(_ id: Int64, _ name: String, updated: Int64, unread: Int, last: String) -> Conversation {
            Conversation(
                id: id, kind: .direct, name: nil,
                members: [User(id: 1, email: "me@x", displayName: "Me"), User(id: id + 10, email: "\(name)@x", displayName: name)],
                lastSeq: 1, lastMessage: Message(id: id, conversationId: id, seq: 1, senderId: id + 10, localId: "l", text: last, sentAt: Timestamp(milliseconds: updated)),
                createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: updated), unreadCount: unread)
        }
        let full = [
            conversation(1, "Alice", updated: 100, unread: 0, last: "lunch?"),
            conversation(2, "Bob", updated: 300, unread: 2, last: "Deploy done"),
            conversation(3, "Carol", updated: 200, unread: 1, last: "see you"),
        ]
        let all = full.map { $0.summary(viewer: 1) }
        let people = Dictionary(full.flatMap(\.members).map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        #expect(ConvosCommand.filter(all, me: 1, people: people, search: nil, unreadOnly: false).map(\.id) == [2, 3, 1])
        #expect(ConvosCommand.filter(all, me: 1, people: people, search: nil, unreadOnly: true).map(\.id) == [2, 3])
        #expect(ConvosCommand.filter(all, me: 1, people: people, search: "DEPLOY", unreadOnly: false).map(\.id) == [2])
        #expect(ConvosCommand.filter(all, me: 1, people: people, search: "car", unreadOnly: false).map(\.id) == [3])
        #expect(ConvosCommand.filter(all, me: 1, people: people, search: "zzz", unreadOnly: false).isEmpty)
    }
}
