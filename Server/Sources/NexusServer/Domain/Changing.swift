import Logging
import NexusWire

/// Changes to sent messages, as outbox flushes send them: edits and deletes by their
/// sender, reactions by any member. Applied in order, each once per localId.
struct Changing {
    let services: AppServices

    /// One result per item, in order (BatchAdmission).
    func apply(_ items: [ChangeItem], caller: Caller, logger: Logger) async throws -> [BatchResult] {
        let me = caller.user
        var admission = try await BatchAdmission(items, caller: caller, services: services) { item in
            try MessageRules.validate(item)
            return NewChange(userId: me.id, item: item)
        }
        let accepted = admission.accepted
        let outcomes = try await services.stores.changes.apply(accepted.map(\.value), limits: services.limits)
        var changes: [Commit.Change] = []
        var dropped = Set<String>()
        for ((index, change), outcome) in zip(accepted, outcomes) {
            let localId = change.item.localId
            switch outcome {
            case .created(let m, let attachments):
                changes.append(Commit.Change(conversationId: m.conversationId, kind: Self.kind(change.item.kind), seq: m.seq))
                dropped.formUnion(attachments.map(\.sha256))
                admission.results[index] = BatchResult(localId: localId, status: .created, message: m)
            case .duplicate(let m):
                admission.results[index] = BatchResult(localId: localId, status: .duplicate, message: m)
            case .rejected(let error):
                admission.results[index] = MessageRules.rejected(localId, error)
            }
        }
        if !changes.isEmpty {
            let reactions = zip(accepted, outcomes).compactMap { accepted, outcome -> (conversationId: Int64, userId: Int64, seq: Int64)? in
                guard accepted.value.item.kind == .react, case .created(let m, _) = outcome else { return nil }
                return (m.conversationId, me.id, m.seq)
            }
            changes += await Receipting.answered(reactions, in: services)
            let wake = Set(changes.map(\.conversationId)).flatMap { admission.members[$0] ?? [] }
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
        return admission.results.map { $0! }
    }

    static func kind(_ kind: MessageChange.Kind) -> Commit.Kind {
        switch kind {
        case .edit: .edit
        case .delete: .delete
        case .react, .unreact: .reaction
        }
    }
}
