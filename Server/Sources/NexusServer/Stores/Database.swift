/// The database under every store: its schema and its lifetime. Each backend has one
/// (SQLiteDatabase, PostgresDatabase), shared by its stores.
protocol Database: Sendable {
    func migrate() async throws
    func close() async throws
}

/// nexusd's storage, one store per concern, all on one database; AppServices holds one.
struct Stores: Sendable {
    let database: any Database
    let users: any UserStore
    let conversations: any ConversationStore
    let messages: any MessageStore
    let changes: any MessageChangeStore
    let receipts: any ReceiptStore
    let feed: any FeedStore
    let tokens: any TokenStore
    let hooks: any HookStore
    let search: any SearchStore
    let attachments: any AttachmentStore
    let mutes: any MuteStore
    let presence: any PresenceStore
    /// How replicas keep their memory in step; nil for a single process (SQLite).
    let bus: (any ClusterBus)?
}
