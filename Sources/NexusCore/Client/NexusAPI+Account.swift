#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The logged-in account's own profile and password (docs/protocol.md, "The account").
extension NexusAPI {
    /// The account with its new display name.
    public func setDisplayName(_ name: String) throws(APIError) -> User {
        try call("PATCH", "/v1/me", body: ProfileChangeRequest(displayName: name))
    }

    /// `keepSessions`: the account's other sessions stay signed in; this one always does.
    public func changePassword(old: String, new: String, keepSessions: Bool) throws(APIError) {
        let bytes: Data
        let request = ChangePasswordRequest(oldPassword: old, newPassword: new, keepSessions: keepSessions)
        do { bytes = try JSONEncoder().encode(request) } catch { throw .badResponse("can't encode request: \(error)") }
        _ = try raw("POST", "/v1/me/password", body: Array(bytes))
    }
}
