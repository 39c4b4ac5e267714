import NexusWire

/// An item of an outbox flush: a message (BatchItem) or a change (ChangeItem).
protocol BatchEntry {
    var conversationId: Int64 { get }
    var localId: String { get }
}

extension BatchItem: BatchEntry {}
extension ChangeItem: BatchEntry {}

/// A flush's items judged one by one before anything is stored: a refused item has its
/// result already, with the error it would have had alone; the rest wait for the store.
struct BatchAdmission<Accepted> {
    /// One per item, in order; nil for an accepted item until the store answers.
    var results: [BatchResult?]
    var accepted: [(index: Int, value: Accepted)] = []
    /// The members of each conversation named, read once: whom the commit wakes.
    var members: [Int64: [Int64]] = [:]

    /// Each item's conversation must be the caller's (a non-member's item gets the 404 of
    /// an unknown conversation, so it learns nothing) and the token's to send to; then
    /// `admit` makes it what the store takes, or throws the item's own error.
    init<Item: BatchEntry>(
        _ items: [Item], caller: Caller, services: AppServices, admit: (Item) async throws -> Accepted
    ) async throws {
        results = [BatchResult?](repeating: nil, count: items.count)
        for (index, item) in items.enumerated() {
            do {
                if members[item.conversationId] == nil {
                    members[item.conversationId] = try await services.members(of: item.conversationId, viewer: caller.user.id)
                }
                // Each item on its own: one outside the token's conversations is refused alone.
                try caller.access.check(.send, conversation: item.conversationId)
                accepted.append((index, try await admit(item)))
            } catch let error as APIError {
                results[index] = MessageRules.rejected(item.localId, error)
            }
        }
    }
}
