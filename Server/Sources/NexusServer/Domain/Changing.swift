import Logging
import NexusCore

/// Changes to sent messages, as outbox flushes send them: edits and deletes by their
/// sender, reactions by any member. Applied in order, each once per localId.
struct Changing {
    let services: AppServices

    /// One result per item, in order. A non-member's item is refused with the same 404 as
    /// an unknown conversation, so it learns nothing.
    func apply(_ items: [ChangeItem], caller: Caller, logger: Logger) async throws -> [BatchResult] {
        let me = caller.user
        var results = [BatchResult?](repeating: nil, count: items.count)
        var accepted: [(index: Int, change: NewChange)] = []
        var members: [Int64: [Int64]] = [:]
        for (index, item) in items.enumerated() {
            do {
                if members[item.conversationId] == nil {
                    members[item.conversationId] = try await services.members(of: item.conversationId, viewer: me.id)
                }
                // Each item on its own: one outside the token's conversations is refused alone.
                try caller.access.check(.send, conversation: item.conversationId)
                try MessageRules.validate(item)
                accepted.append((index, NewChange(userId: me.id, item: item)))
            } catch let error as APIError {
                results[index] = MessageRules.rejected(item.localId, error)
            }
        }
        let outcomes = try await services.stores.changes.apply(accepted.map(\.change), limits: services.limits)
        var changes: [Commit.Change] = []
        var dropped = Set<String>()
        for ((index, change), outcome) in zip(accepted, outcomes) {
            let localId = change.item.localId
            switch outcome {
            case .created(let m, let attachments):
                changes.append(Commit.Change(conversationId: m.conversationId, kind: Self.kind(change.item.kind), seq: m.seq))
                dropped.formUnion(attachments.map(\.sha256))
                results[index] = BatchResult(localId: localId, status: .created, message: m)
            case .duplicate(let m):
                results[index] = BatchResult(localId: localId, status: .duplicate, message: m)
            case .rejected(let error):
                results[index] = MessageRules.rejected(localId, error)
            }
        }
        if !changes.isEmpty {
            let reactions = zip(accepted, outcomes).compactMap { accepted, outcome -> (conversationId: Int64, userId: Int64, seq: Int64)? in
                guard accepted.change.item.kind == .react, case .created(let m, _) = outcome else { return nil }
                return (m.conversationId, me.id, m.seq)
            }
            changes += await Receipting.answered(reactions, in: services)
            let wake = Set(changes.map(\.conversationId)).flatMap { members[$0] ?? [] }
            await services.events.publish(.committed(Commit(changes: changes, wake: wake)))
        }
        // After the commit: a blob that fails to go here is unreferenced, so the cleanup
        // service (UploadCleanupService) takes it later.
        for sha256 in dropped.sorted() {
            do {
                _ = try await services.stores.attachments.release(user: me.id, sha256: sha256)
            } catch {
                logger.warning(
                    "could not drop the blob of a deleted message; the upload cleanup will",
                    metadata: ["sha256": .string(sha256), "error": "\(error)"])
            }
        }
        return results.map { $0! }
    }

    static func kind(_ kind: MessageChange.Kind) -> Commit.Kind {
        switch kind {
        case .edit: .edit
        case .delete: .delete
        case .react, .unreact: .reaction
        }
    }
}
