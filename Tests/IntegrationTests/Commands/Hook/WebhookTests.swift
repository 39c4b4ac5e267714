import Foundation
import NexusCore
import Testing

/// Webhooks with real processes: curl posting through an
/// incoming hook, and an outgoing hook delivering to a receiver the test runs, through
/// receiver failures and kill -9s of nexusd. On both backends; two replicas on PostgreSQL.
@Suite(.serialized, .harness)
struct WebhookTests {
    /// A replica killed mid-delivery leaves its lease (PostgreSQL) to run out: 4 s here, not the default 30 s.
    static let shortLease = ["NEXUSD_HOOK_LEASE_SECONDS": "4"]

    static let alertmanager = #"""
        {
          "version": "4",
          "groupKey": "{}:{alertname=~\"DiskFull|HighLoad\"}",
          "truncatedAlerts": 0,
          "status": "firing",
          "receiver": "nexus",
          "groupLabels": {},
          "commonLabels": {"job": "node"},
          "commonAnnotations": {},
          "externalURL": "http://alertmanager.example:9093",
          "alerts": [
            {
              "status": "firing",
              "labels": {"alertname": "DiskFull", "instance": "db1:9100", "job": "node", "severity": "critical"},
              "annotations": {"summary": "Disk /var is 95% full", "description": "Only 2.1 GiB left on /var."},
              "startsAt": "2026-11-23T13:40:00.123456789Z",
              "endsAt": "0001-01-01T00:00:00Z",
              "generatorURL": "http://prometheus.example:9090/graph?g0.expr=disk",
              "fingerprint": "a1b2c3d4e5f60718"
            },
            {
              "status": "resolved",
              "labels": {"alertname": "HighLoad", "instance": "web2:9100", "job": "node", "severity": "warning"},
              "annotations": {"summary": "Load above 8 for 10 minutes"},
              "startsAt": "2026-11-23T12:00:00Z",
              "endsAt": "2026-11-23T12:25:30.5Z",
              "generatorURL": "http://prometheus.example:9090/graph?g0.expr=load",
              "fingerprint": "0718a1b2c3d4e5f6"
            }
          ]
        }
        """#

    @Test func curlPostsThroughAnIncomingHookAsItsBot() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let created = try alice.run(["hook", "create", bob.email, "--name", "alerts"])
        #expect(created.code == 0, "\(created.err)")
        let url = created.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.hasPrefix(server.url + "/v1/hooks/in/nx_"), "\(url)")

        // curl -d sends a form type: its body is the text as it is.
        #expect(try curl(url, ["-d", "disk 95% full"]).status == 201)
        #expect(try curl(url, ["-H", "Content-Type: application/json", "-d", #"{"text": "deploy 1.2 done"}"#]).status == 201)
        let alerts = try curl(url, ["-H", "Content-Type: application/json", "--data-binary", Self.alertmanager])
        #expect(alerts.status == 201, "\(alerts.body)")
        // One key, one message, however often it is retried.
        let first = try curl(url, ["-H", "Idempotency-Key: backup-2026-11-23", "-d", "backup done"])
        let again = try curl(url, ["-H", "Idempotency-Key: backup-2026-11-23", "-d", "backup done"])
        #expect(first.status == 201)
        #expect(again.status == 200)
        #expect(again.body.contains(#""duplicate":true"#))
        let firstIds = try JSONDecoder().decode(IncomingHookResponse.self, from: Data(first.body.utf8)).messages.map(\.id)
        let againIds = try JSONDecoder().decode(IncomingHookResponse.self, from: Data(again.body.utf8)).messages.map(\.id)
        #expect(firstIds == againIds)
        // A JSON body of neither shape is refused with what would do.
        let wrong = try curl(url, ["-H", "Content-Type: application/json", "-d", #"{"message": "hi"}"#])
        #expect(wrong.status == 400)
        #expect(wrong.body.contains("\\\"text\\\"") || wrong.body.contains("text"))

        let page = try bob.run(["history", alice.email, "--json"]).decode(MessagesPage.self)
        // The bot's join is a membership line, as a person's is.
        #expect(page.messages.map(\.text) == [
            "hello", "Alice added alerts [bot]", "disk 95% full", "deploy 1.2 done",
            "FIRING: DiskFull on db1:9100 (critical)\nDisk /var is 95% full\nOnly 2.1 GiB left on /var.\nsince 2026-11-23 13:40 UTC",
            "RESOLVED: HighLoad on web2:9100 (warning)\nLoad above 8 for 10 minutes\n"
                + "fired 2026-11-23 12:00 UTC, resolved 2026-11-23 12:25 UTC (25 min)",
            "backup done",
        ])
        // Posted by the hook's bot, which people see by the hook's name.
        let hooks = try alice.run(["hook", "list", "--json"]).decode(HooksResponse.self).hooks
        let bot = try #require(hooks.first?.botUserId)
        #expect(page.messages[1].membership?.userIds == [bot])
        #expect(Set(page.messages.dropFirst(2).map(\.senderId)) == [bot])
        #expect(try bob.run(["history", alice.email]).out.contains("alerts [bot]: disk 95% full"))

        #expect(try alice.run(["hook", "revoke", "alerts"]).code == 0)
        let revoked = try curl(url, ["-d", "after revoke"])
        #expect(revoked.status == 404)
        #expect(try curl(server.url + "/v1/hooks/in/nx_guessed", ["-d", "x"]).status == 404)
        #expect(try alice.run(["hook", "list", "--json"]).decode(HooksResponse.self).hooks.isEmpty)
        #expect(try bob.run(["history", alice.email, "--json"]).decode(MessagesPage.self).messages.count == 7)
    }

    @Test func anIncomingHookIsRateLimitedWithRetryAfter() throws {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let url = try alice.run(["hook", "create", bob.email]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        var statuses: [Int] = []
        var retryAfter: String?
        for i in 1...30 {
            let r = try curl(url, ["-d", "post \(i)"])
            statuses.append(r.status)
            if r.status == 429 { retryAfter = retryAfter ?? r.headers["retry-after"] }
        }
        // A burst of 20, refilled at 1 a second: 30 posts in well under 10 s meet a 429.
        #expect(statuses.prefix(20).allSatisfy { $0 == 201 }, "\(statuses)")
        #expect(statuses.contains(429), "\(statuses)")
        #expect(retryAfter.flatMap(Int.init).map { $0 >= 1 } == true)
        let big = String(repeating: "x", count: Limits.maxTextBytes + 1)
        let tooBig = try curl(url, ["-H", "Content-Type: text/plain", "--data-binary", big])
        #expect([413, 429].contains(tooBig.status))
    }

    /// Test 5: 1,000 messages to a receiver that answers 500 to its first tries and is
    /// killed once, while nexusd is kill -9'd twice: every message arrives, every HMAC is
    /// valid, and a message that arrives twice does so with the same delivery id.
    @Test func anOutgoingHookDeliversEveryMessageThroughFailuresAndKills() throws {
        let directory = try makeTempDir("outgoing")
        var server = try TestServer(directory: directory, environment: Self.shortLease)
        let port = server.port
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let receiver = try WebhookReceiver(failFirst: 3)
        let created = try alice.run(["hook", "create", bob.email, "--url", receiver.url, "--name", "ci", "--json"])
        #expect(created.code == 0, "\(created.err)")
        let secret = try #require(try JSONSerialization.jsonObject(with: Data(created.out.utf8)) as? [String: Any])["secret"] as? String
        try #require(secret).write(toFile: receiver.secretFile, atomically: true, encoding: .utf8)

        let count = 1000
        let lines = (1...count).map { "m \($0)" }
        func deliveredTexts() -> Set<String> { Set(receiver.delivered.compactMap(\.text)) }
        #expect(try alice.run(["send", bob.email, "--each-line"], stdin: lines.prefix(500).joined(separator: "\n") + "\n").code == 0)

        #expect(receiver.wait(timeout: 60) { $0.filter { $0.status == 200 }.count >= 100 }, "nothing delivered")
        // The receiver's 500s are in the hook's record, with their status and latency.
        let early = try alice.run(["hook", "deliveries", "ci", "--limit", "1000", "--json"]).decode(HookDeliveriesResponse.self)
        #expect(early.attempts.contains { $0.status == 500 && $0.error == "HTTP 500" && $0.attempt >= 1 })
        #expect(early.attempts.contains { $0.status == 200 && $0.error == nil })
        #expect(try alice.run(["hook", "deliveries", "ci", "--limit", "1000"]).out.contains("HTTP 500"))
        server.kill9()
        server = try TestServer(directory: directory, port: port, database: server.databasePath, environment: Self.shortLease)
        #expect(try alice.run(["send", bob.email, "--each-line"], stdin: lines.dropFirst(500).joined(separator: "\n") + "\n").code == 0)

        #expect(receiver.wait(timeout: 120) { $0.filter { $0.status == 200 }.count >= 500 })
        receiver.kill9()
        Thread.sleep(forTimeInterval: 1)
        try receiver.start()
        #expect(receiver.wait(timeout: 120) { $0.filter { $0.status == 200 }.count >= 750 })
        server.kill9()
        server = try TestServer(directory: directory, port: port, database: server.databasePath, environment: Self.shortLease)

        let all = Set(lines)
        #expect(receiver.wait(timeout: 240) { _ in all.isSubset(of: deliveredTexts()) }, "missing: \(all.subtracting(deliveredTexts()).count)")
        let requests = receiver.requests
        #expect(requests.allSatisfy { $0.valid }, "a request with a bad signature")
        #expect(requests.allSatisfy { $0.delivery != nil && $0.delivery == $0.bodyDelivery && $0.event == "message.created" })
        #expect(requests.contains { $0.status == 500 })
        var deliveriesByMessage: [Int64: Set<String>] = [:]
        for r in requests { deliveriesByMessage[r.messageId ?? 0, default: []].insert(r.delivery ?? "") }
        let repeatedWithNewIds = deliveriesByMessage.filter { $0.value.count > 1 }
        #expect(repeatedWithNewIds.isEmpty, "messages delivered under more than one delivery id: \(repeatedWithNewIds.prefix(5))")
        let repeats = receiver.delivered.count - Set(receiver.delivered.compactMap(\.delivery)).count
        print("webhooks (\(Backend.name)): \(requests.count) requests for \(count) messages, \(repeats) repeated deliveries")

        #expect(try alice.run(["hook", "list"]).out.contains("ci"))
    }

    /// With two replicas on one PostgreSQL database, each delivery is made by one of them.
    @Test(.enabled(if: Backend.postgres != nil, "needs PostgreSQL: run under Tests/scripts/with-postgres.sh"))
    func twoReplicasNeverDeliverTheSameDeliveryTwice() throws {
        let a = try TestServer(environment: Self.shortLease)
        let b = try TestServer(database: a.databasePath, environment: Self.shortLease)
        let (alice, bob) = try a.pair()
        #expect(try alice.run(["send", bob.email, "hello"]).code == 0)
        let receiver = try WebhookReceiver(failFirst: 0)
        let created = try alice.run(["hook", "create", bob.email, "--url", receiver.url, "--json"])
        let secret = try #require(try JSONSerialization.jsonObject(with: Data(created.out.utf8)) as? [String: Any])["secret"] as? String
        try #require(secret).write(toFile: receiver.secretFile, atomically: true, encoding: .utf8)
        var onB = alice
        onB.server = b.url
        let lines = (1...300).map { "r \($0)" }
        for chunk in stride(from: 0, to: lines.count, by: 50) {
            let who = chunk / 50 % 2 == 0 ? alice : onB
            #expect(try who.run(["send", bob.email, "--each-line"], stdin: lines[chunk..<chunk + 50].joined(separator: "\n") + "\n").code == 0)
        }
        #expect(receiver.wait(timeout: 120) { Set($0.compactMap(\.text)).isSuperset(of: lines) })
        Thread.sleep(forTimeInterval: 1)
        let requests = receiver.requests.filter { $0.text?.hasPrefix("r ") == true }
        #expect(requests.count == 300, "\(requests.count) requests for 300 messages: some delivered twice")
        #expect(Set(requests.compactMap(\.delivery)).count == requests.count)
        #expect(requests.allSatisfy { $0.valid })
    }
}
