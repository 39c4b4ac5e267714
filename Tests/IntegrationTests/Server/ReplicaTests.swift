import Foundation
import NexusCore
import Testing

/// Several nexusd replicas on one PostgreSQL database. These run in the PostgreSQL pass
/// of `make test` (Tests/scripts/with-postgres.sh); SQLite is a single process.
@Suite(.enabled(if: Backend.postgres != nil, "needs PostgreSQL: run under Tests/scripts/with-postgres.sh"), .harness)
struct ReplicaTests {
    /// Two replicas of one database.
    private func replicas() throws -> (TestServer, TestServer) {
        let a = try TestServer()
        let b = try TestServer(database: a.databasePath)
        return (a, b)
    }

    /// The messages a `tail -f --json` printed (it prints receipts too), in the order printed.
    private func messages(_ out: LineCollector) -> [TailLineJSON] {
        decodeLines(out.text, as: TailLineJSON.self).filter { $0.type == "message" }
    }

    private func printed(_ out: LineCollector) -> [(conversation: Int, seq: Int)] {
        messages(out).compactMap { line in line.seq.map { (Int(line.conversationId), Int($0)) } }
    }

    /// Exactly once, in seq order, with no gaps, for each conversation; `expected` in all.
    private func checkExactlyOnceInOrder(_ seen: [(conversation: Int, seq: Int)], expected: Int, _ who: String) {
        #expect(seen.count == expected, "\(who) printed \(seen.count) messages, expected \(expected)")
        var next: [Int: Int] = [:]
        for (conversation, seq) in seen {
            let want = next[conversation, default: 1]
            if seq != want {
                Issue.record("\(who): conversation \(conversation) printed seq \(seq) where \(want) was next")
                return
            }
            next[conversation] = seq + 1
        }
    }

    @Test func replicasStartingTogetherOnANewDatabaseMigrateItOnce() throws {
        let database = try Backend.database(for: try makeTempDir("race"))
        let started = Collected<String>()
        let servers = Collected<TestServer>()
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            do {
                servers.add(try TestServer(database: database))
            } catch {
                started.add("\(error)")
            }
        }
        #expect(started.all.isEmpty, "\(started.all)")
        let psql = ProcessInfo.processInfo.environment["NEXUS_TEST_PSQL"] ?? "psql"
        let versions = try runTool(psql, ["-At", database, "-c", "SELECT version FROM schema_migrations ORDER BY version"])
        #expect(versions.code == 0, "\(versions.err)")
        // One row per migration (PostgresSchema.migrations: 15, counted again when one is added), each applied once.
        #expect(versions.out.split(separator: "\n") == (1...15).map { Substring(String($0)) })
        // Each of them works on the one schema.
        for server in servers.all {
            let user = try User("u\(server.port)", server: server.url)
            try user.register()
        }
    }

    @Test func eightSendersAcrossTwoReplicasEveryTailSeesEverythingOnceInOrder() throws {
        let (a, b) = try replicas()
        let people = try ["alice", "bob", "carol", "dave"].map { try User($0, server: a.url) }
        for p in people { try p.register() }
        let alice = people[0]
        var groups: [Int64] = []
        for name in ["one", "two"] {
            let created = try alice.run(["new", people[1].email, people[2].email, people[3].email, "--name", name, "--json"])
            groups.append(try created.decode(ConversationResponse.self).conversation.id)
        }

        // One tail per person, two on each replica, started before anything is sent.
        var tails: [(Process, LineCollector, LineCollector, String)] = []
        for (i, p) in people.enumerated() {
            let replica = i % 2 == 0 ? a : b
            let (process, out, err) = try p.withServer(replica.url).spawn(["tail", "-f", "--json"])
            tails.append((process, out, err, "\(p.email) on replica \(i % 2 == 0 ? "A" : "B")"))
        }
        defer { for t in tails { t.0.terminate() } }
        Thread.sleep(forTimeInterval: 0.5)

        // Eight senders, two per person, half on each replica: single sends and batches.
        let total = 10_000, perSender = total / 8
        let failures = Collected<String>()
        let shared = Unchecked((people: people, urls: [a.url, b.url], groups: groups))
        DispatchQueue.concurrentPerform(iterations: 8) { sender in
            let (people, urls, groups) = shared.value
            do {
                let api = try people[sender % 4].withServer(urls[sender % 2]).api()
                var i = 0
                while i < perSender {
                    let conversation = groups[(sender + i) % 2]
                    if sender < 4 {
                        _ = try api.send(conversationId: conversation, localId: "s\(sender)-\(i)", text: "m \(sender) \(i)")
                        i += 1
                    } else {
                        let count = min(25, perSender - i)
                        let items = (i..<(i + count)).map {
                            BatchItem(conversationId: groups[(sender + $0) % 2], localId: "s\(sender)-\($0)", text: "m \(sender) \($0)")
                        }
                        let results = try api.sendBatch(items)
                        if results.contains(where: { $0.status != .created }) { failures.add("batch of sender \(sender): \(results)") }
                        i += count
                    }
                }
            } catch {
                failures.add("sender \(sender): \(error)")
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")

        for (_, out, err, who) in tails {
            let done = out.wait(timeout: 120, interval: 0.5) { _ in messages(out).count >= total }
            #expect(done, "\(who) printed \(messages(out).count) of \(total): \(err.text.suffix(500))")
        }
        Thread.sleep(forTimeInterval: 0.5)  // anything extra would arrive now
        for (_, out, _, who) in tails { checkExactlyOnceInOrder(printed(out), expected: total, who) }

        // The conversations' seqs, as stored, are 1…n with n adding up to every message.
        let api = try alice.api()
        let lastSeqs = try groups.map { try api.conversation($0).lastSeq }
        #expect(lastSeqs.reduce(0, +) == Int64(total))
        for (group, last) in zip(groups, lastSeqs) {
            var seqs: [Int64] = []
            var before: NexusAPI.Anchor? = nil
            while true {
                let page = try api.messages(conversationId: group, before: before, limit: 500)
                seqs = page.messages.map(\.seq) + seqs
                guard page.hasMore, let oldest = page.messages.first?.seq else { break }
                before = .seq(oldest)
            }
            #expect(seqs == Array(1...last), "conversation \(group) has gaps or repeats")
        }
    }

    @Test func killingTheReplicaATailUsesLosesAndRepeatsNothing() throws {
        let (a, b) = try replicas()
        let alice = try User("alice", server: "\(a.url),\(b.url)")
        let bob = try User("bob", server: "\(a.url),\(b.url)")
        try alice.register()
        try bob.register()
        #expect(try alice.run(["send", bob.email, "m 0"]).code == 0)

        // Bob's tail talks to A first: the first of its two servers.
        let (tail, out, err) = try bob.spawn(["tail", "-f", "--json"])
        defer { tail.terminate() }
        #expect(out.wait { $0.count == 1 }, "\(err.text)")

        let total = 60
        let sent = Collected<String>()
        let group = DispatchGroup()
        // The sender lists the replicas the other way round, so it keeps sending through B.
        let shared = Unchecked((alice: alice.withServer("\(b.url),\(a.url)"), bob: bob.email))
        DispatchQueue.global().async(group: group) {
            let (alice, bob) = shared.value
            for i in 1..<total {
                let r = try? alice.run(["send", bob, "m \(i)"])
                if r?.code != 0 { sent.add("send \(i): \(r?.err ?? "did not run")") }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        #expect(out.wait { _ in messages(out).count >= 10 }, "\(err.text)")
        a.kill9()
        group.wait()
        #expect(sent.all.isEmpty, "\(sent.all)")
        #expect(out.wait(timeout: 30) { _ in messages(out).count >= total }, "after the kill the tail printed \(messages(out).count) of \(total): \(err.text)")
        Thread.sleep(forTimeInterval: 0.5)
        let texts = messages(out).compactMap(\.text)
        #expect(texts == (0..<total).map { "m \($0)" })
    }

    @Test func typingReceiptsAndLogoutReachTheOtherReplica() throws {
        let (a, b) = try replicas()
        let alice = try User("alice", server: a.url)
        let bob = try User("bob", server: b.url)
        try alice.register()
        try bob.register()
        #expect(try alice.run(["send", bob.email, "ping"]).code == 0)
        let (tail, out, err) = try alice.spawn(["tail", "-f", "--json", "-n", "0"])
        defer { tail.terminate() }
        Thread.sleep(forTimeInterval: 0.3)

        // Typing lives in each replica's memory: it crosses over on the bus.
        #expect(try bob.run(["typing", alice.email]).code == 0)
        #expect(out.wait { _ in decodeLines(out.text, as: TailLineJSON.self).contains { $0.type == "typing" } }, "\(out.text) \(err.text)")
        #expect(try bob.run(["read", alice.email]).code == 0)
        #expect(out.wait { _ in decodeLines(out.text, as: TailLineJSON.self).contains { $0.type == "receipt" && $0.kind == "read" } })

        // A logout through B shuts the token out of A, although A has just seen it work: as
        // the logout's note arrives, within SessionCache's bound (ReplicaSessionCacheTests).
        let viaA = NexusAPI(address: try ServerAddress(parsing: a.url), token: try bob.api().token)
        #expect(try viaA.me().email == bob.email)
        #expect(try bob.run(["logout"]).code == 0)
        let loggedOut = Date()
        while (try? viaA.me()) != nil, Date().timeIntervalSince(loggedOut) < 4 { Thread.sleep(forTimeInterval: 0.02) }
        #expect(throws: APIError.self) { try viaA.me() }
        #expect(Date().timeIntervalSince(loggedOut) <= ReplicaSessionCacheTests.bound)
    }

    @Test func theSameLocalIdSentToBothReplicasAtOnceMakesOneMessage() throws {
        let (a, b) = try replicas()
        let alice = try User("alice", server: a.url)
        let bob = try User("bob", server: a.url)
        try alice.register()
        try bob.register()
        let created = try alice.run(["new", bob.email, "--json"])
        let conversation = try created.decode(ConversationResponse.self).conversation.id
        let viaA = try alice.api()
        let viaB = try alice.withServer(b.url).api()
        let apis = Unchecked([viaA, viaB])

        let rounds = 50
        let failures = Collected<String>()
        for round in 0..<rounds {
            let answers = Collected<SendResponse>()
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                do {
                    let api = apis.value[side]
                    answers.add(try api.send(conversationId: conversation, localId: "same-\(round)", text: "round \(round)"))
                } catch {
                    failures.add("round \(round), replica \(side == 0 ? "A" : "B"): \(error)")
                }
            }
            let got = answers.all
            if got.count == 2 {
                #expect(got[0].message.id == got[1].message.id, "round \(round) made two messages")
                #expect(got.filter { !$0.duplicate }.count == 1, "round \(round): \(got.map(\.duplicate))")
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let page = try viaA.messages(conversationId: conversation, limit: 500)
        #expect(page.messages.map(\.seq) == Array(1...Int64(rounds)))
        #expect(page.messages.map(\.localId) == (0..<rounds).map { "same-\($0)" })
    }
}

/// Hands values the tests share with worker threads, which use them one at a time each.
private final class Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Things gathered from several threads.
private final class Collected<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func add(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
}

extension User {
    /// The same person and home, talking to `server`.
    func withServer(_ server: String) -> User {
        var copy = self
        copy.server = server
        return copy
    }
}
