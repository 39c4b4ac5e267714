import Foundation
@testable import NexusCore
import Testing

/// The follower in-process, against a scripted feed that fails on cue: where it starts,
/// when it saves, how it waits, and what it says.
struct FeedFollowerTests {
    /// Answers each sync with the next scripted step and records what was asked.
    final class ScriptedFeed: FeedSource {
        enum Step {
            case answer(SyncResponse)
            case fail(APIError)
        }
        var steps: [Step]
        var asked: [(cursor: FeedCursor?, last: Int?, wait: Int)] = []
        let serverName = "scripted"

        init(_ steps: [Step]) { self.steps = steps }

        func sync(from cursor: FeedCursor?, last: Int?, conversationId: Int64?, waitSeconds: Int) throws(APIError) -> SyncResponse {
            asked.append((cursor, last, waitSeconds))
            guard !steps.isEmpty else { return SyncResponse(events: [], cursor: cursor?.id ?? 0, cursorCheck: cursor?.check) }
            switch steps.removeFirst() {
            case .answer(let response): return response
            case .fail(let error): throw error
            }
        }
    }

    /// Records what it is handed, and what the saved position was at each write.
    final class Recorder: FeedConsumer {
        var written: [(event: Int64, live: Bool, savedBefore: String?)] = []
        var notices: [FeedNotice] = []
        var ended = 0
        var requestsLeft: Int
        let positionPath: String?
        let feed: ScriptedFeed

        init(feed: ScriptedFeed, requests: Int, positionPath: String?) {
            self.feed = feed
            self.requestsLeft = requests
            self.positionPath = positionPath
        }

        func begin(_ batch: SyncResponse, live: Bool) {}
        func prepare(_ event: SyncEvent, live: Bool) {}
        func write(_ event: SyncEvent, live: Bool) {
            let saved = positionPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }
            written.append((event.id, live, saved?.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        func end(_ batch: SyncResponse, live: Bool) { ended += 1 }
        func notice(_ notice: FeedNotice) { notices.append(notice) }
        func keepFollowing() -> Bool {
            requestsLeft -= 1
            return requestsLeft >= 0
        }
    }

    static func event(_ id: Int64, seq: Int64) -> SyncEvent {
        let message = Message(id: id, conversationId: 1, seq: seq, senderId: 2, localId: "l\(id)", text: "m\(id)", sentAt: Timestamp(milliseconds: id))
        var e = SyncEvent(id: id, type: .message, conversationId: 1, message: message)
        e.check = FeedCheck.of(e)
        return e
    }

    static func batch(_ ids: [Int64]) -> SyncResponse {
        let events = ids.map { event($0, seq: $0) }
        return SyncResponse(events: events, cursor: ids.last ?? 0, cursorCheck: events.last?.check)
    }

    static func profile() throws -> Profile {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-feed-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        return profile
    }

    static func follow(_ steps: [ScriptedFeed.Step], requests: Int, lines: Int = 10, startFromNewest: Bool = false, profile: Profile? = nil)
        throws -> (ScriptedFeed, Recorder, FeedFollower, [UInt32], FeedPosition)
    {
        let profile = try profile ?? Self.profile()
        let position = try FeedPosition(profile: profile, conversationId: nil, name: nil)
        let feed = ScriptedFeed(steps)
        let recorder = Recorder(feed: feed, requests: requests, positionPath: position.path)
        let follower = FeedFollower(
            source: feed, position: position,
            options: .init(conversationId: nil, lines: lines, startFromNewest: startFromNewest, follow: true), consumer: recorder)
        var slept: [UInt32] = []
        follower.sleep = { slept.append($0) }
        try follower.run(offline: false)
        return (feed, recorder, follower, slept, position)
    }

    @Test func savesThePositionAfterEveryEventNotAfterTheBatch() throws {
        let (_, recorder, follower, _, position) = try Self.follow([.answer(Self.batch([1, 2])), .answer(Self.batch([3, 4, 5]))], requests: 1)
        #expect(recorder.written.map(\.event) == [1, 2, 3, 4, 5])
        #expect(recorder.written.map(\.live) == [false, false, true, true, true], "the start is the backlog")
        // At each write, the position already names the event before it, and no later one.
        let before = recorder.written.map { $0.savedBefore.flatMap { FeedCursor(parsing: $0)?.id } }
        #expect(before == [nil, 1, 2, 3, 4])
        #expect(try position.load() == FeedCursor(after: Self.event(5, seq: 5)))
        #expect(follower.cursor?.id == 5)
    }

    @Test func resumesFromTheSavedPositionWithItsCheck() throws {
        let profile = try Self.profile()
        let saved = FeedCursor(after: Self.event(7, seq: 7))
        try FileSystem.writeAtomically(profile.cursorPath(conversationId: nil), Array("\(saved)\n".utf8))
        let (feed, recorder, _, _, _) = try Self.follow([.answer(Self.batch([8]))], requests: 1, profile: profile)
        #expect(feed.asked.first?.cursor == saved && feed.asked.first?.last == nil)
        #expect(recorder.written.map(\.event) == [8])
    }

    @Test func retriesWithBackoffAndHonoursRetryAfter() throws {
        let steps: [ScriptedFeed.Step] = [
            .answer(Self.batch([1])),
            .fail(.unreachable("refused")), .fail(.interrupted("lost")),
            .fail(.server(status: 429, code: "too_many_polls", message: "slow down", retryAfter: 7)),
            .fail(.server(status: 503, code: "unavailable", message: "db", retryAfter: nil)),
            .answer(Self.batch([2])),
        ]
        let (feed, recorder, _, slept, _) = try Self.follow(steps, requests: 5)
        #expect(slept == [200, 400, 7000, 1600])
        #expect(recorder.notices == [.retrying(.unreachable("refused")), .reconnected(server: "scripted")], "one warning, one note")
        #expect(feed.asked.dropFirst().map(\.wait) == [25, 0, 0, 0, 0], "offline probes don't wait")
        #expect(recorder.written.map(\.event) == [1, 2])
    }

    @Test func aLastingErrorEndsTheFollowWithIt() throws {
        let revoked = APIError.server(status: 401, code: "unauthorized", message: "no", retryAfter: nil)
        #expect(throws: FeedError.self) { try Self.follow([.answer(Self.batch([1])), .fail(revoked)], requests: 5) }
    }

    @Test func anUnknownCursorIsSaidAndTheFeedStartsAgainFromTheNewest() throws {
        let gone = APIError.server(status: 410, code: "unknown_cursor", message: "restored", retryAfter: nil)
        let (feed, recorder, _, _, position) = try Self.follow(
            [.answer(Self.batch([5])), .fail(gone), .answer(Self.batch([3, 4]))], requests: 3, lines: 2)
        #expect(recorder.notices == [.historyChanged(lines: 2)])
        #expect(feed.asked.map(\.last) == [2, nil, 2, nil])
        #expect(recorder.written.map(\.event) == [5, 3, 4])
        #expect(try position.load()?.id == 4, "the position moved back to the server's history")
    }

    @Test func aDamagedPositionIsAnErrorUnlessTheStartIsGiven() throws {
        for content in ["garbage\n", "-1\n", "", "12 not/a/check\n"] {
            let profile = try Self.profile()
            try FileSystem.writeAtomically(profile.cursorPath(conversationId: nil), Array(content.utf8))
            do {
                _ = try Self.follow([], requests: 1, profile: profile)
                Issue.record("\(content.debugDescription) was read as a position")
            } catch let error as FeedError {
                guard case .store(let e) = error else { Issue.record("\(error)"); continue }
                #expect(e.path == profile.cursorPath(conversationId: nil))
            }
            let (_, recorder, _, _, _) = try Self.follow([.answer(Self.batch([9]))], requests: 0, startFromNewest: true, profile: profile)
            #expect(recorder.notices.count == 1 && recorder.written.map(\.event) == [9])
        }
    }

    @Test func aPositionHasOneFollowerAtATime() throws {
        let profile = try Self.profile()
        let first = try FeedPosition(profile: profile, conversationId: nil, name: "a")
        #expect(throws: FeedPosition.OpenError.self) { try FeedPosition(profile: profile, conversationId: nil, name: "a") }
        _ = try FeedPosition(profile: profile, conversationId: nil, name: "b")
        _ = try FeedPosition(profile: profile, conversationId: 3, name: "a")
        first.release()
        _ = try FeedPosition(profile: profile, conversationId: nil, name: "a")
        #expect(FeedPosition.problem(withName: "../x") != nil && FeedPosition.problem(withName: "hook-1") == nil)
    }

    @Test func cursorsReadBackWhatTheyWrite() {
        let c = FeedCursor(id: 42, check: "00ff00ff00ff00ff")
        #expect(FeedCursor(parsing: c.description + "\n") == c)
        #expect(FeedCursor(parsing: "42\n") == FeedCursor(id: 42))
        for bad in ["", "-1", "x", "1 2 3", "٣"] { #expect(FeedCursor(parsing: bad) == nil, "\(bad)") }
        #expect(FeedCheck.of(Self.event(1, seq: 1)) != FeedCheck.of(Self.event(1, seq: 2)))
    }
}
