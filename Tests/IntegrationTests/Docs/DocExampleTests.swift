import Foundation
import NexusCore
import Testing

/// Every example line of README.md and docs/ (code blocks, and each command's examples in
/// docs/commands/, which come from the command table), run as written against a
/// real nexusd (bash, with pipefail), as alice@example.com, who shares conversations with bob, carol and ops.
///
/// Run: every line whose programs are nexusctl and the shell's own (echo, xargs, jq). Each
/// must not be a usage error (exit 2); one that names the reader's own data (`12/345`,
/// conversation 7) may find nothing (exit 3). A jq pipeline must end well and print no
/// `null`. A crontab line must print nothing when all is well, or cron mails every run.
///
/// Skipped, by kind, since they need what a test can't have: a line that starts another
/// program (nexusd, make, pg_dump, curl, `tail -f FILE`, notify-send or ./notify.sh), talks
/// to a server on the Internet (https://…, chat.example.com), asks for a password on a
/// terminal, reads a file of the reader's (`< token.txt`), holds a placeholder (`…`) or a
/// bash-only expansion in a CI file, or follows a stream that never ends without a pipe to
/// jq (`tail -f` and `--each-line` lines by themselves). The jq lines that follow a stream
/// run until the last message sent is out, then are stopped.
@Suite(.harness)
struct DocExampleTests {
    struct Example: CustomStringConvertible {
        var file: String
        var line: String
        var description: String { "\(file): \(line)" }
    }

    static func examples() throws -> [Example] {
        let root = Binaries.root
        let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs").filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        let commands = try FileManager.default.contentsOfDirectory(atPath: root + "/docs/commands").filter { $0.hasSuffix(".md") }
        var found: [Example] = []
        for file in ["README.md"] + docs.sorted() {
            var inBlock = false
            for line in try String(contentsOfFile: root + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("```") { inBlock.toggle(); continue }
                if inBlock, line.contains("nexusctl ") { found.append(Example(file: file, line: clean(String(line)))) }
            }
        }
        // A command page's examples: "  nexusctl …" after "Examples:", each explained below it.
        for file in commands.sorted() {
            let text = try String(contentsOfFile: root + "/docs/commands/" + file, encoding: .utf8)
            guard let examples = text.range(of: "\nExamples:\n") else { continue }
            for line in text[examples.upperBound...].split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
                found.append(Example(file: "docs/commands/" + file, line: clean(String(line))))
            }
        }
        return found.filter { $0.line.contains("nexusctl ") }
    }

    /// The line as a shell would run it: no prompt, no comment, no crontab schedule.
    static func clean(_ line: String) -> String {
        var line = line.trimmingCharacters(in: .whitespaces)
        if line.hasPrefix("$ ") { line.removeFirst(2) }
        if let comment = line.range(of: #"\s{2,}#.*$"#, options: .regularExpression) { line.removeSubrange(comment) }
        return line
    }

    static func isCrontab(_ line: String) -> Bool { line.hasPrefix("*/") }

    static func skipReason(_ line: String) -> String? {
        let words = line.split(separator: " ").map(String.init)
        let first = words.first ?? ""
        if !["nexusctl", "echo", "URL=$(nexusctl"].contains(first) && !isCrontab(line) { return "starts another program" }
        if ["curl", "display", "tar", "notify-send", "./notify.sh", "make", "pg_dump"].contains(where: { line.contains($0) }) {
            return "runs another program"
        }
        if line.contains("https://") || line.contains("chat.example.com") { return "a server on the Internet" }
        if line.contains("…") { return "a placeholder" }
        if line.contains("< token.txt") { return "a file of the reader's" }
        if line.contains("${") || line.hasPrefix("- run:") { return "bash in a CI file" }
        let passwordless = ["register", "login"].contains(where: words.contains) && !line.contains("-stdin")
        if passwordless { return "asks for a password on a terminal" }
        if !line.contains("| jq"), words.contains("-f") || line.contains("--each-line") { return "a stream that never ends" }
        if line.hasPrefix("nexusd") { return "starts nexusd" }
        if words.count > 1, words[1] == "chat" { return "full screen, on a terminal (ChatScreenTests)" }
        return nil
    }

    @Test func everyExampleRunsAsWritten() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        for name in ["carol", "ops"] { try User(name, server: server.url).register() }
        try #require(try alice.run(["send", bob.email, "lunch at the cafe?"]).code == 0)
        try #require(try bob.run(["history", alice.email, "--read"]).code == 0)  // a receipt for alice
        try #require(try bob.run(["send", alice.email, "deploy failed: error 42"]).code == 0)
        let cwd = try makeTempDir("examples")
        for file in ["graph.png", "me.png"] { try Data("not really a png".utf8).write(to: URL(fileURLWithPath: cwd + "/" + file)) }

        let examples = try Self.examples()
        #expect(examples.count > 30, "the extraction found too few example lines: \(examples)")
        var ran = 0
        for example in examples {
            if Self.skipReason(example.line) != nil { continue }
            ran += 1
            if example.line.contains("| jq"), example.line.split(separator: " ").contains("-f") {
                try followed(example, alice, bob, cwd)
                continue
            }
            var command = example.line
            if Self.isCrontab(command) { command = command.split(separator: " ").dropFirst(5).joined(separator: " ") }
            let r = try shell(command, as: alice, in: cwd)
            #expect(r.code != 2, "\(example) is a usage error: \(r.err)")
            #expect(r.code == 0 || r.code == 3 || r.code == 4 || r.code == 1, "\(example) exited \(r.code): \(r.err)")
            if Self.isCrontab(example.line) { #expect(r.out.isEmpty, "\(example) prints, so cron mails every run: \(r.out)") }
            if command.contains("| jq") {
                #expect(r.code == 0 && !r.out.isEmpty && !r.lines.contains("null"), "\(example) printed \(r.out) (exit \(r.code)): \(r.err)")
            }
        }
        #expect(ran > 20, "only \(ran) examples ran")
    }

    /// A jq line that follows `tail -f`: it must print the newest message's text, and no
    /// `null` for the receipt and typing lines before it.
    func followed(_ example: Example, _ alice: User, _ bob: User, _ cwd: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", example.line]
        process.environment = try Self.shellEnvironment(alice, cwd)
        process.currentDirectoryURL = URL(fileURLWithPath: cwd)
        let out = LineCollector(), err = LineCollector()
        try launch(process, out: out, err: err)
        // The child leads a process group of its own: the signal reaches nexusctl and jq too.
        let group = process.processIdentifier
        defer {
            if group > 0 { kill(-group, SIGTERM) }
            process.waitUntilExit()
        }
        // A message of alice's, bob's read mark (a receipt line), bob typing, bob's answer.
        let last = "the last one \(UUID().uuidString.prefix(8))"
        try #require(try alice.run(["send", bob.email, "ping"]).code == 0)
        try #require(try bob.run(["history", alice.email, "--read"]).code == 0)
        try #require(try bob.run(["typing", alice.email]).code == 0)
        try #require(try bob.run(["send", alice.email, last]).code == 0)
        #expect(out.wait(timeout: 30) { $0.contains(last) }, "\(example): \(out.text) \(err.text)")
        #expect(!out.lines.contains("null"), "\(example) printed null: \(out.text)")
    }

    /// nexusctl first on $PATH, and a jq that writes each line at once, as jq does on a
    /// terminal; into the test's pipe it would hold its output until it ends.
    static func shellEnvironment(_ user: User, _ cwd: String) throws -> [String: String] {
        let bin = cwd + "/bin"
        let path = user.environment["PATH"] ?? "/usr/bin:/bin"
        if !FileManager.default.fileExists(atPath: bin + "/jq") {
            let jq = try #require(
                path.split(separator: ":").map { $0 + "/jq" }.first { FileManager.default.isExecutableFile(atPath: $0) }, "the examples need jq")
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            try Data("#!/bin/sh\nexec \(jq) --unbuffered \"$@\"\n".utf8).write(to: URL(fileURLWithPath: bin + "/jq"))
            chmod(bin + "/jq", 0o755)
        }
        var env = user.environment
        env["PATH"] = [bin, URL(fileURLWithPath: Binaries.nexusctl).deletingLastPathComponent().path, path]
            .joined(separator: ":")
        env["PASSWORD"] = "password123"
        return env
    }

    func shell(_ line: String, as user: User, in cwd: String) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-o", "pipefail", "-c", line]
        process.environment = try Self.shellEnvironment(user, cwd)
        process.currentDirectoryURL = URL(fileURLWithPath: cwd)
        return try runToEnd(process)
    }
}
