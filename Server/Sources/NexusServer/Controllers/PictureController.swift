import HTTPTypes
import Hummingbird
import NexusWire

/// The account's picture: an image uploaded as an attachment is (`/v1/uploads`: the same
/// size limit and SHA-256 check), named as the account's own. Setting it is the account's
/// business (a session only, as the display name); seeing it is the directory's (anyone
/// who may list users).
struct PictureController {
    let users: any UserStore
    let attachments: any AttachmentStore
    let services: AppServices

    @Sendable func set(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.account).user
        let picture = try await request.decodeJSON(Attachment.self, context: context)
        if let problem = Limits.problem(withAttachment: picture) {
            throw APIError.badRequest(problem.prefix(1).uppercased() + problem.dropFirst() + ".", code: "invalid_attachment")
        }
        guard picture.type.hasPrefix("image/") else {
            throw APIError.badRequest(
                "A picture is an image (a type image/…, such as image/png); this one is \(picture.type).", code: "not_an_image")
        }
        try await MessageRules.check([picture], sender: me.id, store: attachments)
        try await users.setPicture(userId: me.id, picture, at: services.clock())
        return try jsonResponse(try await account(me))
    }

    @Sendable func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.account).user
        try await users.setPicture(userId: me.id, nil, at: services.clock())
        return try jsonResponse(try await account(me))
    }

    /// The account as GET /v1/me answers it, picture included.
    private func account(_ me: User) async throws -> User {
        let user = try await users.user(id: me.id) ?? me
        return services.present(try await users.withPictures([user])[0])
    }

    @Sendable func download(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.caller(.read)
        guard let id = context.parameters.get("id").flatMap({ CheckedNumbers.parse($0, in: RequestNumbers.id) }),
              let picture = try await users.pictures(of: [id])[id],
              let upload = try await attachments.upload(user: id, sha256: picture.sha256), upload.complete
        else { throw Self.noPicture }
        var headers: HTTPFields = [:]
        headers[.contentType] = picture.type
        headers[AttachmentsController.shaHeader] = picture.sha256
        let store = attachments
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: Int(upload.size)) { writer in
                // Pictures are small (the attachment limit at most): no need of the
                // download's pacing by the channel's loop.
                try await store.read(user: id, sha256: picture.sha256, range: 0..<upload.size) { piece in try await writer.write(piece) }
                try await writer.finish(nil)
            })
    }

    static let noPicture = APIError.notFound("No such user, or they have no picture.")
}
