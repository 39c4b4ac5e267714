import NexusCore

enum StatusCommand {
    static let spec = CommandSpec(
        name: "status", summary: "Show who has received and read a message, and when",
        usage: ["<message | message id | localId>"],
        details: """
            The message is named as everywhere else, CONVERSATION/SEQ (12/345, as `send`, `tail` and
            `history` print it); a number alone is a message id (the "id" in --json output); anything
            else is the localId that `send` printed for one of your messages. Lists every other member with the times the
            message reached them and they read it, and sums it up: Sent, Delivered, Read, or
            "Read by 2/4" in a group.
            """,
        arguments: 1...1,
        requirements: [.session],
        jsonFields: ["message", "members", "status", "statusText"],
        examples: [("nexusctl status 12/345", "has everyone read my message?")],
        run: run)

    static func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let target = context.arguments[0]
        let status = try context.call { api throws(APIError) in
            if let id = Int64(target) { return try api.status(messageId: id) }
            if let ref = MessageReference(target) {
                let page = try api.messages(conversationId: ref.conversationId, before: .seq(ref.seq.saturatingAdd(1)), limit: 1)
                guard let message = page.messages.first(where: { $0.seq == ref.seq }) else {
                    throw .server(status: 404, code: "not_found", message: "no message \(ref) (conversation \(ref.conversationId) has no seq \(ref.seq))", retryAfter: nil)
                }
                return try api.status(messageId: message.id)
            }
            return try api.status(localId: target)
        }
        let total = status.members.count
        let read = status.members.filter { $0.readAt != nil }.count
        let delivered = status.members.filter { $0.deliveredAt != nil }.count
        // More than one other member means a group.
        let (word, text): (String, String)
        if total > 1 && read > 0 {
            (word, text) = ("read", "Read by \(read)/\(total)")
        } else if read == total && total > 0 {
            (word, text) = ("read", "Read")
        } else if delivered == total && total > 0 {
            (word, text) = ("delivered", "Delivered")
        } else {
            (word, text) = ("sent", "Sent")
        }
        if context.output.json {
            context.output.document(StatusView(message: status.message, members: status.members, status: word, statusText: text))
            return .ok
        }
        context.output.line("\(text): \(preview(status.message.text, limit: 60))")
        context.output.table(
            status.members.map { m in
                ["\(m.user.shownName)", "\(m.user.email)", "\(m.deliveredAt.map { LocalTime.short($0) } ?? "-")", "\(m.readAt.map { LocalTime.short($0) } ?? "-")"]
            },
            header: ["MEMBER", "EMAIL", "DELIVERED", "READ"])
        return .ok
    }

    struct StatusView: Encodable {
        var message: Message
        var members: [MessageStatus.Member]
        var status: String
        var statusText: String
    }
}
