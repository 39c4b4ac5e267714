/// The reads of `convos`, `history` and `tail`, offline-first (see `OfflineFirst`): each
/// keeps what the server answers in the profile's cache, and answers from that cache,
/// with the reason, when the server can't be reached.
public struct Reading {
    public let profile: Profile
    public let api: any ReadingAPI
    /// The viewer, who decides which member of a direct conversation is "the other".
    public let me: Int64?

    public init(profile: Profile, api: any ReadingAPI, me: Int64?) {
        self.profile = profile
        self.api = api
        self.me = me
    }

    /// Every conversation and the people in them.
    /// `keepingAside`: see `OfflineFirst.read(keepingAside:)`.
    public func conversations(keepingAside: Bool = false) throws(ReadError) -> Fetched<ConversationsResponse> {
        let profile = profile, api = api, me = me
        return try OfflineFirst(
            server: { () throws(APIError) in try api.conversations() },
            remember: { list throws(StoreError) in try Reading.remember(list: list, profile: profile, me: me) },
            fallback: { _ in
                let cache = ConversationCache(profile: profile)
                let mutes = cache.mutes()
                return ConversationsResponse(conversations: cache.list(), users: Array(cache.people().values), mutes: mutes.isEmpty ? nil : mutes)
            }
        ).read(keepingAside: keepingAside)
    }

    /// One conversation with its members and receipts; offline, as last seen.
    public func conversation(_ id: Int64) throws(ReadError) -> Fetched<Conversation> {
        let profile = profile, api = api, me = me
        return try OfflineFirst(
            server: { () throws(APIError) in try api.conversation(id) },
            remember: { c throws(StoreError) in try Reading.remember(conversations: [c], profile: profile, me: me) },
            fallback: { error throws(ReadError) in
                guard let cached = ConversationCache(profile: profile).conversation(id) else { throw .cacheCannotAnswer(error) }
                return cached
            }
        ).read()
    }

    /// Who is in the conversations being shown, and their receipts: what a printer of
    /// messages needs to name senders and say "Read by 2/4".
    public struct Members {
        /// The people to name.
        public var people: [User]
        /// The conversations whose receipts to follow, with their members.
        public var conversations: [Conversation]
    }

    /// The members of one conversation, or of all of them (`nil`): from the server, kept
    /// in the cache; offline, everyone and every conversation as last seen.
    public func members(of conversationId: Int64?) throws(ReadError) -> Fetched<Members> {
        let profile = profile, api = api, me = me
        let cache = ConversationCache(profile: profile)
        return try OfflineFirst(
            server: { () throws(APIError) -> (Members, ConversationsResponse?) in
                if let conversationId {
                    let c = try api.conversation(conversationId)
                    return (Members(people: c.members, conversations: [c]), nil)
                }
                let list = try api.conversations()
                return (Members(people: list.users, conversations: cache.details()), list)
            },
            remember: { fetched throws(StoreError) in
                if let list = fetched.1 {
                    try Reading.remember(list: list, profile: profile, me: me)
                } else {
                    try Reading.remember(conversations: fetched.0.conversations, profile: profile, me: me)
                }
            },
            fallback: { _ in
                let details = cache.details()
                let people = Array(cache.people().values) + details.flatMap(\.members)
                return (Members(people: people, conversations: details), nil)
            }
        ).read().map(\.0)
    }

    /// A page of a conversation's history, oldest first.
    public struct Page {
        public var messages: [Message]
        public var hasMore: Bool
        /// False when the cache answered offline with some messages of the page missing.
        public var complete = true

        /// The seq to page back from for the next older page; nil at the start.
        public var next: Int64? { hasMore ? messages.first?.seq : nil }
    }

    /// Pages back from `anchor`: one page, or with `all` every page to the start. Each is
    /// handed to `onPage` as soon as it is read, so a long history streams.
    public func history(
        _ conversationId: Int64, before anchor: NexusAPI.Anchor?, limit: Int, all: Bool, onPage: (Fetched<Page>) -> Void
    ) throws(ReadError) {
        var anchor = anchor
        while true {
            let page = try self.page(conversationId, before: anchor, limit: limit)
            onPage(page)
            guard all, let next = page.value.next else { return }
            anchor = .seq(next)
        }
    }

    /// Pages forward from just after `anchor` (nil: from the start), oldest first: one page,
    /// or with `all` every page to the newest, each handed to `onPage` as soon as it is read,
    /// so an export streams in constant memory. Seqs have no gaps (a deleted message keeps
    /// its seq), so the page after seq s is the page before s + limit + 1.
    public func historyForward(
        _ conversationId: Int64, after anchor: NexusAPI.Anchor?, limit: Int, all: Bool, onPage: (Fetched<Page>) -> Void
    ) throws(ReadError) {
        var after = try anchor.map { anchor throws(ReadError) in try seq(after: anchor, in: conversationId) } ?? 0
        while true {
            var fetched = try page(conversationId, before: .seq(after.saturatingAdd(Int64(limit) + 1)), limit: limit)
            // Near the newest end the server answers the newest page, which may reach back.
            fetched.value.messages.removeAll { $0.seq <= after }
            fetched.value.hasMore = fetched.value.messages.count == limit
            onPage(fetched)
            guard all, fetched.value.hasMore, let last = fetched.value.messages.last?.seq else { return }
            after = last
        }
    }

    /// The seq that `--after` an id or a time means, so that the page starts at that message,
    /// or at the first one sent at or after that time: the seq just before (0 at the start).
    /// Asks the server.
    func seq(after anchor: NexusAPI.Anchor, in conversationId: Int64) throws(ReadError) -> Int64 {
        switch anchor {
        case .seq(let seq): return seq
        case .messageId, .time:
            let before: MessagesPage
            do throws(APIError) {
                before = try api.messages(conversationId: conversationId, before: anchor, limit: 1)
            } catch {
                throw error.isNetwork ? .cacheCannotAnswer(error) : .api(error)
            }
            return before.messages.last?.seq ?? 0
        }
    }

    /// The `limit` messages before `anchor` (or the newest). A page below a seq is answered
    /// from the cache alone when the cache holds all of it; offline, the cache can only
    /// find pages by seq, so an anchor by id or time is `.cacheCannotAnswer`.
    public func page(_ conversationId: Int64, before anchor: NexusAPI.Anchor?, limit: Int) throws(ReadError) -> Fetched<Page> {
        let cache = MessageCache(profile: profile), api = api
        return try OfflineFirst(
            cached: { () throws(StoreError) -> Page? in
                // The newest page needs the server to say what is newest.
                guard case .seq(let seq) = anchor else { return nil }
                let cached = try cache.page(conversationId, before: seq, limit: limit)
                return cached.complete ? Page(messages: cached.messages, hasMore: cached.hasMore) : nil
            },
            server: { () throws(APIError) in
                let page = try api.messages(conversationId: conversationId, before: anchor, limit: limit)
                return Page(messages: page.messages, hasMore: page.hasMore)
            },
            // Upsert: the server's page may carry edits, tombstones or reactions the cache lacks.
            remember: { page throws(StoreError) in if !page.messages.isEmpty { try cache.upsert(page.messages) } },
            fallback: { error throws(ReadError) in
                let before: Int64?
                switch anchor {
                case .seq(let seq): before = seq
                case nil: before = nil
                case .messageId, .time: throw .cacheCannotAnswer(error)
                }
                let cached: MessageCache.Page
                do throws(StoreError) { cached = try cache.page(conversationId, before: before, limit: limit) } catch { throw .store(error) }
                return Page(messages: cached.messages, hasMore: cached.hasMore, complete: cached.complete || cached.messages.isEmpty)
            },
            // Removed or left: what the cache kept, by seq like offline; with nothing of this
            // conversation in the cache (an unknown id), the 404 stands.
            formerMember: { error throws(ReadError) in
                let before: Int64?
                switch anchor {
                case .seq(let seq): before = seq
                case nil: before = nil
                case .messageId, .time: throw .api(error)
                }
                let newest: MessageCache.Page, cached: MessageCache.Page
                do throws(StoreError) {
                    newest = try cache.page(conversationId, before: nil, limit: 1)
                    cached = try cache.page(conversationId, before: before, limit: limit)
                } catch {
                    throw .store(error)
                }
                guard !newest.messages.isEmpty else { throw .api(error) }
                return Page(messages: cached.messages, hasMore: cached.hasMore, complete: true)
            }
        ).read()
    }
}

extension Reading {
    /// Keeps the whole list as the server gave it, and the direct conversations by the
    /// other person's email, for lookups without the network.
    public static func remember(list: ConversationsResponse, profile: Profile, me: Int64?) throws(StoreError) {
        let cache = ConversationCache(profile: profile)
        try cache.saveList(list.conversations)
        try cache.savePeople(list.users)
        try cache.saveMutes(list.mutes ?? [])
        guard let me else { return }
        let people = Dictionary(list.users.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        var directs = profile.loadDirects()
        for c in list.conversations where c.kind == .direct {
            if let other = c.memberIds.first(where: { $0 != me }).flatMap({ people[$0] }) { directs[other.email.lowercased()] = c.id }
        }
        try profile.saveDirects(directs)
    }

    /// Keeps full details of conversations looked at (members, receipts).
    public static func remember(conversations: [Conversation], profile: Profile, me: Int64?) throws(StoreError) {
        guard !conversations.isEmpty, let me else { return }
        for c in conversations { rememberDirect(c, profile: profile, me: me) }
        try ConversationCache(profile: profile).save(conversations, viewer: me)
    }

    /// Notes a direct conversation by the other member's email; best effort.
    static func rememberDirect(_ conversation: Conversation, profile: Profile, me: Int64) {
        guard conversation.kind == .direct, let other = conversation.members.first(where: { $0.id != me }) else { return }
        try? profile.rememberDirect(email: other.email, conversationId: conversation.id)
    }
}
