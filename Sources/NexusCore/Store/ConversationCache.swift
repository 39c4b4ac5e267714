#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the client knows of its conversations, for offline answers and names:
/// - `convos.tsv`: the list, one summary a line in tab-separated fields. It is parsed by
///   hand, because someone in ten thousand conversations still wants `convos` at once,
///   and a JSON decoder takes far longer over the same data;
/// - `people.json`: everyone met in them, by id;
/// - `conversations.json`: full details (members, receipts) of conversations looked at.
public struct ConversationCache: Sendable {
    let directory: String

    public init(profile: Profile) { self.directory = profile.directory }

    var listPath: String { directory + "/convos.tsv" }
    var peoplePath: String { directory + "/people.json" }
    var detailsPath: String { directory + "/conversations.json" }

    // MARK: The list

    public func list() -> [ConversationSummary] {
        guard let bytes = try? FileSystem.readFile(listPath) else { return [] }
        var out: [ConversationSummary] = []
        for line in bytes.split(separator: 10) {
            if let s = Self.parse(line) { out.append(s) }
        }
        return out
    }

    public func saveList(_ summaries: [ConversationSummary]) throws(StoreError) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(summaries.count * 200)
        for s in summaries { Self.format(s, into: &bytes) }
        try FileSystem.writeAtomically(listPath, bytes, durable: false)
    }

    /// Puts these conversations in the list, replacing their old lines.
    public func upsert(_ summaries: [ConversationSummary]) throws(StoreError) {
        let ids = Set(summaries.map(\.id))
        try saveList((list().filter { !ids.contains($0.id) } + summaries).sorted { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) })
    }

    // Fields: id, kind, name, memberIds, lastSeq, createdAt, updatedAt, unreadCount,
    // lastMessageReadBy (with "/lastMessageReaders" when known: an older file has the count
    // alone), then the last message's id, seq, senderId, localId, sentAt, text.
    // Written as bytes, field by field: `convos` online writes ten thousand of these lines.
    static func format(_ s: ConversationSummary, into bytes: inout [UInt8]) {
        // Digits straight into the bytes, without a String per number: ten thousand rows
        // hold about a hundred thousand numbers.
        func number<T: BinaryInteger>(_ v: T, _ out: inout [UInt8]) {
            if v < 0 { out.append(UInt8(ascii: "-")) }
            var m = UInt64(v.magnitude)
            let start = out.count
            repeat {
                out.append(UInt8(ascii: "0") &+ UInt8(m % 10))
                m /= 10
            } while m > 0
            out[start...].reverse()
        }
        number(s.id, &bytes)
        bytes.append(9)
        bytes.append(contentsOf: s.kind.rawValue.utf8)
        bytes.append(9)
        escape(s.name ?? "", into: &bytes)
        bytes.append(9)
        for (k, id) in s.memberIds.enumerated() {
            if k > 0 { bytes.append(UInt8(ascii: ",")) }
            number(id, &bytes)
        }
        bytes.append(9); number(s.lastSeq, &bytes)
        bytes.append(9); number(s.createdAt.milliseconds, &bytes)
        bytes.append(9); number(s.updatedAt.milliseconds, &bytes)
        bytes.append(9); number(s.unreadCount, &bytes)
        bytes.append(9)
        if let readBy = s.lastMessageReadBy {
            number(readBy, &bytes)
            if let readers = s.lastMessageReaders {
                bytes.append(UInt8(ascii: "/"))
                number(readers, &bytes)
            }
        }
        if let m = s.lastMessage {
            bytes.append(9); number(m.id, &bytes)
            bytes.append(9); number(m.seq, &bytes)
            bytes.append(9); number(m.senderId, &bytes)
            bytes.append(9)
            escape(m.localId, into: &bytes)
            bytes.append(9)
            number(m.sentAt.milliseconds, &bytes)
            bytes.append(9)
            escape(m.text, into: &bytes)
        }
        bytes.append(10)
    }

    static func parse(_ line: ArraySlice<UInt8>) -> ConversationSummary? {
        let f = line.split(separator: 9, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard f.count == 9 || f.count == 15, let id = Int64(f[0]), let kind = ConversationKind(rawValue: f[1]),
              let lastSeq = Int64(f[4]), let created = Int64(f[5]), let updated = Int64(f[6]), let unread = Int(f[7])
        else { return nil }
        var message: Message?
        if f.count == 15 {
            guard let mid = Int64(f[9]), let seq = Int64(f[10]), let sender = Int64(f[11]), let sent = Int64(f[13]) else { return nil }
            message = Message(id: mid, conversationId: id, seq: seq, senderId: sender, localId: unescape(f[12]), text: unescape(f[14]),
                              sentAt: Timestamp(milliseconds: sent))
        }
        let name = unescape(f[2])
        let read = f[8].split(separator: "/").map { Int($0) }
        return ConversationSummary(
            id: id, kind: kind, name: name.isEmpty ? nil : name, memberIds: f[3].split(separator: ",").compactMap { Int64($0) },
            lastSeq: lastSeq, lastMessage: message, createdAt: Timestamp(milliseconds: created),
            updatedAt: Timestamp(milliseconds: updated), unreadCount: unread, lastMessageReadBy: read.first ?? nil,
            lastMessageReaders: read.count == 2 ? read[1] : nil)
    }

    // Byte by byte, not Character by Character: "\r\n" is one Character in Swift, and a
    // backslash or tab followed by a combining mark is one too, so they slipped through.
    static func escape(_ s: String, into bytes: inout [UInt8]) {
        for c in s.utf8 {
            switch c {
            case 92: bytes.append(92); bytes.append(92)
            case 9: bytes.append(92); bytes.append(UInt8(ascii: "t"))
            case 10: bytes.append(92); bytes.append(UInt8(ascii: "n"))
            case 13: bytes.append(92); bytes.append(UInt8(ascii: "r"))
            default: bytes.append(c)
            }
        }
    }

    static func unescape(_ s: String) -> String {
        guard s.utf8.contains(92) else { return s }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var escaped = false
        for c in s.utf8 {
            if escaped {
                switch c {
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "r"): out.append(13)
                default: out.append(c)
                }
                escaped = false
            } else if c == 92 {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: People

    public func people() -> [Int64: User] {
        guard let bytes = try? FileSystem.readFile(peoplePath),
              let list = try? JSONDecoder().decode([User].self, from: Data(bytes))
        else { return [:] }
        return Dictionary(list.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
    }

    public func savePeople(_ users: [User]) throws(StoreError) {
        var all = people()
        for u in users { all[u.id] = u }
        try write(all.values.sorted { $0.id < $1.id }, to: peoplePath)
    }

    // MARK: Details

    public func details() -> [Conversation] {
        guard let bytes = try? FileSystem.readFile(detailsPath),
              let list = try? JSONDecoder().decode([Conversation].self, from: Data(bytes))
        else { return [] }
        return list
    }

    public func conversation(_ id: Int64) -> Conversation? { details().first { $0.id == id } }

    /// Keeps the full details, and the list line and people they imply.
    public func save(_ conversations: [Conversation], viewer: Int64) throws(StoreError) {
        guard !conversations.isEmpty else { return }
        var list = details()
        for c in conversations {
            list.removeAll { $0.id == c.id }
            list.append(c)
        }
        try write(list, to: detailsPath)
        try savePeople(conversations.flatMap(\.members))
        try upsert(conversations.map { $0.summary(viewer: viewer) })
    }

    func saveDetails(_ conversations: [Conversation]) throws(StoreError) { try write(conversations, to: detailsPath) }

    private func write<T: Encodable>(_ value: T, to path: String) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let bytes = try? encoder.encode(value) else { return }
        try FileSystem.writeAtomically(path, Array(bytes), durable: false)
    }
}

extension Conversation {
    /// The list's view of this conversation, for `viewer`.
    public func summary(viewer: Int64) -> ConversationSummary {
        var readBy: Int?
        var readers: Int?
        if let m = lastMessage, m.senderId == viewer {
            readBy = (receipts ?? []).filter { $0.userId != viewer && $0.readSeq >= m.seq }.count
            // The server leaves hooks' bots out of receipts: who has them is who reads.
            readers = receipts.map { $0.filter { $0.userId != viewer }.count }
        }
        return ConversationSummary(
            id: id, kind: kind, name: name, memberIds: members.map(\.id), lastSeq: lastSeq, lastMessage: lastMessage,
            createdAt: createdAt, updatedAt: updatedAt, unreadCount: unreadCount ?? 0, lastMessageReadBy: readBy,
            lastMessageReaders: readers)
    }
}
