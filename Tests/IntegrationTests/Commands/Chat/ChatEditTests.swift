import Foundation
import Testing

/// ↑ on an empty line edits my last message, through the outbox as `edit` does; Esc
/// leaves it as it was.
@Suite(.harness)
struct ChatEditTests {
    @Test func upEditsMyLastMessageAndEscLeavesIt() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "first"]).code == 0)
        #expect(try alice.run(["send", bob.email, "deploy at 5"]).code == 0)
        #expect(try bob.run(["send", alice.email, "ok"]).code == 0)
        let tty = try TerminalSession(alice, ["chat", bob.email])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" ok") } }, "\(tty.screen)")

        // Esc: nothing changes, and the line is empty again.
        tty.send("Up")
        #expect(tty.wait { s in s.contains { $0.contains("Editing ") && $0.contains("/2: Enter saves") } && s.last?.hasSuffix("deploy at 5") == true }, "\(tty.screen)")
        tty.send("Escape")
        #expect(tty.wait { s in s.last == ">" && s.first?.hasPrefix("Bob") == true }, "\(tty.screen)")

        tty.send("Up")
        #expect(tty.wait { s in s.last?.hasSuffix("deploy at 5") == true }, "\(tty.screen)")
        tty.send("BSpace")
        tty.send("6", literal: true)
        tty.send("Enter")
        #expect(tty.wait { s in s.contains { $0.contains("deploy at 6 (edited)") } && s.last == ">" }, "\(tty.screen)")
        let page = try bob.run(["history", alice.email, "--json"]).decode(PageJSON.self).messages
        #expect(page.map(\.text) == ["first", "deploy at 6", "ok"] && page[1].editedAt != nil && page[0].editedAt == nil)
        #expect(try alice.run(["queue", "--json"]).out.contains("\"kind\"") == false)
    }
}
