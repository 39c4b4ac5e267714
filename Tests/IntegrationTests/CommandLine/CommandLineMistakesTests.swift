import Foundation
import NexusCore
import Testing

/// What a newcomer types first, against the real nexusd: the documented lines work, and a
/// mistake is named as typed, with the fix.
@Suite(.harness)
struct CommandLineMistakesTests {
    /// After the first word of a query, `-staging` leaves staging out, as in every search
    /// engine; before it, the error names the whole argument and says how to pass it.
    @Test func aMinusWordInASearchLeavesTheWordOut() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        for text in ["deploy failed: error 42", "deployment to staging: error 42", "deploy ok"] {
            try #require(try alice.run(["send", bob.email, text]).code == 0)
        }
        // The README's line, as written.
        let readme = try bob.run(["search", "deploy*", #""error 42""#, "-staging", "--json"])
        #expect(readme.code == 0, "\(readme.err)")
        #expect(readme.decodeLines(SearchHit.self).map(\.text) == ["deploy failed: error 42"])
        // `search --help`'s example: options after the minus word still count.
        let help = try bob.run(["search", #""error 42""#, "-staging", "--from", alice.email, "--json"])
        #expect(help.code == 0, "\(help.err)")
        #expect(help.decodeLines(SearchHit.self).map(\.text) == ["deploy failed: error 42"])
        // A short option that exists is still that option.
        #expect(try bob.run(["search", "deploy", "-q", "--json"]).decodeLines(SearchHit.self).count == 2)

        let first = try bob.run(["search", "-staging", "deploy"])
        #expect(first.code == 2)
        #expect(first.err.contains("unknown option '-staging' for 'search'"), "\(first.err)")
        #expect(first.err.contains("nexusctl search -- -staging"), "\(first.err)")
    }

    /// A typo after a group's name gets a suggestion, as at the top level, and the group's
    /// whole usage, not the usage of the group's default command or of its first.
    @Test func aTypoInASubcommandSuggestsTheNearestAndShowsTheGroup() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, _) = try server.pair()
        for (args, suggestion, group) in [
            (["queue", "flsh"], "flush", ["queue [list]", "queue flush [--now]", "queue repair [--drop]", "queue drop <localId>"]),
            (["hook", "craete", "1"], "create", ["hook [list]", "hook create <conversation>", "hook revoke <name>", "hook deliveries <name>"]),
            (["token", "lst"], "list", ["token create <name>", "token list", "token revoke <name>"]),
        ] {
            let r = try alice.run(args)
            #expect(r.code == 2, "\(args): \(r.err)")
            #expect(r.err.contains("'\(args[1])' is not a 'nexusctl \(args[0])' command"), "\(args): \(r.err)")
            #expect(r.err.contains("did you mean '\(suggestion)'?"), "\(args): \(r.err)")
            for usage in group { #expect(r.err.contains("nexusctl " + usage), "\(args) leaves out \(usage): \(r.err)") }
        }
        #expect(try alice.run(["queue", "list"]).code == 0)
    }

    /// The fix a NUL's error names, copied as written into a shell, removes the NUL and
    /// nothing else, so the text then goes.
    @Test func theNulHintRunsAsPrinted() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let text = "disk 100% on db0\0\\ and more\n"
        let refused = try alice.run(["send", bob.email, "-"], stdin: text)
        #expect(refused.code == 2)
        let parts = refused.err.split(separator: "`", omittingEmptySubsequences: false)
        let fix = try #require(parts.count >= 3 ? String(parts[1]) : nil, "no command in the hint: \(refused.err)")
        let input = try makeTempDir("nul") + "/text"
        try Data(text.utf8).write(to: URL(fileURLWithPath: input))
        let sent = try runToEnd(shellPipe(fix, into: alice, reading: input))
        #expect(sent.code == 0, "`\(fix)` did not make the text sendable: \(sent.err)")
        #expect(try bob.run(["history", alice.email, "--json"]).out.contains(#""text":"disk 100% on db0\\ and more""#), "`\(fix)` changed more than the NUL")
    }

    /// `/bin/sh -c "FIX < INPUT | nexusctl send …"` as `user`.
    func shellPipe(_ fix: String, into user: User, reading input: String) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(fix) < \"$1\" | \"$2\" send bob@example.com - --json", "sh", input, Binaries.nexusctl]
        process.environment = user.environment
        return process
    }

    struct SearchHit: Decodable { var text: String }
}
