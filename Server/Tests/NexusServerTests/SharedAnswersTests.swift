import NIOCore
import NexusCore
import Synchronization
import Testing

@testable import NexusServer

/// SharedAnswers: users whose polls found equal events get one encoded answer, and no one
/// gets bytes made from events that differ from their own.
@Suite(.timeLimit(.minutes(5)))
struct SharedAnswersTests {
    func event(_ id: Int64, text: String) -> SyncEvent {
        let message = Message(
            id: id, conversationId: 7, seq: id, senderId: 1, localId: "m\(id)", text: text, sentAt: Timestamp(milliseconds: 1_000))
        return SyncEvent(id: id, type: .message, conversationId: 7, message: message, check: "c\(id)")
    }

    @Test func equalPagesAreEncodedOnceAndAChangedOneAgain() throws {
        let answers = SharedAnswers()
        let encoded = Mutex(0)
        func body(_ events: [SyncEvent], after: Int64 = 3) -> String {
            String(buffer: answers.body(after: after, events: events) {
                encoded.withLock { $0 += 1 }
                return ByteBuffer(string: events.map(\.message!.text).joined(separator: ","))
            })
        }
        // A thousand users woken by one message: one encoding.
        for _ in 0..<1000 { #expect(body([event(4, text: "hello")]) == "hello") }
        #expect(encoded.withLock { $0 } == 1)
        // Same ids, but the message was edited between two users' reads: its own bytes.
        #expect(body([event(4, text: "edited")]) == "edited")
        #expect(encoded.withLock { $0 } == 2)
        // Another cursor, or more events: their own bytes too.
        #expect(body([event(4, text: "edited")], after: 2) == "edited")
        #expect(body([event(3, text: "x"), event(4, text: "edited")]) == "x,edited")
        #expect(encoded.withLock { $0 } == 4)
    }
}
