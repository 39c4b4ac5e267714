import Foundation
import Logging
import NexusWire
import NIOPosix
import Testing

@testable import NexusServer

/// The writer's send queue (SendQueue): the SQLite thread takes group after group by
/// itself, and gives way to the writer's other jobs (`perform`, on its other connection),
/// which must never land inside a group nor wait for the sends to stop.
@Suite(.timeLimit(.minutes(5)))
struct WriterQueueTests {
    /// Senders that keep sending while other writes (registrations, new conversations) come
    /// in: every send and every other write is answered, each conversation's seqs are
    /// 1…n without a gap, and the other writes are all stored.
    @Test func sendsAndOtherWritesTakeTurns() async throws {
        try await withServer { api in
            var senders: [(token: String, conversation: Int64)] = []
            for s in 0..<6 {
                let sender = try await api.register("sender\(s)@example.com", name: "Sender \(s)")
                _ = try await api.register("peer\(s)@example.com", name: "Peer \(s)")
                senders.append((sender.token, try await api.openDirect(sender.token, with: "peer\(s)@example.com").conversation.id))
            }
            let perSender = 40
            let newcomers = 12
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (s, sender) in senders.enumerated() {
                    group.addTask {
                        for i in 1...perSender {
                            let (sent, status) = try await api.send(sender.token, to: sender.conversation, localId: "q-\(s)-\(i)", text: "m \(i)")
                            #expect(status == .created && sent.message.seq == Int64(i))
                        }
                    }
                }
                for n in 0..<newcomers {
                    group.addTask {
                        let newcomer = try await api.register("new\(n)@example.com", name: "New \(n)")
                        let opened = try await api.openDirect(newcomer.token, with: "peer\(n % 6)@example.com")
                        #expect(opened.created)
                        let (sent, status) = try await api.send(newcomer.token, to: opened.conversation.id, localId: "hello-\(n)", text: "hello")
                        #expect(status == .created && sent.message.seq == 1)
                    }
                }
                try await group.waitForAll()
            }
            for (s, sender) in senders.enumerated() {
                let page = try await api.messages(sender.token, in: sender.conversation, query: "limit=100")
                #expect(page.messages.map(\.seq) == (1...Int64(perSender)).map { $0 }, "sender \(s)")
                #expect(page.messages.map(\.localId) == (1...perSender).map { "q-\(s)-\($0)" })
            }
        }
    }

    /// The writer's thread carries its name, which `top -H` shows and `make bench` reads its
    /// CPU by (its single-send rows leave the writer's line out when no thread has it).
    @Test func theWriterThreadIsNamed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-writer-name-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = try await SQLiteDatabase.open(path: folder.appendingPathComponent("nexus.sqlite").path, logger: Logger(label: "test"))
        let name = try await db.writerThread.runIfActive { try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) }
        try await db.close()
        #expect(name == SQLiteDatabase.writerThreadName + "\n")
        #expect(SQLiteDatabase.writerThreadName.utf8.count <= 15, "the kernel keeps 15 bytes of a thread's name")
    }
}
