import Foundation
import Testing

/// `chat` gives the terminal back as it found it: `stty -a` reads the same before it and
/// after it, whether it was quit or ended by SIGTERM or SIGHUP.
@Suite(.harness)
struct ChatTerminalTests {
    @Test(arguments: [0, SIGTERM, SIGHUP])
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
        if signal == 0 {
            tty.send("q")
        } else {
            let pid = try #require(tty.childPid)
            kill(pid, signal)
        }
        let code = tty.exitCode()
        #expect(code == (signal == 0 ? 0 : 128 + signal), "\(tty.screen)")
        #expect(tty.wait { _ in FileManager.default.fileExists(atPath: "\(dir)/after") })
        let before = try String(contentsOfFile: "\(dir)/before", encoding: .utf8)
        let after = try String(contentsOfFile: "\(dir)/after", encoding: .utf8)
        #expect(!before.isEmpty && before == after, "before:\n\(before)\nafter:\n\(after)")
        // The normal screen is back: the shell's own line shows, the list is gone.
        #expect(!tty.screen.contains { $0.hasPrefix("Conversations") }, "\(tty.screen)")
    }
}
