#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The conversations as last listed by the server, with their members, so names and
/// `convos` can be shown offline.
public struct ConversationCache: Sendable {
    public let path: String

    public init(profile: Profile) {
        self.path = profile.directory + "/conversations.json"
    }

    public func load() -> [Conversation] {
        guard let bytes = try? FileSystem.readFile(path),
              let list = try? JSONDecoder().decode([Conversation].self, from: Data(bytes))
        else { return [] }
        return list
    }

    /// Replaces the whole list (after `convos`), or updates the given conversations in it.
    public func save(_ conversations: [Conversation], replacingAll: Bool) throws(StoreError) {
        var list = replacingAll ? [] : load()
        for c in conversations {
            if let i = list.firstIndex(where: { $0.id == c.id }) { list[i] = c } else { list.append(c) }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let bytes = try? encoder.encode(list) else { return }
        try FileSystem.writeAtomically(path, Array(bytes), durable: false)
    }
}
