import Foundation
import Testing

/// `chat` gives the terminal back as it found it: `stty -a` reads the same before it and
/// after it, whether it was quit (also after its server was killed under it) or ended by
/// SIGTERM, SIGHUP, SIGINT or a crash's SIGABRT.
@Suite(.harness)
struct ChatTerminalTests {
    /// -1: nexusd is killed mid-session, then q.
    @Test(arguments: [0, SIGTERM, SIGHUP, SIGINT, SIGABRT, -1])
    func theTerminalIsRestored(signal: Int32) throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, _) = try server.pair()
        let dir = try makeTempDir("stty")
        let chat = TerminalSession.command(["chat"])
        let shell = "stty -a > \(dir)/before; " + chat + "; echo \"[exit $?]\"; stty -a > \(dir)/after.part && mv \(dir)/after.part \(dir)/after; exec sleep 3600"
        let tty = try TerminalSession(alice, shell: shell)
        defer { tty.close() }
        #expect(tty.wait { $0.first?.hasPrefix("Conversations") == true }, "\(tty.screen)")
        if signal == -1 {
            server.kill9()
            tty.send("Tab")
            #expect(tty.wait { s in s.contains { $0.contains("offline") || $0.hasPrefix("Conversations") } }, "\(tty.screen)")
            tty.send("q")
        } else if signal == 0 {
            tty.send("q")
        } else {
            let pid = try #require(tty.childPid)
            kill(pid, signal)
        }
        let code = tty.exitCode()
        #expect(code == (signal <= 0 ? 0 : 128 + signal), "\(tty.screen)")
        #expect(tty.wait { _ in FileManager.default.fileExists(atPath: "\(dir)/after") })
        let before = try String(contentsOfFile: "\(dir)/before", encoding: .utf8)
        let after = try String(contentsOfFile: "\(dir)/after", encoding: .utf8)
        #expect(!before.isEmpty && before == after, "before:\n\(before)\nafter:\n\(after)")
        // The normal screen is back: the shell's own line shows, the list is gone.
        #expect(!tty.screen.contains { $0.hasPrefix("Conversations") }, "\(tty.screen)")
    }
}

/// A chat killed with kill -9 while its message waits offline loses nothing: the message
/// is in the outbox, a later flush delivers it once, and the next chat shows it once.
@Suite(.harness)
struct ChatKillTests {
    @Test func aMessageWrittenOfflineOutlivesAKillAndGoesOnce() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "hi alice"]).code == 0)
        let port = server.port
        let tty = try TerminalSession(alice, ["chat", bob.email])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.contains("hi alice") } && s.last == ">" }, "\(tty.screen)")
        server.stop()
        tty.send("kept through a kill", literal: true)
        tty.send("Enter")
        #expect(tty.wait { s in s.contains { $0.contains("You: kept through a kill  sending…") } }, "\(tty.screen)")
        let pid = try #require(tty.childPid)
        kill(pid, SIGKILL)
        #expect(tty.exitCode() == 128 + SIGKILL, "\(tty.screen)")
        #expect(try alice.outboxEntries().map(\.text) == ["kept through a kill"])

        let back = try TestServer(directory: server.directory, port: port)
        defer { back.stop() }
        #expect(try alice.run(["queue", "flush", "--now"]).code == 0)
        #expect(try alice.run(["queue", "flush", "--now"]).code == 0, "a second flush has nothing to send")
        #expect(try bob.serverMessages().map(\.text) == ["hi alice", "kept through a kill"])
        let again = try TerminalSession(alice, ["chat", bob.email])
        defer { again.close() }
        #expect(again.wait { s in s.contains { $0.hasSuffix("You: kept through a kill  ✓") } }, "\(again.screen)")
        #expect(again.screen.filter { $0.contains("kept through a kill") }.count == 1, "shown once: \(again.screen)")
    }
}

/// Started while nexusd is away, chat lists and opens what the cache holds, under the banner.
@Suite(.harness)
struct ChatOfflineTests {
    @Test func cachedConversationsOpenWithTheServerAway() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "from the cache"]).code == 0)
        #expect(try alice.run(["history", bob.email]).code == 0)
        server.stop()
        let tty = try TerminalSession(alice, ["chat"])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.contains("Bob") } && s.contains { $0.contains("offline — ") } }, "\(tty.screen)")
        tty.send("Enter")
        #expect(tty.wait { s in s.first?.hasPrefix("Bob") == true && s.contains { $0.hasSuffix(" from the cache") } }, "\(tty.screen)")
    }
}

/// NO_COLOR: not one colour or weight, only the resets each row ends with; without it,
/// names are bold.
@Suite(.harness)
struct ChatColourTests {
    @Test func noColorMeansNoColour() throws {
        let server = try TestServer()
        defer { server.stop() }
        var (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "hello"]).code == 0)
        for noColor in [true, false] {
            alice.noColor = noColor
            let raw = try makeTempDir("colour") + "/pane"
            let tty = try TerminalSession(alice, ["chat", bob.email])
            defer { tty.close() }
            try tty.record(to: raw)
            tty.send("C-l")
            #expect(tty.wait { s in s.contains { $0.hasSuffix(" hello") } }, "\(tty.screen)")
            let written = (try? String(contentsOfFile: raw, encoding: .utf8)) ?? ""
            let styled = ["\u{1B}[1m", "\u{1B}[2m", "\u{1B}[31m", "\u{1B}[32m", "\u{1B}[33m", "\u{1B}[36m"].filter(written.contains)
            #expect(noColor ? styled.isEmpty : styled.contains("\u{1B}[1m"), "NO_COLOR \(noColor): \(styled)")
            tty.close()
        }
    }
}

/// Ctrl-Z gives the terminal back to the shell as it was; `fg` draws the screen again.
@Suite(.harness)
struct ChatSuspendTests {
    @Test func ctrlZSuspendsAndFgRedraws() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, _) = try server.pair()
        let dir = try makeTempDir("stty")
        // An interactive shell, so there is job control for Ctrl-Z and fg.
        let tty = try TerminalSession(alice, shell: "PS1='ready$ ' exec bash --norc --noprofile -i")
        defer { tty.close() }
        #expect(tty.wait { $0.last?.hasPrefix("ready$") == true }, "\(tty.screen)")
        tty.send("stty -a > \(dir)/before; " + TerminalSession.command(["chat"]), literal: true)
        tty.send("Enter")
        #expect(tty.wait { $0.first?.hasPrefix("Conversations") == true }, "\(tty.screen)")
        tty.send("C-z")
        #expect(tty.wait { s in s.contains { $0.contains("Stopped") } && s.last?.hasPrefix("ready$") == true }, "\(tty.screen)")
        tty.send("stty -a > \(dir)/stopped; fg", literal: true)
        tty.send("Enter")
        #expect(tty.wait { $0.first?.hasPrefix("Conversations") == true && $0.last?.hasPrefix("↑↓ move") == true }, "\(tty.screen)")
        tty.send("q")
        #expect(tty.wait { $0.last?.hasPrefix("ready$") == true && !$0.contains { $0.hasPrefix("Conversations") } }, "\(tty.screen)")
        tty.send("stty -a > \(dir)/after.part && mv \(dir)/after.part \(dir)/after", literal: true)
        tty.send("Enter")
        #expect(tty.wait { _ in FileManager.default.fileExists(atPath: "\(dir)/after") })
        let before = try String(contentsOfFile: "\(dir)/before", encoding: .utf8)
        #expect(!before.isEmpty)
        #expect(try String(contentsOfFile: "\(dir)/stopped", encoding: .utf8) == before)
        #expect(try String(contentsOfFile: "\(dir)/after", encoding: .utf8) == before)
    }
}
