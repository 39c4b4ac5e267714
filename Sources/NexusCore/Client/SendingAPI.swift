/// The part of nexusd's API that sending uses. `NexusAPI` is the real one; core tests
/// put a fake behind it to inject failures in-process.
public protocol SendingAPI: AnyObject {
    /// The account the credentials belong to.
    func me() throws(APIError) -> User
    /// Opens (or finds) the direct conversation with `email`.
    func openDirect(with email: String) throws(APIError) -> ConversationResponse
    /// Sends messages in one request; one result per item, in order.
    func sendBatch(_ items: [BatchItem]) throws(APIError) -> [BatchResult]
    /// Applies changes to sent messages in one request; one result per item, in order.
    func applyChanges(_ items: [ChangeItem]) throws(APIError) -> [BatchResult]
    /// Adds, removes, leaves or renames, as a queued membership entry says (Sending+Membership).
    func changeMembership(_ entry: OutboxEntry) throws(APIError) -> MembershipResponse
    /// Mutes or unmutes, as a queued mute entry says.
    func setMute(_ entry: OutboxEntry) throws(APIError) -> MuteResponse
    /// Uploads a file to attach, resuming where the server's acknowledgement left off.
    func upload(_ file: OutboxFile, onProgress: ((Int64, Int64) -> Void)?) throws(UploadFailure)
}

extension NexusAPI: SendingAPI {}
