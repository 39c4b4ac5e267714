/// The part of nexusd's API that sending uses. `NexusAPI` is the real one; core tests
/// put a fake behind it to inject failures in-process.
public protocol SendingAPI: AnyObject {
    /// Opens (or finds) the direct conversation with `email`.
    func openDirect(with email: String) throws(APIError) -> ConversationResponse
    /// Sends messages in one request; one result per item, in order.
    func sendBatch(_ items: [BatchItem]) throws(APIError) -> [BatchResult]
    /// Applies changes to sent messages in one request; one result per item, in order.
    func applyChanges(_ items: [ChangeItem]) throws(APIError) -> [BatchResult]
}

extension NexusAPI: SendingAPI {}
