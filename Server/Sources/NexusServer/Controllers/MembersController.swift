import Hummingbird
import NexusWire

/// A group's members: listing them, and adding, removing, leaving and renaming
/// (MembershipChanges).
struct MembersController {
    let services: AppServices

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.idParameter()
        _ = try await services.members(of: id, caller: try context.caller, for: .read)
        guard let conversation = try await services.stores.conversations.conversation(id: id, viewer: try context.caller.user.id) else {
            throw APIError.conversationNotFound
        }
        let members = try await services.stores.membership.members(conversationId: id).map {
            Member(user: services.present($0.user), deliveredSeq: $0.deliveredSeq, readSeq: $0.readSeq, joinedAt: $0.joinedAt)
        }
        return try jsonResponse(MembersResponse(conversationId: id, kind: conversation.kind, name: conversation.name, members: members))
    }

    @Sendable func add(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await change(.added, request, context)
    }

    @Sendable func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await change(.removed, request, context)
    }

    @Sendable func leave(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await change(.left, request, context)
    }

    @Sendable func rename(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await change(.renamed, request, context)
    }

    private func change(_ kind: MembershipEvent.Kind, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        let caller = try context.caller
        let id = try context.idParameter()
        let response = try await MembershipChanges(services: services).change(kind, in: id, caller: caller) {
            try await request.decodeJSON(MembershipRequest.self, context: context)
        }
        return try jsonResponse(response, status: response.status == .created ? .created : .ok)
    }
}
