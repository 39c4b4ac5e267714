import Foundation
import Testing

/// `mute` and `unmute`: queued like a send when the server is away, kept on the server for
/// the account, shown by `convos`, and followed at once by a running `tail -f --notify` of
/// another device of the same account (a real terminal, every byte recorded).
@Suite(.harness)
struct MuteTests {
    @Test func aMuteQueuedOfflineGoesInOrderAndConvosShowsIt() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try bob.run(["send", alice.email, "hi"]).code == 0)
        let id = try #require(((try alice.run(["convos", "--json"]).json() as? [String: Any])?["conversations"] as? [[String: Any]])?.first?["id"] as? Int)

        var away = alice
        away.server = "http://127.0.0.1:1"
        let queued = try away.run(["mute", String(id), "--for", "8h"])
        #expect(queued.code == 75, "\(queued.err)")
        #expect(queued.out.hasPrefix("queued mute of \(id) "), "\(queued.out)")
        #expect(try alice.run(["queue"]).out.contains("mute until"), "the queue says what waits")
        // Past the backoff its failed try set.
        let flushed = try alice.run(["queue", "flush", "--now"])
        #expect(flushed.code == 0, "\(flushed.err)")
        #expect(try alice.run(["queue", "--json"]).out.contains("\"kind\":\"mute\"") == false, "delivered, so no longer queued")

        let row = try alice.run(["convos"]).lines.first { $0.hasPrefix("\(id) ") } ?? ""
        #expect(row.contains("Bob 🔕"), "\(row)")
        let listed = try alice.run(["convos", "--json"]).json() as? [String: Any]
        let mutes = listed?["mutes"] as? [[String: Any]]
        #expect(mutes?.first?["conversationId"] as? Int == id && mutes?.first?["until"] is String, "\(String(describing: listed))")
        let bobs = try bob.run(["convos", "--json"]).json() as? [String: Any]
        #expect(bobs != nil && bobs?["mutes"] == nil, "alice's mute is hers alone")

        let unmuted = try alice.run(["unmute", bob.email])
        #expect(unmuted.code == 0 && unmuted.out == "Unmuted \(id).\n", "\(unmuted.out)\(unmuted.err)")
        let again = try alice.run(["unmute", String(id), "--json"])
        #expect(again.code == 0 && again.out.contains("\"status\":\"unchanged\""), "\(again.out)")
        #expect(!(try alice.run(["convos"]).out.contains("🔕")))

        // Words that can't be right fail at once and queue nothing.
        for bad in [["--for", "soon"], ["--until", "2001-01-01"], ["--for", "1h", "--until", "2099-01-01"]] {
            let refused = try alice.run(["mute", String(id)] + bad)
            #expect(refused.code == 2, "\(bad): \(refused.err)")
        }
        #expect(try alice.run(["queue", "--json"]).out.contains("mute") == false)
    }

    @Test func aRunningTailHearsOfAMuteFromAnotherDeviceAndGoesQuiet() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        #expect(try bob.run(["send", alice.email, "hello"]).code == 0)
        #expect(try carol.run(["send", alice.email, "hey"]).code == 0)
        let raw = try makeTempDir("mute") + "/pane"
        let tty = try TerminalSession(alice, ["tail", "-f", "--notify", "--notify-method", "osc777"])
        defer { tty.close() }
        try tty.record(to: raw)
        #expect(tty.wait { s in s.contains { $0.contains("hey") } }, "\(tty.screen)")

        let phone = User(copying: alice, home: try makeTempDir("alice-phone"))
        #expect(try phone.run(["login", alice.email, "--password-stdin"], stdin: "password123\n").code == 0)
        #expect(try phone.run(["mute", bob.email]).code == 0)
        // Committed after the mute: the tail has the mute by the time it has these.
        #expect(try bob.run(["send", alice.email, "quiet please"]).code == 0)
        #expect(try carol.run(["send", alice.email, "still loud"]).code == 0)
        #expect(waitFor { written(raw).contains("\u{1B}]777;notify;Carol;still loud\u{1B}\\") }, "\(written(raw).debugDescription)")
        #expect(tty.wait { s in s.contains { $0.contains("quiet please") } }, "\(tty.screen)")
        #expect(!written(raw).contains(";Bob;"), "a muted conversation notified: \(written(raw).debugDescription)")

        #expect(try phone.run(["unmute", bob.email]).code == 0)
        #expect(try bob.run(["send", alice.email, "back"]).code == 0)
        #expect(waitFor { written(raw).contains("\u{1B}]777;notify;Bob;back\u{1B}\\") }, "\(written(raw).debugDescription)")
    }

    /// chat's list marks a muted conversation, and follows a mute made elsewhere while open.
    @Test func chatsListMarksMutedConversationsAsTheyChange() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        #expect(try bob.run(["send", alice.email, "hello"]).code == 0)
        #expect(try carol.run(["send", alice.email, "hey"]).code == 0)
        #expect(try alice.run(["mute", carol.email]).code == 0)
        let tty = try TerminalSession(alice, ["chat"])
        defer { tty.close() }
        #expect(tty.wait { s in s.contains { $0.contains("Carol 🔕") } && s.contains { $0.contains("Bob") && !$0.contains("🔕") } }, "\(tty.screen)")
        #expect(try alice.run(["mute", bob.email, "--for", "1h"]).code == 0)
        #expect(tty.wait { s in s.contains { $0.contains("Bob 🔕") } }, "\(tty.screen)")
        #expect(try alice.run(["unmute", carol.email]).code == 0)
        #expect(tty.wait { s in s.contains { $0.contains("Carol") && !$0.contains("🔕") } }, "\(tty.screen)")
    }
}
