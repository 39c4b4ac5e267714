/// The part of nexusd's API that `ConversationActions` uses; core tests put a fake behind it.
public protocol ConversationActionsAPI: AnyObject {
    func openDirect(with email: String) throws(APIError) -> ConversationResponse
    func createGroup(with emails: [String], name: String?) throws(APIError) -> ConversationResponse
    func conversation(_ id: Int64) throws(APIError) -> Conversation
    func conversations() throws(APIError) -> ConversationsResponse
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

    /// Opens (or finds) the direct conversation with one person, or creates a group. A
    /// group of exactly these people (with this name, when one is given) is reused unless
    /// `separate`, so a script that runs `new` each time does not make a group each time.
    public func open(_ emails: [String], name: String?, separate: Bool = false) throws(APIError) -> Fetched<ConversationResponse> {
        let response: ConversationResponse
        if emails.count == 1 {
            response = try api.openDirect(with: emails[0])
        } else if !separate, let existing = try existingGroup(of: emails, name: name) {
            response = ConversationResponse(conversation: try api.conversation(existing), created: false)
        } else {
            response = try api.createGroup(with: emails, name: name)
        }
        return Fetched(value: response, source: .server, cacheProblems: remember(response.conversation))
    }

    /// The newest group whose members are exactly me and `emails` (and named `name`, when
    /// one is given: nexusd names every group, after its first members by default).
    private func existingGroup(of emails: [String], name: String?) throws(APIError) -> Int64? {
        guard let me else { return nil }
        let list = try api.conversations()
        let ids = Dictionary(list.users.map { ($0.email.lowercased(), $0.id) }, uniquingKeysWith: { a, _ in a })
        var wanted: Set<Int64> = [me]
        for email in emails {
            guard let id = ids[email.lowercased()] else { return nil }
            wanted.insert(id)
        }
        let wantedName = name?.trimmingSpaces()
        return list.conversations.first { c in
            c.kind == .group && Set(c.memberIds) == wanted && (wantedName == nil || c.name == wantedName)
        }?.id
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
