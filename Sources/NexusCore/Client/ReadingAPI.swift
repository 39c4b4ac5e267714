/// The part of nexusd's API that offline-first reads use. `NexusAPI` is the real one;
/// core tests put a fake behind it to inject failures in-process.
public protocol ReadingAPI: AnyObject {
    func conversations() throws(APIError) -> ConversationsResponse
    func conversation(_ id: Int64) throws(APIError) -> Conversation
    func messages(conversationId: Int64, before: NexusAPI.Anchor?, limit: Int?) throws(APIError) -> MessagesPage
}

extension NexusAPI: ReadingAPI {}
