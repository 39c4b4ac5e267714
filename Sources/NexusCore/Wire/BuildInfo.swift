import CNexusBuild

/// What `--version` says of nexusctl and nexusd.
public enum BuildInfo {
    public static let version = "0.1.0"

    /// The git commit of the build (`git describe --always --dirty`), when the build was
    /// told it (`make dist`, `make install`); nil for a plain `swift build`.
    public static var commit: String? {
        let commit = String(cString: nexus_build_commit())
        return commit.isEmpty ? nil : commit
    }

    /// "0.1.0 (commit 1a2b3c4d5e6f)", or "0.1.0" when the commit is not known.
    public static var versionAndCommit: String {
        commit.map { "\(version) (commit \($0))" } ?? version
    }
}
