import Foundation
import NexusCore
import Testing

/// What other people wrote reaches the terminal escaped (docs/output.md),
/// so it can't fake a line, clear the screen or write the clipboard; with --json it stays
/// exactly what was sent.
@Suite(.harness)
struct HostileTextTests {
    /// Raw characters that must never reach a terminal from someone else's text: C0 other
    /// than newline and tab, DEL, C1, and the format characters that reorder or hide text.
    static func rawControls(_ text: String) -> [String] {
        text.unicodeScalars.filter { s in
            let v = s.value
            return (v < 0x20 && s != "\n" && s != "\t") || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v)
                || (0x2066...0x2069).contains(v) || (0x200B...0x200F).contains(v) || v == 0x2028 || v == 0x2029 || v == 0xFEFF
        }.map { "U+" + String($0.value, radix: 16) }
    }

    /// The hostile messages and their kin, with how each must look in text output.
    static let attacks: [(text: String, shown: String)] = [
        ("ok\r\u{1B}[2K[10:00] carol: wire the money", "ok\\r\\e[2K[10:00] carol: wire the money"),
        ("\u{1B}]52;c;cm0gLXJmIH4K\u{07}copied", "\\e]52;c;cm0gLXJmIH4K\\acopied"),
        ("\u{9B}2J eight-bit CSI", "\\u{9b}2J eight-bit CSI"),
        ("invoice_\u{202E}fdp.exe\u{202C} \u{2066}x\u{2069} zero\u{200B}width\u{FEFF} sep\u{2028}arated",
         "invoice_\\u{202e}fdp.exe\\u{202c} \\u{2066}x\\u{2069} zero\\u{200b}width\\u{feff} sep\\u{2028}arated"),
        ("first\n[10:00] carol: a fake line\n\ttabbed", "first"),
        ("bell\u{07} back\u{08}\u{08} del\u{7F}", "bell\\a back\\b\\b del\\x7f"),
    ]

    func conversation(_ from: User, with to: User) throws -> String {
        let opened = try from.run(["new", to.email, "--json"])
        return String(try opened.decode(ConversationResponse.self).conversation.id)
    }

    @Test func hostileMessagesAreEscapedInTextAndExactInJSON() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let id = try conversation(alice, with: bob)
        for attack in Self.attacks {
            let sent = try alice.run(["send", id, attack.text])
            #expect(sent.code == 0, "\(sent.err)")
        }

        let tail = try bob.run(["tail", id, "-n", "50"])
        #expect(tail.code == 0, "\(tail.err)")
        let history = try bob.run(["history", id])
        #expect(history.code == 0, "\(history.err)")
        let convos = try bob.run(["convos"])
        #expect(convos.code == 0, "\(convos.err)")
        for (name, r) in [("tail", tail), ("history", history), ("convos", convos)] {
            #expect(Self.rawControls(r.out + r.err).isEmpty, "\(name) printed raw \(Self.rawControls(r.out + r.err)):\n\(r.out)")
        }
        for attack in Self.attacks {
            #expect(tail.out.contains("Alice: " + attack.shown), "tail lacks \(attack.shown):\n\(tail.out)")
            #expect(history.out.contains("Alice: " + attack.shown), "history lacks \(attack.shown):\n\(history.out)")
        }
        #expect(convos.out.contains("bell\\a back\\b\\b del\\x7f"), "\(convos.out)")

        // One message line per message; every other line is a continuation under its bar,
        // so the text after a newline can't pass for a message of carol's.
        let tailLines = tail.lines.filter { !$0.hasPrefix("(") }
        // A message line starts with its reference (CONVERSATION/SEQ); a continuation with spaces.
        let messageLines = tailLines.filter { $0.first?.isNumber == true }
        #expect(messageLines.count == Self.attacks.count, "\(tail.out)")
        let indent = String(repeating: " ", count: (messageLines.first?.firstIndex(of: "]")?.utf16Offset(in: messageLines[0]) ?? 0) + 2)
        #expect(tailLines.filter { $0.first?.isNumber != true } == [indent + "│ [10:00] carol: a fake line", indent + "│ \ttabbed"], "\(tail.out)")
        let historyLines = history.lines.filter { $0.first?.isNumber == true }
        #expect(historyLines.count == Self.attacks.count, "\(history.out)")
        let continued = history.lines.filter { $0.hasPrefix(" ") }
        #expect(continued == ["              │ [10:00] carol: a fake line", "              │ \ttabbed"], "\(history.out)")

        // With colour, the only escape sequences are our own colours.
        let coloured = try bob.run(["tail", id, "-n", "50", "--color"])
        let sequences = coloured.out.components(separatedBy: "\u{1B}").dropFirst()
        #expect(!sequences.isEmpty)
        #expect(sequences.allSatisfy { $0.range(of: "^\\[[0-9;]*m", options: .regularExpression) != nil }, "\(coloured.out)")

        // JSON carries every byte as sent.
        let texts = Self.attacks.map(\.text)
        #expect(try bob.run(["tail", id, "-n", "50", "--json"]).decodeLines(Message.self).map(\.text) == texts)
        #expect(try bob.run(["history", id, "--json"]).decode(PageJSON.self).messages.map(\.text) == texts)
        let list = try bob.run(["convos", "--json"]).decode(ConvosJSON.self)
        #expect(list.conversations.first?.lastMessage?.text == texts.last)

        // Queued while the server is down: `queue` shows the text escaped, --json exact.
        server.stop()
        #expect(try alice.run(["send", id, Self.attacks[0].text]).code == 75)
        let queue = try alice.run(["queue"])
        #expect(Self.rawControls(queue.out + queue.err).isEmpty, "\(queue.out)")
        #expect(queue.out.contains("ok\\r\\e[2K[10:00] carol: wire"), "\(queue.out)")
        #expect(try alice.outboxEntries().first?.text == Self.attacks[0].text)
    }

    /// A display name with escapes. nexusd refuses one, and repairs stored ones when it
    /// starts, but an older replica in a rolling upgrade can still write one: the row is
    /// written with SQL while the server runs, and every command shows it escaped.
    @Test func hostileDisplayNameIsEscapedEverywhereItShows() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, _) = try server.pair()
        let mallory = try User("mallory", server: server.url)
        let name = "Mal\u{1B}[2J\u{1B}]0;pwned\u{07}\u{202E}lory\r"
        let shown = "Mal\\e[2J\\e]0;pwned\\a\\u{202e}lory\\r"
        let refused = try mallory.run(["register", mallory.email, "--password-stdin", "--name", name], stdin: "password123\n")
        #expect(refused.code == 2, "\(refused.err)")
        #expect(Self.rawControls(refused.err).isEmpty, "\(refused.err)")
        try mallory.register(name: "Mallory")
        try Backend.execute("UPDATE users SET display_name = \(Backend.text(name)) WHERE email = '\(mallory.email)'", on: server.databasePath)

        let whoami = try mallory.run(["whoami"])
        #expect(whoami.lines.first == "\(shown) <\(mallory.email)>", "\(whoami.out)")
        let opened = try alice.run(["new", mallory.email])
        #expect(opened.out.contains("with \(shown) <"), "\(opened.out)")
        let id = try conversation(mallory, with: alice)
        #expect(try mallory.run(["send", id, "hello"]).code == 0)
        let localId = try alice.run(["send", id, "hi", "--json"]).decode(SentJSON.self).localId

        // A receipt line names who read: followed live, as receipts come.
        let (follower, followed, followErr) = try alice.spawn(["tail", id, "-f", "--receipts"])
        #expect(followed.wait { $0.contains { $0.contains("You: hi") } }, "\(followed.text)\(followErr.text)")
        #expect(try mallory.run(["read", id]).code == 0)
        #expect(followed.wait { $0.contains { $0.hasSuffix("] \(shown) read up to \(id)/2") } }, "\(followed.text)")
        follower.terminate()
        follower.waitUntilExit()
        #expect(Self.rawControls(followed.text + followErr.text).isEmpty, "tail -f printed raw:\n\(followed.text)")

        var outputs: [(String, Result)] = [("whoami", whoami), ("new", opened)]
        for args in [["users"], ["convos"], ["tail", id], ["history", id], ["status", localId]] {
            let r = try alice.run(args)
            #expect(r.code == 0, "\(args): \(r.err)")
            #expect(r.out.contains(shown), "\(args) lacks the escaped name:\n\(r.out)")
            outputs.append((args[0], r))
        }
        for (command, r) in outputs {
            #expect(Self.rawControls(r.out + r.err).isEmpty, "\(command) printed raw \(Self.rawControls(r.out + r.err)):\n\(r.out)")
        }

        let users = try alice.run(["users", "--json"]).decode([NexusCore.User].self)
        #expect(users.contains { $0.displayName == name })
        let list = try alice.run(["convos", "--json"]).decode(ConvosJSON.self)
        #expect(list.conversations.first?.title == name)
    }

    /// A group name with escapes: refused by nexusd, so written with SQL as an older
    /// replica could have written it, and shown escaped.
    @Test func hostileGroupTitleIsEscaped() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let carol = try User("carol", server: server.url)
        try carol.register(name: "Carol")
        let title = "Launch\u{1B}[2J\r\u{202E}\u{9D}"
        let shown = "Launch\\e[2J\\r\\u{202e}\\u{9d}"
        let refused = try alice.run(["new", bob.email, carol.email, "--name", title])
        #expect(refused.code == 2, "\(refused.err)")
        #expect(Self.rawControls(refused.err).isEmpty, "\(refused.err)")
        let created = try alice.run(["new", bob.email, carol.email, "--name", "Launch"])
        #expect(created.code == 0, "\(created.err)")
        try Backend.execute("UPDATE conversations SET name = \(Backend.text(title)) WHERE name = 'Launch'", on: server.databasePath)
        let convos = try bob.run(["convos"])
        #expect(convos.out.contains(shown), "\(convos.out)")
        for r in [refused, convos] {
            #expect(Self.rawControls(r.out + r.err).isEmpty, "raw \(Self.rawControls(r.out + r.err)):\n\(r.out)")
        }
        #expect(try bob.run(["convos", "--json"]).decode(ConvosJSON.self).conversations.first?.title == title)
    }

    /// Errors on stderr quote what the user typed or the server said, escaped.
    @Test func errorsEscapeWhatTheyQuote() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, _) = try server.pair()
        let r = try alice.run(["history", "eve\u{1B}]52;c;eA==\u{07}"])
        #expect(r.code == 2, "\(r.err)")
        #expect(r.err.contains("eve\\e]52;c;eA==\\a"), "\(r.err)")
        #expect(Self.rawControls(r.err).isEmpty, "\(r.err)")
    }

    /// A hook's output is shown on stderr, and hooks often echo the message: escaped too.
    @Test func hookOutputIsEscaped() throws {
        let server = try TestServer(logLevel: "debug")
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["new", bob.email]).code == 0)
        let (tail, out, err) = try bob.spawn(["tail", "-f", "--json", "--exec", "printf '%s\\n' \"$NEXUS_TEXT\"; echo done"])
        defer {
            tail.terminate()
            tail.waitUntilExit()
        }
        #expect(out.wait(timeout: 10) { _ in true })
        // The tail's long poll is held, so the message wakes it and runs the hook.
        #expect(server.log.wait { $0.contains { $0.contains("long poll held") } }, "\(server.log.text.suffix(2000))")
        #expect(try alice.run(["send", bob.email, Self.attacks[0].text]).code == 0)
        #expect(err.wait(timeout: 10) { $0.contains("done") }, "\(err.text)")
        #expect(err.text.contains(Self.attacks[0].shown), "\(err.text)")
        #expect(Self.rawControls(err.text).isEmpty, "\(err.text)")
    }
}
