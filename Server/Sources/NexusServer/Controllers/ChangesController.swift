import Hummingbird
import NexusCore

/// Changes to sent messages: edits and deletes by their sender, reactions by any member.
/// One endpoint takes a list, as outbox flushes send them: applied in order, each once per
/// localId, one answer per item. A non-member's item is refused with the same 404 as an
/// unknown conversation, so it learns nothing.
struct ChangesController {
    let changes: any MessageChangeStore
    let services: AppServices

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("messages/changes", use: apply)
    }

    @Sendable func apply(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller(.send)
        let me = caller.user
        let body = try await request.decodeJSON(ChangesRequest.self, context: context, limit: Limits.maxBatchBytes)
        guard body.changes.count <= Limits.maxBatchItems else {
            throw APIError(
                status: .contentTooLarge, code: "too_many_items", message: "A batch takes at most \(Limits.maxBatchItems) changes; split it.")
        }
        var results = [BatchResult?](repeating: nil, count: body.changes.count)
        var accepted: [(index: Int, change: NewChange)] = []
        var members: [Int64: [Int64]] = [:]
        for (index, item) in body.changes.enumerated() {
            do {
                if members[item.conversationId] == nil {
                    members[item.conversationId] = try await services.members(of: item.conversationId, viewer: me.id)
                }
                // Each item on its own: one outside the token's conversations is refused alone.
                try caller.access.check(.send, conversation: item.conversationId)
                try Self.validate(item)
                accepted.append((index, NewChange(userId: me.id, item: item)))
            } catch let error as APIError {
                results[index] = Self.rejected(item.localId, error)
            }
        }
        let outcomes = try await changes.apply(accepted.map(\.change), limits: services.limits)
        var touched = Set<Int64>()
        var dropped = Set<String>()
        for ((index, change), outcome) in zip(accepted, outcomes) {
            let localId = change.item.localId
            switch outcome {
            case .created(let m, let attachments):
                touched.insert(m.conversationId)
                dropped.formUnion(attachments.map(\.sha256))
                results[index] = BatchResult(localId: localId, status: .created, message: m)
            case .duplicate(let m):
                results[index] = BatchResult(localId: localId, status: .duplicate, message: m)
            case .rejected(let error):
                results[index] = Self.rejected(localId, error)
            }
        }
        services.notifier.notify(users: Set(touched.flatMap { members[$0] ?? [] }))
        // After the commit: a blob that fails to go here is unreferenced, so the cleanup
        // service (UploadCleanupService) takes it later.
        for sha256 in dropped.sorted() {
            do {
                _ = try await services.stores.attachments.release(user: me.id, sha256: sha256)
            } catch {
                context.logger.warning("could not drop the blob of a deleted message; the upload cleanup will", metadata: ["sha256": .string(sha256), "error": "\(error)"])
            }
        }
        return try jsonResponse(ChangesResponse(results: results.map { $0! }))
    }

    static func validate(_ item: ChangeItem) throws {
        try MessagesController.validate(localId: item.localId)
        guard item.seq >= 1 else { throw APIError.badRequest("seq must be 1 or more.", code: "invalid_seq") }
        switch item.kind {
        case .edit:
            guard let text = item.text else { throw APIError.badRequest("An edit needs the new text.", code: "empty_message") }
            try IdentityInput.rejectNUL(text, field: "message text", code: "invalid_text")
            try MessagesController.validate(text: text)
        case .delete:
            break
        case .react, .unreact:
            if let problem = Limits.problem(withReaction: item.emoji ?? "") {
                throw APIError.badRequest(problem.prefix(1).uppercased() + problem.dropFirst() + ".", code: "invalid_reaction")
            }
        }
    }

    private static func rejected(_ localId: String, _ error: APIError) -> BatchResult {
        BatchResult(localId: localId, status: .rejected, error: .init(code: error.code, message: error.message), httpStatus: error.status.code)
    }
}
