import Foundation
import Testing

/// `tail -f --notify`: the terminal's own notification sequence and the bell, written to a
/// real terminal (tmux, every byte recorded), and a desktop notification through Debian's
/// notify-send to a notification service on a private session bus.
@Suite(.harness)
struct NotifyTests {
    private func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test func theTerminalsOwnSequenceOncePerMessageAndABurstAsOne() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "before the tail"]).code == 0)
        let raw = try makeTempDir("notify") + "/pane"
        let tty = try TerminalSession(alice, ["tail", "-f", "--notify", "--notify-method", "osc777"])
        defer { tty.close() }
        try tty.record(to: raw)
        #expect(tty.wait { s in s.contains { $0.contains("before the tail") } }, "\(tty.screen)")
        #expect(try alice.run(["send", bob.email, "mine"]).code == 0)
        // The text's own escape sequence is shown, not obeyed; only its first line is the body.
        #expect(try bob.run(["send", alice.email, "first \u{1B}]0;evil\u{07}\nsecond line"]).code == 0)
        #expect(waitFor { written(raw).contains("\u{1B}]777;notify;Bob;first \\e]0;evil\\a\u{1B}\\") }, "\(written(raw).debugDescription)")
        // Two more within 5 s of the first: held, then one notice with the count.
        #expect(try bob.run(["send", alice.email, "two"]).code == 0)
        #expect(try bob.run(["send", alice.email, "three"]).code == 0)
        #expect(tty.wait { s in s.contains { $0.contains("three") } }, "\(tty.screen)")
        #expect(count("\u{1B}]777;", in: written(raw)) == 1, "\(written(raw).debugDescription)")
        #expect(waitFor(timeout: 15) { written(raw).contains("\u{1B}]777;notify;Bob;three (+1 more)\u{1B}\\") }, "\(written(raw).debugDescription)")
        let all = written(raw)
        #expect(count("\u{1B}]777;", in: all) == 2, "\(all.debugDescription)")
        #expect(!all.contains("before the tail\u{1B}\\") && !all.contains(";mine"), "\(all.debugDescription)")
    }

    @Test func privateNoticesLeaveTheTextOutAndTheBellRings() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "hello"]).code == 0)
        let raw = try makeTempDir("notify") + "/pane"
        let tty = try TerminalSession(alice, ["tail", "-f", "--notify=private", "--notify-method", "osc9"])
        defer { tty.close() }
        try tty.record(to: raw)
        #expect(tty.wait { s in s.contains { $0.contains("hello") } }, "\(tty.screen)")
        #expect(try bob.run(["send", alice.email, "the code is 4711"]).code == 0)
        #expect(waitFor { written(raw).contains("\u{1B}]9;Nexus: New message from Bob\u{1B}\\") }, "\(written(raw).debugDescription)")
        #expect(!written(raw).contains("\u{1B}]9;Nexus: the code"))

        let bell = try TerminalSession(bob, ["tail", "-f", "--notify", "--notify-method", "bell"])
        defer { bell.close() }
        let rang = try makeTempDir("notify") + "/bell"
        try bell.record(to: rang)
        #expect(bell.wait { s in s.contains { $0.contains("the code is 4711") } }, "\(bell.screen)")
        #expect(try alice.run(["send", bob.email, "ding"]).code == 0)
        #expect(waitFor { self.count("\u{07}", in: written(rang)) == 1 }, "\(written(rang).debugDescription)")
        #expect(try bob.run(["send", alice.email, "my own"]).code == 0)
        #expect(bell.wait { s in s.contains { $0.contains("my own") } }, "\(bell.screen)")
        #expect(count("\u{07}", in: written(rang)) == 1, "\(written(rang).debugDescription)")
    }

    @Test func chatNotifiesOfOtherConversationsOnlyNotTheOneOnScreen() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        #expect(try bob.run(["send", alice.email, "hello"]).code == 0)
        #expect(try carol.run(["send", alice.email, "earlier"]).code == 0)
        let raw = try makeTempDir("notify") + "/pane"
        let tty = try TerminalSession(alice, ["chat", bob.email, "--notify", "--notify-method", "osc777"])
        defer { tty.close() }
        try tty.record(to: raw)
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" hello") } }, "\(tty.screen)")
        #expect(try bob.run(["send", alice.email, "on screen"]).code == 0)
        #expect(tty.wait { s in s.contains { $0.hasSuffix(" on screen") } }, "\(tty.screen)")
        #expect(try carol.run(["send", alice.email, "elsewhere"]).code == 0)
        #expect(waitFor { written(raw).contains("\u{1B}]777;notify;Carol;elsewhere\u{1B}\\") }, "\(written(raw).debugDescription)")
        #expect(count("\u{1B}]777;", in: written(raw)) == 1, "\(written(raw).debugDescription)")
    }

    @Test func aDesktopNotificationReachesTheSessionBus() throws {
        let python = Binaries.root + "/.build/test-venv/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "run Tests/scripts/test-deps.sh: it makes \(python) with dbus-next")
        let server = try TestServer()
        defer { server.stop() }
        let (person, bob) = try server.pair()
        var alice = person
        let dir = try makeTempDir("bus")
        let address = "unix:path=\(dir)/bus"
        let bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        bus.arguments = ["dbus-daemon", "--session", "--nofork", "--address=\(address)"]
        try launch(bus) { bus.standardOutput = FileHandle.nullDevice; bus.standardError = FileHandle.nullDevice }
        // SIGKILL: sent SIGTERM by Process.terminate(), both outlived the test.
        defer { kill(bus.processIdentifier, SIGKILL); _ = ends(bus, within: 10) }
        #expect(waitFor { FileManager.default.fileExists(atPath: dir + "/bus") })
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: python)
        listener.arguments = [Binaries.root + "/Tests/scripts/notifications-listener.py"]
        listener.environment = ["DBUS_SESSION_BUS_ADDRESS": address]
        let notices = LineCollector()
        try launch(listener, out: notices, err: nil)
        defer { kill(listener.processIdentifier, SIGKILL); _ = ends(listener, within: 10) }
        #expect(notices.wait { $0.contains("ready") }, "\(notices.text)")

        alice.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = address
        // auto: no terminal that shows its own, a session bus, notify-send on PATH.
        let (tail, out, err) = try alice.spawn(["tail", "-f", "--notify"])
        defer { tail.terminate() }
        #expect(try bob.run(["send", alice.email, "deploy done\nlog attached"]).code == 0)
        #expect(out.wait { $0.contains { $0.contains("deploy done") } }, "\(err.text)")
        #expect(notices.wait(timeout: 15) { $0.contains { $0.contains("\"summary\": \"Bob\"") && $0.contains("\"body\": \"deploy done\"") } }, "\(notices.text) \(err.text)")
        #expect(notices.lines.filter { $0.hasPrefix("{") }.count == 1, "\(notices.text)")
    }
}
