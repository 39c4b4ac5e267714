import Hummingbird
import NexusWire

/// What an endpoint needs of the caller's token (docs/tokens.md has the table).
enum Permission: Sendable {
    case read, send
    /// Anything else a person does: open conversations, and so on.
    case all
    /// Tokens and bots: a session only, so a leaked token can't mint more.
    case manage
    /// The account's password and profile: a session only, as for `manage`.
    case account
}

/// What the caller's token may do: everything for a session (from login), else its
/// scope, over all of the owner's conversations or the listed ones.
struct Access: Sendable {
    /// nil: a session.
    var scope: TokenScope?
    /// nil: every conversation of the owner.
    var conversations: Set<Int64>?

    static let session = Access(scope: nil, conversations: nil)

    func allows(_ permission: Permission) -> Bool {
        guard let scope else { return true }
        switch (permission, scope) {
        case (.manage, _), (.account, _): return false
        case (_, .all): return true
        case (.read, .read), (.send, .send): return true
        default: return false
        }
    }

    /// 403 `insufficient_scope` unless the token may do `permission`.
    func check(_ permission: Permission) throws {
        guard allows(permission) else { throw APIError.insufficientScope(scope, permission) }
    }

    /// Whether `check(_:conversation:)` would pass, for a caller not yet known to be a member.
    func allows(_ permission: Permission, conversation: Int64) -> Bool {
        allows(permission) && conversations?.contains(conversation) != false
    }

    /// The same, for one conversation, which the caller is already known to be a member
    /// of: a non-member's 404 comes first, so it stays the same bytes for every token.
    func check(_ permission: Permission, conversation: Int64) throws {
        try check(permission)
        if let conversations, !conversations.contains(conversation) {
            throw APIError(
                status: .forbidden, code: "insufficient_scope",
                message: "This token is limited to conversations \(conversations.sorted().map(String.init).joined(separator: ", ")).")
        }
    }
}

extension APIError {
    static func insufficientScope(_ scope: TokenScope?, _ permission: Permission) -> APIError {
        let needs = switch permission {
        case .read: "read (scope read or all)"
        case .send: "send (scope send or all)"
        case .all: "scope all"
        case .manage: "a session from `nexusctl login`: tokens can't manage tokens or bots"
        case .account: "a session from `nexusctl login`: tokens can't change the account's password or profile"
        }
        return APIError(
            status: .forbidden, code: "insufficient_scope",
            message: "This token's scope is \(scope?.rawValue ?? "session"); this needs \(needs).")
    }
}

extension AppRequestContext {
    /// The caller, once its token is known to allow `permission`.
    func caller(_ permission: Permission) throws -> Caller {
        let caller = try self.caller
        try caller.access.check(permission)
        return caller
    }
}
