import Foundation
import Logging
import NexusWire
import Testing

@testable import NexusServer

/// A long conversation list read in two halves at once (SQLiteConversationList+Halves)
/// reads one commit, as one transaction would, and the writer hold it relies on holds.
/// (ConversationListJSONTests compares the halves' bytes with the models' list.)
@Suite(.timeLimit(.minutes(5)))
struct ConversationListHalvesTests {
    /// Every commit here raises the last seq of all the viewer's conversations at once, so
    /// in any list they must all be equal. Without the writer held while the halves begin,
    /// a commit lands between their beginnings now and then, and one half shows the seq
    /// before it and the other the seq after (nearly every list, with the helper's thread
    /// slow to start as below).
    @Test func bothHalvesReadTheSameCommit() async throws {
        let (db, viewer, cleanUp) = try await Self.database(conversations: 200)
        defer { cleanUp() }
        let store = SQLiteConversationStore(db: db)
        let writing = Task {
            var commits = 0
            while !Task.isCancelled {
                _ = try await db.writer.perform { try await $0.query("UPDATE conversations SET last_seq = last_seq + 1") }
                commits += 1
            }
            return commits
        }
        let helper = try #require(db.listHelper)
        var lists = 0
        var mixed: [Set<Int64>] = []
        while lists < 200 {
            // The helper's thread busy for a moment when its half is handed over, as on a
            // loaded machine: several commits would fit between the halves' beginnings.
            helper.submit { _, _ in usleep(2_000) }
            let bytes = try await store.conversationListJSON(viewer: viewer, allowed: nil, present: { $0 }, halvesFrom: 0)
            let list = try JSONDecoder().decode(ConversationsResponse.self, from: Data(bytes))
            #expect(list.conversations.count == 200)
            let seqs = Set(list.conversations.map(\.lastSeq))
            if seqs.count != 1 { mixed.append(seqs) }
            lists += 1
        }
        writing.cancel()
        let commits = try await writing.value
        #expect(commits > 20, "the writer committed \(commits) times beside \(lists) lists")
        let mixedCount = mixed.count
        #expect(mixedCount == 0, "\(mixedCount) of \(lists) lists mixed two commits, as \(mixed.first.map { "\($0.sorted())" } ?? "")")
        try await db.close()
    }

    /// While held, the writer commits nothing; a second hold that cannot wait gives up, and
    /// leaves nothing behind that would stop the writer after the first is released.
    @Test func aHeldWriterCommitsNothingUntilReleased() async throws {
        let (db, _, cleanUp) = try await Self.database(conversations: 1)
        defer { cleanUp() }
        let writerThread = db.writerThread
        let hold = try #require(await Self.onThread { WriterHold.take(writerThread, patience: .seconds(5)) })
        let write = Task {
            _ = try await db.writer.perform { try await $0.query("UPDATE conversations SET name = 'written'") }
            return Date()
        }
        let second = await Self.onThread { WriterHold.take(writerThread, patience: .milliseconds(200)) }
        #expect(second == nil)
        try await Task.sleep(for: .milliseconds(300))
        let released = Date()
        hold.release()
        let written = try await write.value
        #expect(written >= released, "the write committed while the writer was held")
        let names = try await db.read("SELECT name FROM conversations").map { $0.column("name")?.string }
        #expect(names == ["written"])
        // The abandoned hold's job returned at once: the writer goes on.
        _ = try await db.writer.perform { try await $0.query("UPDATE conversations SET name = 'again'") }
        try await db.close()
    }

    /// A migrated database where one viewer (returned) and a second user are in
    /// `conversations` groups with no messages yet.
    static func database(conversations: Int) async throws -> (SQLiteDatabase, Int64, @Sendable () -> Void) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nexusd-halves-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cleanUp: @Sendable () -> Void = { try? FileManager.default.removeItem(at: folder) }
        let db = try await SQLiteDatabase.open(path: folder.appendingPathComponent("nexus.sqlite").path, logger: Logger(label: "test"))
        try await db.migrate()
        _ = try await db.writer.perform(multiStatement: true) { c in
            for name in ["alice", "bob"] {
                _ = try await c.query(
                    "INSERT INTO users (email, display_name, password_hash, created_at) VALUES (?, ?, 'x', 0)",
                    [.text("\(name)@example.com"), .text(name)])
            }
            for i in 0..<conversations {
                _ = try await c.query(
                    "INSERT INTO conversations (kind, name, created_at, updated_at) VALUES ('group', ?, 0, ?)", [.text("g\(i)"), .integer(i)])
                _ = try await c.query(
                    "INSERT INTO members (conversation_id, user_id, joined_at) SELECT last_insert_rowid(), id, 0 FROM users")
            }
        }
        let viewer = try #require(try await db.read("SELECT id FROM users WHERE email = 'alice@example.com'").first?.column("id")?.integer)
        return (db, Int64(viewer), cleanUp)
    }

    /// `body` on a thread of its own: WriterHold blocks its caller.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
