import Hummingbird
import NexusWire

/// Access tokens and bots (docs/tokens.md). Only a session manages them: a leaked token
/// must not be able to mint more.
struct TokensController {
    let tokens: any TokenStore
    let services: AppServices

    @Sendable func createToken(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.manage).user
        let body = try await request.decodeJSON(CreateTokenRequest.self, context: context)
        let (token, new) = try await newToken(
            name: body.name, scope: body.scope, conversations: body.conversations, expiresIn: body.expiresIn, owner: me)
        guard try await tokens.createToken(new) else {
            throw APIError(
                status: .conflict, code: "token_name_taken",
                message: "You already have a token named \(body.name); revoke it first or choose another name.")
        }
        return try jsonResponse(CreatedToken(token: token, accessToken: Self.view(new), user: me), status: .created)
    }

    @Sendable func listTokens(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.manage).user
        return try jsonResponse(TokensResponse(tokens: try await tokens.tokens(userId: me.id)))
    }

    @Sendable func revokeToken(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.manage).user
        let name = context.parameters.get("name") ?? ""
        guard try await services.revoke({ try await tokens.revokeToken(userId: me.id, name: name).map { [$0] } }) != nil else {
            throw APIError(status: .notFound, code: "token_not_found", message: "You have no token named \(name).")
        }
        return Response(status: .noContent)
    }

    @Sendable func createBot(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.manage).user
        let body = try await request.decodeJSON(CreateBotRequest.self, context: context)
        if let problem = TokenNames.problem(with: body.name, what: "bot") { throw APIError.badRequest(problem + ".", code: "invalid_name") }
        let displayName = try IdentityInput.displayName(body.displayName) ?? body.name
        // The bot is in no conversation yet: its token may name ones it will be added to.
        let (token, new) = try await newToken(
            name: body.name, scope: body.scope, conversations: body.conversations, expiresIn: body.expiresIn, owner: nil)
        let email = TokenNames.botEmail(name: body.name, ownerId: me.id)
        guard let bot = try await tokens.createBot(ownerId: me.id, email: email, displayName: displayName, token: new) else {
            throw APIError(
                status: .conflict, code: "bot_name_taken", message: "You already have a bot named \(body.name); choose another name.")
        }
        return try jsonResponse(CreatedToken(token: token, accessToken: Self.view(new), user: bot), status: .created)
    }

    @Sendable func listBots(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.manage).user
        let bots = try await tokens.bots(ownerId: me.id).map { bot in
            var b = bot
            b.user = services.present(bot.user)
            return b
        }
        return try jsonResponse(BotsResponse(bots: bots))
    }

    @Sendable func deleteBot(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.manage).user
        let name = context.parameters.get("name") ?? ""
        let email = TokenNames.botEmail(name: name, ownerId: me.id)
        guard TokenNames.problem(with: name, what: "bot") == nil,
              try await services.revoke({ try await tokens.deleteBot(ownerId: me.id, email: email) }) != nil
        else {
            throw APIError(status: .notFound, code: "bot_not_found", message: "You have no bot named \(name).")
        }
        return Response(status: .noContent)
    }

    /// A new secret and what to store of it. `owner`: the caller, whose membership of the
    /// listed conversations is checked (nil for a new bot's token).
    private func newToken(
        name: String, scope: TokenScope, conversations: [Int64]?, expiresIn: Int64?, owner: User?
    ) async throws -> (String, NewAccessToken) {
        if let problem = TokenNames.problem(with: name, what: "token") { throw APIError.badRequest(problem + ".", code: "invalid_name") }
        let ids = conversations ?? []
        guard ids.count <= 100 else { throw APIError.badRequest("A token takes at most 100 conversations.", code: "invalid_body") }
        if let owner {
            for id in ids { _ = try await services.members(of: id, viewer: owner.id) }
        }
        if let expiresIn, !(1...(100 * 365 * 86_400)).contains(expiresIn) {
            throw APIError.badRequest("expiresIn must be 1 s to 100 years; leave it out for a token that never expires.", code: "invalid_body")
        }
        let now = services.clock()
        let token = Tokens.generate(prefix: Tokens.accessPrefix)
        return (token, NewAccessToken(
            userId: owner?.id ?? 0, name: name, tokenHash: Tokens.hash(token), scope: scope, conversations: ids, createdAt: now,
            expiresAt: expiresIn.map { Timestamp(milliseconds: now.milliseconds + $0 * 1000) }))
    }

    private static func view(_ t: NewAccessToken) -> AccessToken {
        AccessToken(
            name: t.name, scope: t.scope, conversations: Array(Set(t.conversations)).sorted(), createdAt: t.createdAt,
            expiresAt: t.expiresAt)
    }
}
