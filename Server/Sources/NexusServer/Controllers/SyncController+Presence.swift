import Hummingbird
import NIOCore
import NexusWire

extension SyncController {
    /// A held long poll of a live client, ended when the poll answers or its client goes away.
    struct Hold {
        let token: Int
        let services: AppServices
        let channel: (any Channel)?
        let name: String

        func end() {
            services.holds.end(token)
            if let channel { ConnectionWatch.unwatch(channel, name: name) }
        }
    }

    /// Keeps the caller's live client online while this poll waits (nil for a one-off poll).
    func holdPresence(_ request: Request, context: AppRequestContext, user: Int64, wait: Int64) async throws -> Hold? {
        guard wait > 0, let client = try AppServices.presenceClient(request) else { return nil }
        let token = await services.beginPoll(user: user, client: client)
        let hold = Hold(token: token, services: services, channel: context.channel, name: "nexus-presence-\(token)")
        if let channel = context.channel {
            // The client went away mid-poll (killed, the network gone): stop renewing now,
            // so the lease runs out after the grace, not after the poll's timeout.
            ConnectionWatch.watch(channel, name: hold.name) { [holds = services.holds] in holds.end(token) }
        }
        return hold
    }

    /// Whose presence the viewer's feed reports: the other members of the conversation,
    /// or of all the viewer's conversations.
    func contacts(of viewer: Int64, conversationId: Int64?) async throws -> [User] {
        if let conversationId {
            return try await services.stores.conversations.conversation(id: conversationId, viewer: viewer)?.members
                .filter { $0.id != viewer } ?? []
        }
        return try await services.stores.conversations.conversations(viewer: viewer).users.filter { $0.id != viewer }
    }
}
