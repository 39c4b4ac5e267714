import CNexusBuild
import NexusBuild

/// What `--version` says of nexusctl and nexusd.
public enum BuildInfo {
    public static let version = "0.1.0"

    /// The git commit of the build: $NEXUS_COMMIT (`make`), else what git said at build
    /// time (a plain `swift build`); "unknown" only for a build outside git.
    public static var commit: String {
        let commit = String(cString: nexus_build_commit())
        if !commit.isEmpty { return commit }
        return GitAtBuild.commit.isEmpty ? "unknown" : GitAtBuild.commit
    }

    /// "0.1.0 (1a2b3c4d5e6f)": both programs print it after their name.
    public static var versionAndCommit: String { "\(version) (\(commit))" }
}
