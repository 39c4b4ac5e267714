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
/// - `conversations.json`: full details (members, receipts) of conversations looked at;
/// - `mutes.json`: the account's mutes, as last heard.
public struct ConversationCache: Sendable {
    let directory: String

    public init(profile: Profile) { self.directory = profile.directory }

    var listPath: String { directory + "/convos.tsv" }
    var peoplePath: String { directory + "/people.json" }
    var detailsPath: String { directory + "/conversations.json" }
    var mutesPath: String { directory + "/mutes.json" }

    // MARK: The list

    public func list() -> [ConversationSummary] {
        guard let bytes = try? FileSystem.readFile(listPath) else { return [] }
        return bytes.withUnsafeBufferPointer { p in
            var out: [ConversationSummary] = []
            // Lines are about a hundred bytes: one allocation for most lists.
            out.reserveCapacity(min(p.count / 64 + 1, 1 << 17))
            var start = 0
            while start < p.count {
                var end = start
                while end < p.count && p[end] != 10 { end += 1 }
                if end > start, let s = Self.parse(UnsafeBufferPointer(rebasing: p[start..<end])) { out.append(s) }
                start = end + 1
            }
            return out
        }
    }

    public func saveList(_ summaries: [ConversationSummary]) throws(StoreError) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(summaries.count * 200)
        for s in summaries { Self.format(s, into: &bytes) }
        try FileSystem.writeAtomically(listPath, bytes, durable: false)
    }

    /// Puts these conversations in the list, replacing their old lines.
    func upsert(_ summaries: [ConversationSummary]) throws(StoreError) {
        let ids = Set(summaries.map(\.id))
        try saveList((list().filter { !ids.contains($0.id) } + summaries).sorted { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) })
    }

    // MARK: People

    public func people() -> [Int64: User] {
        guard let bytes = try? FileSystem.readFile(peoplePath),
              let list = try? JSONDecoder().decode([User].self, from: Data(bytes))
        else { return [:] }
        return Dictionary(list.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
    }

    func savePeople(_ users: [User]) throws(StoreError) {
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

    /// The account's mutes as last heard from the server (a list or a feed that asked).
    public func mutes() -> [Mute] {
        guard let bytes = try? FileSystem.readFile(mutesPath) else { return [] }
        return (try? JSONDecoder().decode([Mute].self, from: Data(bytes))) ?? []
    }

    public func saveMutes(_ mutes: [Mute]) throws(StoreError) {
        if mutes.isEmpty, !FileSystem.exists(mutesPath) { return }
        try write(mutes, to: mutesPath)
    }

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
