import Foundation
import PackagePlugin

/// Writes the checkout's commit into the target at every build, for `--version`: the
/// manifest is read once and cached, so a commit that Package.swift found would stay the
/// one of the first build. The file is rewritten only when the commit changed, so an
/// unchanged one costs a `git describe` and no compilation.
@main
struct GitCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "GitCommit.swift")
        let script = """
            PATH="$PATH:/usr/local/bin:/usr/bin:/bin"
            commit=$(git -C "$1" describe --always --dirty --abbrev=12 2>/dev/null)
            line="extension GitAtBuild { public static let commit = \\"$commit\\" }"
            [ "$(cat "$2" 2>/dev/null)" = "$line" ] || printf '%s\\n' "$line" > "$2"
            """
        return [
            .prebuildCommand(
                displayName: "Reading the git commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", context.package.directoryURL.path, output.path],
                outputFilesDirectory: context.pluginWorkDirectoryURL)
        ]
    }
}
