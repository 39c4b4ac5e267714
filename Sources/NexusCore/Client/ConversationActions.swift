/// The part of nexusd's API that `ConversationActions` uses; core tests put a fake behind it.
public protocol ConversationActionsAPI: AnyObject {
    func openDirect(with email: String) throws(APIError) -> ConversationResponse
    func createGroup(with emails: [String], name: String?) throws(APIError) -> ConversationResponse
    func conversation(_ id: Int64) throws(APIError) -> Conversation
    func receipts(conversationId: Int64, delivered: Int64?, read: Int64?) throws(APIError) -> Conversation
}

extension NexusAPI: ConversationActionsAPI {}

/// What `new`, `read` and a `<conversation>` given as an email do on the server: each
/// keeps the conversation it gets back in the cache (members, receipts, and a direct
/// conversation by the other person's email, for lookups without the network).
public struct ConversationActions {
    public let profile: Profile
    public let api: any ConversationActionsAPI
    public let me: Int64?

    public init(profile: Profile, api: any ConversationActionsAPI, me: Int64?) {
        self.profile = profile
        self.api = api
        self.me = me
    }

    /// Opens (or finds) the direct conversation with one person, or creates a group.
    public func open(_ emails: [String], name: String?) throws(APIError) -> Fetched<ConversationResponse> {
        let response = emails.count == 1 ? try api.openDirect(with: emails[0]) : try api.createGroup(with: emails, name: name)
        return Fetched(value: response, source: .server, cacheProblems: remember(response.conversation))
    }

    /// The id of the direct conversation with `email`, opened (or found) on the server and
    /// noted by email, so the next lookup needs no network.
    public func directId(with email: String) throws(APIError) -> Int64 {
        let conversation = try api.openDirect(with: email).conversation
        if let me { Reading.rememberDirect(conversation, profile: profile, me: me) }
        return conversation.id
    }

    /// Moves my read mark to the conversation's newest message.
    public func markRead(_ id: Int64) throws(APIError) -> Fetched<Conversation> {
        let conversation = try api.receipts(conversationId: id, delivered: nil, read: try api.conversation(id).lastSeq)
        return Fetched(value: conversation, source: .server, cacheProblems: remember(conversation))
    }

    private func remember(_ conversation: Conversation) -> [CacheProblem] {
        do {
            try Reading.remember(conversations: [conversation], profile: profile, me: me)
            return []
        } catch {
            return [.write(error)]
        }
    }
}
