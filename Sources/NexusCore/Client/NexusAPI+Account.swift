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

    /// Uploads `file` as attachments go up (resumable, checked by its SHA-256, within the
    /// server's attachment limit), then makes it the account's picture.
    public func setPicture(_ file: OutboxFile) throws(UploadFailure) -> User {
        try upload(file)
        do { return try call("PUT", "/v1/me/picture", body: file.attachment) } catch { throw .api(error) }
    }

    /// The account without its picture (none already is fine).
    public func removePicture() throws(APIError) -> User {
        try call("DELETE", "/v1/me/picture")
    }

    /// `keepSessions`: the account's other sessions stay signed in; this one always does.
    public func changePassword(old: String, new: String, keepSessions: Bool) throws(APIError) {
        let bytes: Data
        let request = ChangePasswordRequest(oldPassword: old, newPassword: new, keepSessions: keepSessions)
        do { bytes = try JSONEncoder().encode(request) } catch { throw .badResponse("can't encode request: \(error)") }
        _ = try raw("POST", "/v1/me/password", body: Array(bytes))
    }
}
