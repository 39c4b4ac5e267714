import NexusCore

/// Delivers one outbox entry and records the outcome in the outbox. Shared by `send`
/// and `queue flush`, so both classify failures the same way.
enum Delivery {
    enum Outcome {
        case sent(Message)
        /// Still queued: the failure may pass (network, 429, 5xx).
        case queued(reason: String)
        case failed(CLIError)
    }

    static func deliver(_ entry: OutboxEntry, api: NexusAPI, context: CommandContext) throws(CLIError) -> Outcome {
        let outbox = Outbox(profile: context.profile)
        let result: Result<Message, APIError>
        do throws(APIError) {
            var conversationId = entry.conversationId
            if conversationId == nil, let to = entry.to {
                let response = try api.openDirect(with: to)
                Conversations.remember(response.conversation, context)
                conversationId = response.conversation.id
            }
            guard let conversationId else { throw APIError.server(status: 400, code: "no_recipient", message: "The queued message has no recipient.", retryAfter: nil) }
            result = .success(try api.send(conversationId: conversationId, localId: entry.localId, text: entry.text).message)
        } catch {
            result = .failure(error)
        }
        do {
            switch result {
            case .success(let message):
                try outbox.markSent(localId: entry.localId, message: message)
                return .sent(message)
            case .failure(let error) where error.isTransient:
                return .queued(reason: "Message failed to send. Check your connection. (\(error))")
            case .failure(let error):
                let failure: CLIError
                switch error {
                case .server(401, _, _, _), .server(403, _, _, _):
                    failure = CLIError(.auth, "Message failed to send. Please try signing in again.", hint: "run `nexusctl login <email>`.")
                case .server(404, _, let message, _):
                    failure = CLIError(.notFound, "Message failed to send. \(message)", hint: Conversations.argumentHelp)
                default:
                    failure = CLIError(.failure, "Message failed to send. Please try again. (\(error))")
                }
                try outbox.markFailed(localId: entry.localId, error: failure.message)
                return .failed(failure)
            }
        } catch {
            throw CLIError(error)
        }
    }
}
