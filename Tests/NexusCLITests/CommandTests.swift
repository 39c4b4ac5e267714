import Foundation
import Testing
@testable import NexusCLI
@testable import NexusCore

/// Commands run in-process, with captured output. None of these need a server.
struct CommandTests {
    func run(_ args: [String], home: String = "/nonexistent-nexus-home", env: [String: String] = [:]) -> (Int32, CapturedTerminal) {
        let terminal = CapturedTerminal()
        var environment = env
        environment["NEXUS_HOME"] = home
        let code = NexusCLI.run(arguments: args, environment: environment, terminal: terminal)
        return (code, terminal)
    }

    /// Every command answers --help with its synopsis, on stdout, with exit 0.
    @Test(arguments: CommandTable.all.flatMap { c in [[c.name]] + c.subcommands.map { [c.name, $0.name] } })
    func helpForEveryCommand(_ path: [String]) {
        let (code, t) = run(path + ["--help"])
        #expect(code == 0)
        #expect(t.out.hasPrefix("usage: nexusctl " + path.joined(separator: " ")))
        #expect(t.out.contains("--json"))
        #expect(t.err.isEmpty)
    }

    @Test func usageErrorsExitTwoWithHintOnStderr() {
        let (code, t) = run(["tail", "--folow"])
        #expect(code == ExitCode.usage.rawValue)
        #expect(t.out.isEmpty)
        #expect(t.err == "error: unknown option '--folow' for 'tail'\nhint: did you mean --follow? See 'nexusctl tail --help'.\n")
    }

    @Test func anUnknownGlobalOptionPointsAtTheOverview() {
        let (code, t) = run(["--verbose", "whoami"])
        #expect(code == ExitCode.usage.rawValue)
        #expect(t.err == "error: unknown option '--verbose' for 'nexusctl'\nhint: see 'nexusctl --help'.\n")
    }

    @Test func commandsNeedingASessionSayHowToLogIn() {
        let (code, t) = run(["convos"])
        #expect(code == ExitCode.auth.rawValue)
        #expect(t.err.contains("not logged in"))
        #expect(t.err.contains("nexusctl login"))
    }

    @Test func versionInTextAndJSON() {
        #expect(run(["--version"]).1.out == "nexusctl \(BuildInfo.versionAndCommit)\n")
        #expect(run(["--version", "--json"]).1.out == "{\"commit\":\"\(BuildInfo.commit)\",\"version\":\"\(NexusCLI.version)\"}\n")
    }

    @Test func exitCodesTopic() {
        let (code, t) = run(["help", "exit-codes"])
        #expect(code == 0)
        for c in ExitCode.allCases { #expect(t.out.contains(c.meaning)) }
    }

    @Test func exitCodesInJSONAreNumbers() throws {
        let (code, t) = run(["help", "exit-codes", "--json"])
        #expect(code == 0)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(t.out.utf8)) as? [[String: Any]])
        #expect(list.map { $0["code"] as? Int } == ExitCode.allCases.map { Int($0.rawValue) })
        #expect(t.out.contains("\"code\":75,"))
    }

    @Test func completionFollowsAProfileTypedOnTheLine() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-complete-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        try Profile(name: "work", home: home).ensureDirectory()
        try Profile(name: "work", home: home).rememberDirect(email: "bob@example.com", conversationId: 7)
        #expect(!run(["__complete", "send", ""], home: home).1.out.contains("bob@example.com"))
        #expect(run(["__complete", "--profile", "work", "send", ""], home: home).1.out.contains("bob@example.com"))
        #expect(run(["__complete", "--profile=work", "send", "b"], home: home).1.out == "bob@example.com\n")
    }

    @Test func theManPageFillsItsParagraphs() {
        let page = Manual.manPage()
        #expect(!page.contains("\n.br\n"), "no forced line breaks: man fills lines to the reader's width")
        // A sentence that spans two source lines of `queue flush`'s details is one line of roff.
        #expect(page.contains("holds back the later messages of its conversation"))
        #expect(page.hasSuffix(".SH SEE ALSO\n.BR nexusd (1)\n"))
    }

    @Test func badProfileNameIsAUsageError() {
        let (code, t) = run(["--profile", "../x", "convos"])
        #expect(code == ExitCode.usage.rawValue)
        #expect(t.err.contains("can't name a profile"))
    }

    @Test(arguments: [
        (["ta"], ["tail"]),
        (["queue", ""], ["list", "flush", "repair", "drop"]),
        (["tail", "--fo"], ["--follow"]),
        (["tail", "--no-fo"], ["--no-follow"]),
        (["users", "--fields", "e"], ["email"]),
        (["completion", ""], ["bash", "zsh", "fish"]),
        (["--json", "his"], ["history"]),
        (["send", "--each-line", "1", ""], []),
    ])
    func completionCandidates(_ words: [String], _ expected: [String]) {
        let profile = Profile(name: "default", home: "/nonexistent-nexus-home")
        #expect(Completion.candidates(words, profile: profile) == expected)
    }
}

/// The committed docs and completion scripts are generated from the command table;
/// these keep them from drifting (`make docs`, `make completions` regenerate them).
struct GeneratedFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func committed(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func commandPagesAreCurrent() throws {
        for (name, text) in Manual.pages() {
            #expect(try committed("docs/commands/" + name) == text, "docs/commands/\(name) is stale: run `make docs`")
        }
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs/commands").path)
        #expect(Set(pages) == Set(Manual.pages().map(\.0)), "a page for a command that is gone")
    }

    @Test func manPageIsCurrent() throws {
        #expect(try committed("docs/nexusctl.1") == Manual.manPage(), "run `make docs`")
    }

    /// As git's t0450: each page's synopsis is what `-h` prints.
    @Test(arguments: Manual.all().map(\.0))
    func pageSynopsisMatchesDashH(_ path: [String]) throws {
        let page = try committed("docs/commands/" + Manual.pageName(path))
        let synopsis = try #require(page.components(separatedBy: "## Synopsis\n\n```\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let terminal = CapturedTerminal()
        #expect(NexusCLI.run(arguments: path + ["-h"], environment: [:], terminal: terminal) == 0)
        let usage = terminal.out.split(separator: "\n").prefix { $0.hasPrefix("usage: ") || $0.hasPrefix("   or: ") }
            .map { String($0.dropFirst(7)) }
        #expect(synopsis.split(separator: "\n").map(String.init) == usage)
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptIsCurrent(_ shell: String) throws {
        let terminal = CapturedTerminal()
        #expect(NexusCLI.run(arguments: ["completion", shell], environment: [:], terminal: terminal) == 0)
        #expect(try committed("completions/nexusctl.\(shell)") == terminal.out, "run `make completions`")
    }
}
