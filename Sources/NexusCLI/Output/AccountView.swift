import NexusCore

/// The JSON of register, login and whoami.
struct AccountView: Encodable {
    var user: User
    var profile: String
    var server: String
    var offline: Bool? = nil
}
