extension Profile {
    /// A profile as `profiles` lists it.
    public struct Summary: Sendable {
        public var profile: Profile
        public var session: Session?
        /// Messages in its outbox not yet sent.
        public var queued: Int
    }

    /// The profiles under `home` that hold something: a session, or an outbox. Folders
    /// whose names are no profile's are skipped.
    public static func all(home: String) -> [Summary] {
        FileSystem.list(home, directoriesOnly: true).filter { problem(withName: $0) == nil }.compactMap { name in
            let profile = Profile(name: name, home: home)
            let session = try? profile.loadSession()
            let queued = (try? Outbox(profile: profile).entries().filter { $0.status != .sent }.count) ?? 0
            guard session != nil || queued > 0 || FileSystem.exists(profile.outbox.path) else { return nil }
            return Summary(profile: profile, session: session, queued: queued)
        }
    }
}
