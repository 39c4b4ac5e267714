extension Profile {
    /// A profile as `profiles` lists it.
    public struct Summary: Sendable {
        public var profile: Profile
        public var session: Session?
        /// Messages in its outbox waiting to be sent (queued or being sent).
        public var queued: Int
        /// Messages in its outbox that failed and wait for `retry`.
        public var failed: Int
    }

    /// The profiles under `home` that hold something: a session, or an outbox. Folders
    /// whose names are no profile's are skipped.
    public static func all(home: String) -> [Summary] {
        FileSystem.list(home, directoriesOnly: true).filter { problem(withName: $0) == nil }.compactMap { name in
            let profile = Profile(name: name, home: home)
            let session = try? profile.loadSession()
            let unsent = (try? Outbox(profile: profile).entries().filter { $0.status != .sent }) ?? []
            let failed = unsent.filter { $0.status == .failed }.count
            guard session != nil || !unsent.isEmpty || FileSystem.exists(profile.outbox.path) else { return nil }
            return Summary(profile: profile, session: session, queued: unsent.count - failed, failed: failed)
        }
    }
}
