// Reading the list of someone in ten thousand conversations took a quarter of `convos`'s
// time (the list target: at most 60 ms, whole process). A long list's second half is
// read on a thread of its own while this one reads the first, on a machine with a core to
// spare; the halves meet where the first one ends.

/// The conversations from the middle of a long list to its end, read on a thread of their own.
final class SecondHalf: @unchecked Sendable {
    /// Where the first half ends: the comma before the second half's first conversation.
    let from: Int
    private let bytes: UnsafeBufferPointer<UInt8>
    private var work: BackgroundWork<(items: [ConversationSummary], end: Int)?>?

    /// Lists shorter than this are read on one thread: a thread costs more than it saves.
    static let minimumBytes = 256 << 10

    /// Starts reading the second half of the conversations in `bytes`, or nil when the list
    /// is short or no boundary between two conversations is found past its middle.
    ///
    /// A boundary is `},{"id":` (no string can hold it: a quote inside one is escaped). It
    /// can also join two objects nested in a conversation, or two users: then the first
    /// half's reader never stops there (`ConversationsResponse.read`), and reads on alone.
    static func start(_ bytes: UnsafeBufferPointer<UInt8>, minimumBytes: Int = minimumBytes) -> SecondHalf? {
        guard bytes.count >= minimumBytes else { return nil }
        let boundary = Array(#"},{"id":"#.utf8)
        let searchEnd = min(bytes.count - boundary.count, bytes.count / 2 + (64 << 10))
        var at = bytes.count / 2
        while at < searchEnd {
            if bytes[at] == boundary[0], boundary.indices.allSatisfy({ bytes[at + $0] == boundary[$0] }) {
                let half = SecondHalf(bytes: bytes, from: at + 1)
                half.work = BackgroundWork.start { half.readItems() }
                return half.work == nil ? nil : half
            }
            at += 1
        }
        return nil
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, from: Int) {
        self.bytes = bytes
        self.from = from
    }

    /// Conversations from just after `from` up to the `]` that ends the list; nil when they
    /// are not that (the first half then reads them).
    private func readItems() -> (items: [ConversationSummary], end: Int)? {
        var r = JSONByteReader(bytes)
        r.i = from + 1
        var items: [ConversationSummary] = []
        items.reserveCapacity(min((bytes.count - from) / 256, 1 << 17))
        do {
            repeat { items.append(try ConversationSummary.read(&r)) } while try r.take(UInt8(ascii: ","))
            guard try r.peek() == UInt8(ascii: "]") else { return nil }
        } catch {
            return nil
        }
        return (items, r.i)
    }

    /// Waits for the thread; its conversations and where they end (at the list's `]`), or
    /// nil. Called once at least before `bytes` go away, whether or not they are used.
    @discardableResult
    func join() -> (items: [ConversationSummary], end: Int)? {
        work?.join() ?? nil
    }
}
