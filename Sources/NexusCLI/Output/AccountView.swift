import NexusCore

/// The JSON of register, login and whoami.
struct AccountView: Encodable {
    var user: User
    var profile: String
    var server: String
    var offline: Bool? = nil
    /// When the session lapses unless used (each use renews it); absent for an access token
    /// and for a session saved before the server stated it.
    var sessionExpiresAt: Timestamp? = nil
}
