import Foundation
import NexusCore
import Testing

/// Presence follows connections: a held `tail -f` keeps its user online, and
/// when it ends they go offline, at once on a clean exit and within the 5 s grace when
/// killed; presence changes in `tail -f --presence`; the chat header; `convos -f`.
///
/// nexusd's clock is moved 2 minutes ahead after registering, so the requests made until
/// then (one-off requests keep a user online for 60 s) are stale and only the live
/// clients count.
@Suite(.harness)
struct PresenceTests {
    struct Setup {
        let server: TestServer
        let alice: User
        let bob: User
        let clockFile: String
    }

    private func setup(database: String? = nil) throws -> Setup {
        let directory = try makeTempDir("presence")
        let clockFile = directory + "/clock-offset"
        try "0".write(toFile: clockFile, atomically: true, encoding: .utf8)
        let server = try TestServer(directory: directory, database: database, extraArguments: ["--clock-offset-file", clockFile])
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["new", bob.email]).code == 0)
        try "120".write(toFile: clockFile, atomically: true, encoding: .utf8)
        return Setup(server: server, alice: alice, bob: bob, clockFile: clockFile)
    }

    /// Whether `viewer` sees `email` online, as `users --json` says.
    private func online(_ email: String, seenBy viewer: User) throws -> Bool? {
        let users = try viewer.run(["users", "--json"]).decode([NexusCore.User].self)
        return users.first { $0.email == email }?.online
    }

    /// Seconds until `viewer` sees `email` in `state`, or nil after `timeout`.
    private func seconds(until state: Bool, _ email: String, seenBy viewer: User, timeout: Double) throws -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < timeout {
            if try online(email, seenBy: viewer) == state { return Date().timeIntervalSince(start) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    private func startTail(_ user: User, _ extra: [String] = []) throws -> (Process, LineCollector, LineCollector) {
        try user.spawn(["tail", "-f"] + extra)
    }

    @Test func aKilledTailIsOfflineForTheOthersWithinTheGrace() throws {
        let s = try setup()
        #expect(try online(s.bob.email, seenBy: s.alice) == false, "bob's requests before the clock moved are stale")
        let (tail, _, _) = try startTail(s.bob)
        defer { if tail.isRunning { tail.terminate() } }
        #expect(try seconds(until: true, s.bob.email, seenBy: s.alice, timeout: 5) != nil, "bob is online while his tail -f runs")
        // Held across several polls and renewals, still online.
        Thread.sleep(forTimeInterval: 2)
        #expect(try online(s.bob.email, seenBy: s.alice) == true)

        kill(tail.processIdentifier, SIGKILL)
        tail.waitUntilExit()
        let took = try seconds(until: false, s.bob.email, seenBy: s.alice, timeout: 10)
        #expect(took != nil && took! < 7, "offline \(took.map { "after \($0) s" } ?? "not within 10 s"), expected within 7 s")
        let users = try s.alice.run(["users", "--json"]).decode([NexusCore.User].self)
        #expect(users.first { $0.email == s.bob.email }?.lastSeenAt != nil, "last seen is kept")
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aCleanExitIsOfflineAtOnce(signal: Int32) throws {
        let s = try setup()
        let (tail, _, _) = try startTail(s.bob)
        defer { if tail.isRunning { tail.terminate() } }
        #expect(try seconds(until: true, s.bob.email, seenBy: s.alice, timeout: 5) != nil)
        Thread.sleep(forTimeInterval: 1)
        kill(tail.processIdentifier, signal)
        tail.waitUntilExit()
        #expect(tail.terminationReason == .uncaughtSignal && tail.terminationStatus == signal, "ended by the signal, as before")
        // Well under the 5 s grace: the tail told the server on its way out.
        let took = try seconds(until: false, s.bob.email, seenBy: s.alice, timeout: 8)
        #expect(took != nil && took! < 1.5, "offline \(took.map { "after \($0) s" } ?? "not within 8 s"), expected at once")
    }

    @Test func sendEachLineSaysGoodbyeAtTheEndOfItsInput() throws {
        let s = try setup()
        let sent = try s.bob.run(["send", s.alice.email, "--each-line"], stdin: "one\ntwo\n")
        #expect(sent.code == 0, "\(sent.err)")
        // Its requests held a 60 s lease, which its goodbye ended.
        #expect(try online(s.bob.email, seenBy: s.alice) == false)
        // A one-off command moves only his last seen: one command is no open chat.
        #expect(try s.bob.run(["send", s.alice.email, "three"]).code == 0)
        #expect(try online(s.bob.email, seenBy: s.alice) == false)
    }

    private struct PresenceJSON: Decodable {
        var type: String
        var userId: Int64?
        var user: String?
        var online: Bool?
        var lastSeenAt: Timestamp?
    }

    @Test func tailPresencePrintsComingAndGoingOnlyWhenAsked() throws {
        let s = try setup()
        let (watch, out, _) = try startTail(s.alice, ["--presence", "--json"])
        let (plain, plainOut, _) = try startTail(s.alice, ["--json", "--cursor", "plain"])
        let (text, textOut, _) = try startTail(s.alice, ["--presence", "--cursor", "text"])
        defer { for p in [watch, plain, text] where p.isRunning { p.terminate() } }
        Thread.sleep(forTimeInterval: 1)

        let (bobTail, _, _) = try startTail(s.bob)
        func presence() -> [PresenceJSON] { decodeLines(out.text, as: PresenceJSON.self).filter { $0.type == "presence" } }
        #expect(out.wait(timeout: 5) { _ in presence().contains { $0.online == true } }, "\(out.text)")
        kill(bobTail.processIdentifier, SIGTERM)
        bobTail.waitUntilExit()
        #expect(out.wait(timeout: 5) { _ in presence().contains { $0.online == false } }, "\(out.text)")
        let events = presence()
        #expect(events.map(\.online) == [true, false], "\(out.text)")
        #expect(events.allSatisfy { $0.user == s.bob.email && $0.userId != nil })
        #expect(events.last?.lastSeenAt != nil)
        #expect(textOut.wait(timeout: 5) { $0.contains { $0.hasSuffix("Bob went offline") } }, "\(textOut.text)")
        #expect(textOut.lines.contains { $0.hasSuffix("Bob is online") })

        // Without --presence, scripts see no new line types.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(!plainOut.text.contains("\"presence\""), "\(plainOut.text)")
    }

    /// `args` run on a pseudo-terminal (util-linux's `script`), as a person sees them.
    private func onTerminal(_ user: User, _ args: [String]) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = ([Binaries.nexusctl] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        process.arguments = ["-qfec", command.joined(separator: " "), "/dev/null"]
        process.environment = user.environment
        let r = try runToEnd(process)
        return r.out.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
    }

    @Test func directConversationsOpenWithTheOtherPersonsStateOnATerminal() throws {
        let s = try setup()
        #expect(try s.alice.run(["send", s.bob.email, "hi"]).code == 0)
        let offline = try onTerminal(s.alice, ["tail", s.bob.email])
        let header = offline.first ?? ""
        #expect(header == "Bob · Offline" || header.hasPrefix("Bob · Last seen "), "\(offline)")
        #expect(offline.dropFirst().first?.contains("You: hi") == true, "\(offline)")

        let (tail, _, _) = try startTail(s.bob)
        defer { if tail.isRunning { tail.terminate() } }
        #expect(try seconds(until: true, s.bob.email, seenBy: s.alice, timeout: 5) != nil)
        #expect(try onTerminal(s.alice, ["tail", s.bob.email]).first == "Bob · Online")
        #expect(try onTerminal(s.alice, ["history", s.bob.email]).first == "Bob · Online")
        // Not for all conversations at once, not in JSON, and not for a program reading the text.
        #expect(try onTerminal(s.alice, ["tail"]).first?.contains("You: hi") == true)
        #expect(try s.alice.run(["tail", s.bob.email, "--json"]).lines.allSatisfy { $0.hasPrefix("{") })
        #expect(try s.alice.run(["history", s.bob.email, "--json"]).decode(HistoryPageJSON.self).messages.count == 1)
        #expect(try s.alice.run(["tail", s.bob.email]).lines.first?.contains("You: hi") == true)
    }

    private struct HistoryPageJSON: Decodable { var messages: [TailLineJSON] }

    private struct ConvosLineJSON: Decodable {
        var type: String
        var id: Int64?
        var lastSeq: Int64?
        var unreadCount: Int?
        var title: String?
        var online: Bool?
        var user: String?
    }

    @Test func convosFollowPrintsChangesAsNDJSON() throws {
        let s = try setup()
        let (follow, out, err) = try s.alice.spawn(["convos", "-f", "--json"])
        defer { if follow.isRunning { follow.terminate() } }
        func lines() -> [ConvosLineJSON] { decodeLines(out.text, as: ConvosLineJSON.self) }
        #expect(out.wait(timeout: 5) { _ in lines().contains { $0.type == "conversation" && $0.title == "Bob" } }, "\(out.text)\(err.text)")
        #expect(try s.bob.run(["send", s.alice.email, "news"]).code == 0)
        #expect(out.wait(timeout: 10) { _ in lines().contains { $0.type == "conversation" && $0.lastSeq == 1 && $0.unreadCount == 1 } },
                "\(out.text)\(err.text)")
        // bob's send was a one-off request, which makes nobody online; his tail -f does.
        #expect(!lines().contains { $0.type == "presence" && $0.online == true && $0.user == s.bob.email }, "\(out.text)")
        let (tail, _, _) = try s.bob.spawn(["tail", "-f"])
        defer { if tail.isRunning { tail.terminate() } }
        #expect(out.wait(timeout: 5) { _ in lines().contains { $0.type == "presence" && $0.online == true && $0.user == s.bob.email } },
                "\(out.text)")
        kill(follow.processIdentifier, SIGTERM)
        follow.waitUntilExit()
        #expect(follow.terminationReason == .uncaughtSignal && follow.terminationStatus == SIGTERM)
    }

    @Test func convosFollowToAPipePrintsTheListAgainOnEachChange() throws {
        let s = try setup()
        let (follow, out, _) = try s.alice.spawn(["convos", "-f"])
        defer { if follow.isRunning { follow.terminate() } }
        #expect(out.wait(timeout: 5) { $0.contains { $0.contains("Bob") } })
        #expect(try s.bob.run(["send", s.alice.email, "ping"]).code == 0)
        #expect(out.wait(timeout: 10) { $0.contains { $0.contains("ping") } }, "\(out.text)")
        #expect(out.lines.filter { $0.hasPrefix("ID") }.count >= 2, "the list again, whole: \(out.text)")
    }
}

/// The same across two replicas of one PostgreSQL database: a tail held on replica A, its
/// user seen through replica B.
@Suite(.enabled(if: Backend.postgres != nil, "needs PostgreSQL: run under Tests/scripts/with-postgres.sh"), .harness)
struct PresenceReplicaTests {
    @Test func aTailHeldOnOneReplicaIsSeenOnTheOtherAndEndsThere() throws {
        let directory = try makeTempDir("presence-replicas")
        let clockFile = directory + "/clock-offset"
        try "0".write(toFile: clockFile, atomically: true, encoding: .utf8)
        let a = try TestServer(directory: directory, extraArguments: ["--clock-offset-file", clockFile])
        let b = try TestServer(database: a.databasePath, extraArguments: ["--clock-offset-file", clockFile])
        let (alice, bobOnA) = try a.pair()
        #expect(try alice.run(["new", bobOnA.email]).code == 0)
        try "120".write(toFile: clockFile, atomically: true, encoding: .utf8)
        let aliceOnB = alice.withServer(b.url)

        func online() throws -> Bool? {
            try aliceOnB.run(["users", "--json"]).decode([NexusCore.User].self).first { $0.email == bobOnA.email }?.online
        }
        func seconds(until state: Bool, timeout: Double) throws -> Double? {
            let start = Date()
            while Date().timeIntervalSince(start) < timeout {
                if try online() == state { return Date().timeIntervalSince(start) }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return nil
        }
        #expect(try online() == false)

        // Killed: offline on B within the grace.
        let (tail, _, _) = try bobOnA.spawn(["tail", "-f"])
        defer { if tail.isRunning { tail.terminate() } }
        #expect(try seconds(until: true, timeout: 5) != nil, "B sees the tail held on A")
        Thread.sleep(forTimeInterval: 2)
        #expect(try online() == true, "still online on B: A renews the lease")
        kill(tail.processIdentifier, SIGKILL)
        tail.waitUntilExit()
        let took = try seconds(until: false, timeout: 10)
        #expect(took != nil && took! < 7, "offline on B \(took.map { "after \($0) s" } ?? "not within 10 s")")

        // A clean exit on A: offline on B at once.
        let (again, _, _) = try bobOnA.spawn(["tail", "-f"])
        defer { if again.isRunning { again.terminate() } }
        #expect(try seconds(until: true, timeout: 5) != nil)
        kill(again.processIdentifier, SIGTERM)
        again.waitUntilExit()
        let clean = try seconds(until: false, timeout: 8)
        #expect(clean != nil && clean! < 2, "offline on B \(clean.map { "after \($0) s" } ?? "not within 8 s") after a clean exit")
    }
}
