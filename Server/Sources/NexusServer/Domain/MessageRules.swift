import NexusWire

/// What a message, a change or a membership change must be before it is stored; the same
/// for every way in (a send, a batch, an incoming hook, an outbox's changes).
enum MessageRules {
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

    static func validate(_ item: ChangeItem) throws {
        try validate(localId: item.localId)
        guard item.seq >= 1 else { throw APIError.badRequest("seq must be 1 or more.", code: "invalid_seq") }
        switch item.kind {
        case .edit:
            guard let text = item.text else { throw APIError.badRequest("An edit needs the new text.", code: "empty_message") }
            try IdentityInput.rejectNUL(text, field: "message text", code: "invalid_text")
            try validate(text: text)
        case .delete:
            break
        case .react, .unreact:
            if let problem = Limits.problem(withReaction: item.emoji ?? "") {
                throw APIError.badRequest(problem.prefix(1).uppercased() + problem.dropFirst() + ".", code: "invalid_reaction")
            }
        }
    }

    /// A message's attachments must each be one of the sender's complete uploads, of the size given.
    static func check(_ attachments: [Attachment], sender: Int64, store: any AttachmentStore) async throws {
        guard attachments.count <= Limits.maxAttachments else {
            throw APIError.badRequest("A message takes at most \(Limits.maxAttachments) attachments.", code: "too_many_attachments")
        }
        for a in attachments {
            if let problem = Limits.problem(withAttachment: a) {
                throw APIError.badRequest(problem.prefix(1).uppercased() + problem.dropFirst() + ".", code: "invalid_attachment")
            }
            guard let upload = try await store.upload(user: sender, sha256: a.sha256), upload.complete, upload.size == a.size else {
                throw APIError(
                    status: .conflict, code: "attachment_not_uploaded",
                    message: "The attachment \(a.sha256) is not uploaded in full with size \(a.size); upload it first (/v1/uploads).")
            }
        }
    }

    static let localIdReused = APIError(
        status: .conflict, code: "local_id_reused",
        message: "This localId was already used for a message in another conversation; send with a new one.")

    /// One item of a batch refused, with the error it would have had alone.
    static func rejected(_ localId: String, _ error: APIError) -> BatchResult {
        BatchResult(localId: localId, status: .rejected, error: .init(code: error.code, message: error.message), httpStatus: error.status.code)
    }
}
