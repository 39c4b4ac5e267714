import Foundation
import HTTPTypes
import NexusWire
import Testing

@testable import NexusServer

struct SyncControllerTests {
    @Test func feedListsEventsInOrderWithACursor() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            for i in 1...3 { try await api.send(alice.token, to: conversation, localId: "s-\(i)") }

            let feed = try await api.sync(bob.token, query: "after=0")
            #expect(feed.events.map(\.type) == [.conversation, .message, .message, .message])
            #expect(feed.events.allSatisfy { $0.conversationId == conversation })
            #expect(feed.events.first?.conversation?.id == conversation)
            #expect(feed.events.compactMap(\.message?.seq) == [1, 2, 3])
            let ids = feed.events.map(\.id)
            #expect(ids == ids.sorted() && Set(ids).count == ids.count)
            #expect(feed.cursor == ids.last)

            // Both members share the feed's ids.
            #expect(try await api.sync(alice.token, query: "after=0").events.map(\.id) == ids)

            let rest = try await api.sync(bob.token, query: "after=\(ids[1])")
            #expect(rest.events.compactMap(\.message?.seq) == [2, 3])
            #expect(rest.cursor == feed.cursor)

            let caughtUp = try await api.sync(bob.token, query: "after=\(feed.cursor)")
            #expect(caughtUp.events.isEmpty)
            #expect(caughtUp.cursor == feed.cursor)

            let noCursor = try await api.sync(bob.token, query: "")
            #expect(noCursor.events.map(\.id) == ids, "after defaults to 0")
        }
    }

    @Test func checkedCursorsResumeAndACursorFromAnotherHistoryIsRefused() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            for i in 1...3 { try await api.send(alice.token, to: conversation, localId: "k-\(i)") }
            let feed = try await api.sync(bob.token, query: "after=0")
            let checks = feed.events.compactMap(\.check)
            #expect(checks.count == feed.events.count && Set(checks).count == checks.count, "every event has its own check")
            #expect(feed.cursorCheck == feed.events.last?.check)
            // Both members see the same check for an event.
            #expect(try await api.sync(alice.token, query: "after=0").events.map(\.check) == feed.events.map(\.check))

            let middle = feed.events[1]
            let rest = try await api.sync(bob.token, query: "after=\(middle.id)&check=\(middle.check!)")
            #expect(rest.events.map(\.id) == feed.events.dropFirst(2).map(\.id))
            let caughtUp = try await api.sync(bob.token, query: "after=\(feed.cursor)&check=\(feed.cursorCheck!)")
            #expect(caughtUp.events.isEmpty && caughtUp.cursorCheck == feed.cursorCheck)

            // A check that isn't the event's (a restored database reuses ids), and a cursor
            // past the head: both refused, so a client can tell instead of waiting in silence.
            for query in ["after=\(middle.id)&check=0123456789abcdef", "after=\(feed.cursor + 100)&check=\(feed.cursorCheck!)"] {
                let refused = try await api.call(.get, "/v1/sync?\(query)", token: bob.token)
                #expect(refused.status == .gone, "\(query): \(refused.status)")
                #expect(refused.text.contains("unknown_cursor"))
            }
            let malformed = try await api.call(.get, "/v1/sync?after=1&check=%20x", token: bob.token)
            #expect(malformed.status == .badRequest)
            // Without a check (clients of before), nothing changes.
            #expect(try await api.sync(bob.token, query: "after=\(feed.cursor + 100)").events.isEmpty)

            // `last` answers with the head's check, which resumes.
            let last = try await api.sync(bob.token, query: "last=1")
            #expect(last.cursor == feed.cursor && last.cursorCheck == feed.cursorCheck)
            try await api.send(alice.token, to: conversation, localId: "k-4")
            let next = try await api.sync(bob.token, query: "after=\(last.cursor)&check=\(last.cursorCheck!)")
            #expect(next.events.compactMap(\.message?.localId) == ["k-4"])
        }
    }

    @Test func conversationFilterKeepsToOneConversation() async throws {
        try await withServer { api in
            let (alice, _, withBob) = try await api.pair()
            _ = try await api.register("carol@example.com")
            let withCarol = try await api.openDirect(alice.token, with: "carol@example.com").conversation.id
            try await api.send(alice.token, to: withBob, localId: "b1")
            try await api.send(alice.token, to: withCarol, localId: "c1")
            try await api.send(alice.token, to: withBob, localId: "b2")

            let all = try await api.sync(alice.token, query: "after=0")
            #expect(all.events.count == 5)
            let onlyBob = try await api.sync(alice.token, query: "after=0&conversation=\(withBob)")
            #expect(onlyBob.events.allSatisfy { $0.conversationId == withBob })
            #expect(onlyBob.events.compactMap(\.message?.localId) == ["b1", "b2"])
            #expect(onlyBob.cursor == all.cursor)
        }
    }

    @Test func longPollWakesWhenAMessageArrives() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            let start = try await api.sync(bob.token, query: "after=0")

            let sender = Task {
                try await Task.sleep(for: .milliseconds(200))
                try await api.send(alice.token, to: conversation, localId: "late", text: "are you there?")
            }
            let clock = ContinuousClock()
            let began = clock.now
            let woken = try await api.sync(bob.token, query: "after=\(start.cursor)&wait=5")
            let elapsed = clock.now - began
            try await sender.value

            #expect(elapsed < .seconds(2), "the long poll took \(elapsed)")
            let message = try #require(woken.events.first?.message)
            #expect(message.localId == "late")
            #expect(message.text == "are you there?")
            #expect(woken.cursor == woken.events.last?.id)
            #expect(woken.cursor > start.cursor)
        }
    }

    @Test func longPollTimesOutWithTheSameCursor() async throws {
        try await withServer { api in
            let (_, bob, _) = try await api.pair()
            let start = try await api.sync(bob.token, query: "after=0")
            let clock = ContinuousClock()
            let began = clock.now
            let idle = try await api.sync(bob.token, query: "after=\(start.cursor)&wait=1")
            let elapsed = clock.now - began
            #expect(idle.events.isEmpty)
            #expect(idle.cursor == start.cursor)
            #expect(elapsed >= .milliseconds(900), "returned after \(elapsed)")
            #expect(elapsed < .seconds(3))
        }
    }

    @Test func lastReturnsTheNewestMessagesAndTheHead() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            for i in 1...5 { try await api.send(alice.token, to: conversation, localId: "n-\(i)") }
            let full = try await api.sync(bob.token, query: "after=0")

            let last = try await api.sync(bob.token, query: "last=2")
            #expect(last.events.map(\.type) == [.message, .message])
            #expect(last.events.compactMap(\.message?.seq) == [4, 5])
            #expect(last.cursor == full.cursor)

            let more = try await api.sync(bob.token, query: "last=10")
            #expect(more.events.compactMap(\.message?.seq) == [1, 2, 3, 4, 5], "only message events")
            #expect(more.events.count == 5)

            let none = try await api.sync(bob.token, query: "last=0")
            #expect(none.events.isEmpty)
            #expect(none.cursor == full.cursor)

            // `last` wins over `after`, and the head it gives resumes without repeats.
            let both = try await api.sync(bob.token, query: "last=1&after=0")
            #expect(both.events.compactMap(\.message?.seq) == [5])
            try await api.send(bob.token, to: conversation, localId: "n-6")
            let next = try await api.sync(bob.token, query: "after=\(last.cursor)")
            #expect(next.events.compactMap(\.message?.localId) == ["n-6"])
        }
    }

    @Test func lastWithAConversationFilter() async throws {
        try await withServer { api in
            let (alice, _, withBob) = try await api.pair()
            _ = try await api.register("carol@example.com")
            let withCarol = try await api.openDirect(alice.token, with: "carol@example.com").conversation.id
            try await api.send(alice.token, to: withBob, localId: "b1")
            try await api.send(alice.token, to: withBob, localId: "b2")
            try await api.send(alice.token, to: withCarol, localId: "c1")

            let last = try await api.sync(alice.token, query: "last=5&conversation=\(withBob)")
            #expect(last.events.compactMap(\.message?.localId) == ["b1", "b2"])
            #expect(last.cursor == last.events.last?.id, "the head of that conversation's feed")
        }
    }

    /// The design's trap: with concurrent writers a reader must never step past an event
    /// that commits later. A reader polling while 50 sends race must see every message
    /// once, in seq order.
    @Test func readerPollingDuringConcurrentSendsMissesNothing() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            let cursor = try await api.sync(bob.token, query: "after=0").cursor

            async let sent: Void = withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<50 {
                    let token = i.isMultiple(of: 2) ? alice.token : bob.token
                    group.addTask { try await api.send(token, to: conversation, localId: "race-\(i)") }
                }
                try await group.waitForAll()
            }

            var seen: [SyncEvent] = []
            var after = cursor
            let deadline = ContinuousClock.now + .seconds(20)
            while seen.count < 50, ContinuousClock.now < deadline {
                let page = try await api.sync(bob.token, query: "after=\(after)&wait=2")
                seen += page.events
                after = page.cursor
            }
            try await sent

            #expect(seen.compactMap(\.message?.seq) == Array(1...50))
            #expect(Set(seen.map(\.id)).count == seen.count)
            #expect(try await api.sync(bob.token, query: "after=\(after)").events.isEmpty)
        }
    }

    @Test(arguments: ["after=x", "wait=61", "wait=-1", "last=-1", "last=501", "conversation=abc"])
    func badSyncQueryIsABadRequest(_ query: String) async throws {
        try await withServer { api in
            let (_, bob, _) = try await api.pair()
            try expectError(try await api.call(.get, "/v1/sync?\(query)", token: bob.token), .badRequest, code: "invalid_query")
        }
    }
}
