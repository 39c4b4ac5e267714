import Hummingbird
import NIOCore
import NexusWire

/// Opening (Opening) and listing conversations.
struct ConversationsController {
    let conversations: any ConversationStore
    let services: AppServices

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (conversation, created) = try await Opening(services: services).open(caller: try context.caller(.all)) {
            try await request.decodeJSON(CreateConversationRequest.self, context: context)
        }
        return try jsonResponse(ConversationResponse(conversation: conversation, created: created), status: created ? .created : .ok)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller(.read)
        let services = services
        var bytes = try await conversations.conversationListJSON(
            viewer: caller.user.id, allowed: caller.access.conversations, present: { services.present($0) })
        let mutes = try await services.stores.mutes.mutes(of: caller.user.id, now: services.clock())
            .filter { caller.access.conversations?.contains($0.conversationId) ?? true }
        if !mutes.isEmpty { bytes = try Self.adding(mutes, to: bytes) }
        return Response(
            status: .ok,
            headers: jsonHeaders(length: bytes.count),
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The list's JSON object with `mutes` as its last member: the stores write the list
    /// by hand, and the mutes are a few short lines beside it.
    private static func adding(_ mutes: [Mute], to list: [UInt8]) throws -> [UInt8] {
        guard let end = list.lastIndex(of: UInt8(ascii: "}")) else { throw StoreError.inconsistent("conversation list JSON") }
        var encoded = try jsonBody(mutes)
        var json = Array(list[..<end])
        json.append(contentsOf: #","mutes":"#.utf8)
        json.append(contentsOf: encoded.readBytes(length: encoded.readableBytes) ?? [])
        json.append(contentsOf: list[end...])
        return json
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller
        let id = try context.idParameter()
        guard let conversation = try await conversations.conversation(id: id, viewer: caller.user.id) else {
            throw APIError.conversationNotFound
        }
        try caller.access.check(.read, conversation: id)
        return try jsonResponse(services.present(conversation))
    }
}
