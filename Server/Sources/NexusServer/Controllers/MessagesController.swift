import Hummingbird
import NexusCore

/// Sending into a conversation and reading its messages.
struct MessagesController {
    let messages: any MessageStore
    let services: AppServices
    /// The answer to a send written by hand (JSONWriter); false only for `--bench-baseline`.
    var handJSON = true

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("conversations/:id/messages", use: send)
        group.get("conversations/:id/messages", use: list)
        group.post("messages/batch", use: batch)
    }

    @Sendable func send(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller
        let me = caller.user
        let id = try context.idParameter()
        // The store checks that the sender is a member as it stores the message. A token
        // that may not send here is told so only once the caller is known to be a member
        // (this throws 404 or 403): a non-member's 404 stays the same for every token.
        if !caller.access.allows(.send, conversation: id) { _ = try await services.members(of: id, caller: caller, for: .send) }
        let body = try await request.decodeJSON(SendRequest.self, context: context, reading: SendRequest.read(json:))
        try Self.validate(body)
        let attachments = body.attachments ?? []
        try await AttachmentsController.check(attachments, sender: me.id, store: services.stores.attachments)
        let outcomes = try await messages.send(
            [NewMessage(
                conversationId: id, senderId: me.id, localId: body.localId, text: body.text, replyTo: body.replyTo,
                attachments: attachments)])
        switch outcomes[0] {
        case .created(let message):
            services.notifier.notify(users: try await services.membership.wakeMembers(of: id, store: services.stores.conversations))
            services.hooks.committed(in: [id])
            return try sendResponse(SendResponse(message: message, duplicate: false), status: .created)
        case .duplicate(let message) where message.conversationId != id:
            throw Self.localIdReused
        case .duplicate(let message):
            return try sendResponse(SendResponse(message: message, duplicate: true))
        case .notMember:
            throw APIError.conversationNotFound
        }
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.idParameter()
        _ = try await services.members(of: id, caller: try context.caller, for: .read)
        var before = try request.queryInt("before", in: 0...Int64.max)
        let beforeId = try request.queryInt("beforeId", in: RequestNumbers.id)
        let beforeTime = try request.uri.queryParameters["beforeTime"].map { text in
            guard let time = Timestamp(iso8601: String(text)) else {
                throw APIError.badRequest("beforeTime must be an ISO-8601 time such as 2026-11-22T12:00:00Z.", code: "invalid_query")
            }
            return time
        }
        guard [before != nil, beforeId != nil, beforeTime != nil].filter({ $0 }).count <= 1 else {
            throw APIError.badRequest("Give at most one of before, beforeId and beforeTime.", code: "invalid_query")
        }
        if let beforeId {
            guard let seq = try await messages.seq(ofMessage: beforeId, conversationId: id) else {
                throw APIError(status: .notFound, code: "message_not_found", message: "No message \(beforeId) in this conversation.")
            }
            before = seq
        }
        if let beforeTime {
            before = try await messages.firstSeq(sentAtOrAfter: beforeTime, conversationId: id)
        }
        let limit = try request.queryInt("limit", in: RequestNumbers.pageSize) ?? Int64(Limits.defaultPageSize)
        let page = try await messages.messages(conversationId: id, before: before, limit: Int(limit))
        return try jsonResponse(page)
    }

    /// Many messages at once, for outbox flushes: one group commit, one answer per item in
    /// the order of the request. Items are judged one by one; a bad item is rejected with
    /// the error a single send would have had, and the rest still go in.
    @Sendable func batch(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller(.send)
        let me = caller.user
        let body = try await request.decodeJSON(BatchSendRequest.self, context: context, limit: Limits.maxBatchBytes)
        guard body.messages.count <= Limits.maxBatchItems else {
            throw APIError(
                status: .contentTooLarge, code: "too_many_items",
                message: "A batch takes at most \(Limits.maxBatchItems) messages; split it.")
        }
        var results = [BatchResult?](repeating: nil, count: body.messages.count)
        var accepted: [(index: Int, message: NewMessage)] = []
        var members: [Int64: [Int64]] = [:]
        for (index, item) in body.messages.enumerated() {
            do {
                if members[item.conversationId] == nil {
                    members[item.conversationId] = try await services.members(of: item.conversationId, viewer: me.id)
                }
                // Each item on its own: one outside the token's conversations is refused alone.
                try caller.access.check(.send, conversation: item.conversationId)
                try Self.validate(SendRequest(localId: item.localId, text: item.text, replyTo: item.replyTo, attachments: item.attachments))
                let attachments = item.attachments ?? []
                try await AttachmentsController.check(attachments, sender: me.id, store: services.stores.attachments)
                accepted.append((index, NewMessage(
                    conversationId: item.conversationId, senderId: me.id, localId: item.localId, text: item.text, replyTo: item.replyTo,
                    attachments: attachments)))
            } catch let error as APIError {
                results[index] = Self.rejected(item.localId, error)
            }
        }
        let outcomes = try await messages.send(accepted.map(\.message))
        var touched = Set<Int64>()
        for ((index, message), outcome) in zip(accepted, outcomes) {
            switch outcome {
            case .created(let stored):
                touched.insert(stored.conversationId)
                results[index] = BatchResult(localId: message.localId, status: .created, message: stored)
            case .duplicate(let stored) where stored.conversationId != message.conversationId:
                results[index] = Self.rejected(message.localId, Self.localIdReused)
            case .duplicate(let stored):
                results[index] = BatchResult(localId: message.localId, status: .duplicate, message: stored)
            case .notMember:  // removed since the check above
                results[index] = Self.rejected(message.localId, APIError.conversationNotFound)
            }
        }
        services.notifier.notify(users: Set(touched.flatMap { members[$0] ?? [] }))
        services.hooks.committed(in: touched)
        return try jsonResponse(BatchSendResponse(results: results.map { $0! }))
    }

    private func sendResponse(_ answer: SendResponse, status: HTTPResponse.Status = .ok) throws -> Response {
        handJSON ? jsonResponse(bytes: answer.jsonBytes(), status: status) : try jsonResponse(answer, status: status)
    }

    static let localIdReused = APIError(
        status: .conflict, code: "local_id_reused",
        message: "This localId was already used for a message in another conversation; send with a new one.")

    private static func rejected(_ localId: String, _ error: APIError) -> BatchResult {
        BatchResult(
            localId: localId, status: .rejected, error: .init(code: error.code, message: error.message),
            httpStatus: error.status.code)
    }

    static func validate(_ body: SendRequest) throws {
        try validate(localId: body.localId)
        if let replyTo = body.replyTo, replyTo < 1 {
            throw APIError.badRequest("replyTo must be the seq (1 or more) of a message in this conversation.", code: "invalid_reply_to")
        }
        try IdentityInput.rejectNUL(body.text, field: "message text", code: "invalid_text")
        // A caption may be empty: the files are the message.
        let captioned = !(body.attachments ?? []).isEmpty && body.text.allSatisfy(\.isWhitespace)
        if !captioned { try validate(text: body.text) }
    }

    static func validate(localId: String) throws {
        let localIdBytes = localId.utf8.count
        if localIdBytes == 0 || localIdBytes > Limits.maxLocalIdBytes
            || localId.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        {
            throw APIError.badRequest(
                "localId must be 1 to \(Limits.maxLocalIdBytes) printable characters without spaces.", code: "invalid_local_id")
        }
    }

    static func validate(text: String) throws {
        if let problem = Limits.problem(withText: text) {
            let tooLarge = text.utf8.count > Limits.maxTextBytes
            throw APIError(
                status: tooLarge ? .contentTooLarge : .badRequest,
                code: tooLarge ? "message_too_large" : "empty_message",
                message: problem.prefix(1).uppercased() + problem.dropFirst() + ".")
        }
    }
}
