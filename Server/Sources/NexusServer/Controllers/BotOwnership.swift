import Hummingbird
import NexusWire

extension AppServices {
    /// A bot joins a conversation only through its owner, whether a group is being created
    /// or added to: anyone else gets 403 `not_bot_owner`, and nothing changes.
    func checkMayAdd(_ user: User, caller: Int64) async throws {
        guard user.bot == true, try await stores.membership.owner(ofBot: user.id) != caller else { return }
        throw APIError(
            status: .forbidden, code: "not_bot_owner",
            message: "\(user.displayName) is someone else's bot; only its owner can add it to a conversation.")
    }
}
