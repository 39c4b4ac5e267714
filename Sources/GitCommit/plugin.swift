#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackagePlugin

/// Writes the checkout's commit into the target, for `--version`: the manifest is read once
/// and cached, so a commit that Package.swift found would stay the one of the first build.
/// The command's inputs are git's HEAD, its log (a line each commit, checkout or reset) and
/// its index, so it runs again when one of them moves; the file is rewritten only when the
/// commit changed, so the one-line module is all that recompiles.
@main
struct GitCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "GitCommit.swift")
        let git = context.package.directoryURL.appending(path: ".git")
        let inputs = ["HEAD", "logs/HEAD", "index"].map { git.appending(path: $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        let script = """
            PATH="$PATH:/usr/local/bin:/usr/bin:/bin"
            commit=$(git -C "$1" describe --always --dirty --abbrev=12 2>/dev/null)
            line="extension GitAtBuild { public static let commit = \\"$commit\\" }"
            [ "$(cat "$2" 2>/dev/null)" = "$line" ] || printf '%s\\n' "$line" > "$2"
            """
        return [
            .buildCommand(
                displayName: "Reading the git commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", context.package.directoryURL.path, output.path],
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
