import Foundation
import Testing

/// `--session-max-age` counts from each session's login, whenever the limit was set: an
/// operator who adds it at a restart ends the sessions made before it too. nexusd's clock
/// is moved by --clock-offset-file, so no one waits minutes.
@Suite(.harness)
struct SessionMaxAgeTests {
    @Test func aMaxAgeSetAtARestartEndsTheSessionsMadeBeforeIt() throws {
        let clocked = try AccessTokenTests.ClockedServer()
        let before = clocked.server
        let (alice, _) = try before.pair()
        #expect(try alice.run(["convos"]).code == 0)
        before.stop()

        let restarted = try TestServer(
            directory: before.directory, port: before.port, database: before.databasePath,
            extraArguments: ["--clock-offset-file", clocked.clockFile, "--session-idle", "60s", "--session-max-age", "120s"])
        defer { restarted.stop() }
        // Logged in 130 to 445 s before: every one of these is past the 120 s.
        for seconds in [130, 145, 430, 445] {
            try AccessTokenTests.setSeconds(seconds, file: clocked.clockFile)
            let r = try alice.run(["convos"])
            #expect(r.code == 4 && r.err.contains("session expired"), "at \(seconds) s: \(r.code) \(r.err)")
        }
        // A new login (at 445 s) is let in, and ends 120 s later however much it is used.
        #expect(try alice.run(["login", alice.email, "--password-stdin"], stdin: "password123\n").code == 0)
        for seconds in [490, 530, 560] {
            try AccessTokenTests.setSeconds(seconds, file: clocked.clockFile)
            #expect(try alice.run(["convos"]).code == 0, "at \(seconds) s")
        }
        try AccessTokenTests.setSeconds(570, file: clocked.clockFile)
        let lapsed = try alice.run(["convos"])
        #expect(lapsed.code == 4 && lapsed.err.contains("session expired"), "\(lapsed.code) \(lapsed.err)")
    }
}
