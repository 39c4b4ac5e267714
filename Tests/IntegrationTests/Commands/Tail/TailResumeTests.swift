import Foundation
import Testing

/// A restarted `tail -f` resumes from its saved position and prints nothing until something
/// new comes; on a terminal it says where it resumes, so it doesn't look hung.
@Suite(.harness)
struct TailResumeTests {
    @Test func aRestartedTailOnATerminalSaysWhereItResumes() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "one"]).code == 0)
        #expect(try alice.run(["send", bob.email, "two"]).code == 0)
        let (first, out, err) = try bob.spawn(["tail", "-f"])
        #expect(out.wait { $0.contains { $0.hasSuffix("Alice: two") } }, "\(out.text) \(err.text)")
        first.terminate()
        #expect(ends(first, within: 10))
        let two = try #require(out.lines.first { $0.hasSuffix("Alice: two") }?.split(separator: " ").first)

        let tty = try TerminalSession(bob, ["tail", "-f"])
        defer { tty.close() }
        #expect(tty.wait { $0.contains("following, from \(two)") }, "\(tty.screen)")
        #expect(!tty.screen.contains { $0.contains("Alice: two") }, "nothing is repeated: \(tty.screen)")
        #expect(try alice.run(["send", bob.email, "three"]).code == 0)
        #expect(tty.wait { $0.contains { $0.hasSuffix("Alice: three") } }, "\(tty.screen)")
        tty.interrupt()
        #expect(tty.exitCode() != nil, "Ctrl-C ends it: \(tty.screen)")

        // To a program (stderr no terminal) the tail says nothing it doesn't need to.
        let (piped, pipedOut, pipedErr) = try bob.spawn(["tail", "-f"])
        defer { if piped.isRunning { piped.terminate() } }
        #expect(try alice.run(["send", bob.email, "four"]).code == 0)
        #expect(pipedOut.wait { $0.contains { $0.hasSuffix("Alice: four") } }, "\(pipedOut.text) \(pipedErr.text)")
        #expect(!pipedErr.text.contains("following"), "\(pipedErr.text)")
    }
}
