import Foundation
import NexusCore
import Testing

/// Outgoing hooks are told of every kind of change, each as its own signed event, in the
/// order committed; a hook made with `--events` gets only what it chose. On both backends.
@Suite(.serialized, .harness)
struct HookEventsTests {
    @Test func anOutgoingHookIsSentEachKindOfChangeItChose() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        let made = try alice.run(["new", bob.email, carol.email, "--name", "Ops", "--json"])
        #expect(made.code == 0, "\(made.err)")
        let c = String(try made.decode(ConversationResponse.self).conversation.id)
        let all = try WebhookReceiver(failFirst: 0)
        let some = try WebhookReceiver(failFirst: 0)
        for (receiver, extra) in [(all, [String]()), (some, ["--events", "message,reaction"])] {
            let created = try alice.run(["hook", "create", c, "--url", receiver.url, "--json"] + extra)
            #expect(created.code == 0, "\(created.err)")
            let secret = try #require(try JSONSerialization.jsonObject(with: Data(created.out.utf8)) as? [String: Any])["secret"] as? String
            try #require(secret).write(toFile: receiver.secretFile, atomically: true, encoding: .utf8)
        }
        let listed = try alice.run(["hook", "list", "--json"]).decode(HooksResponse.self).hooks
        #expect(listed.map(\.events) == [Webhook.eventKinds, ["message", "reaction"]])

        #expect(try alice.run(["send", c, "deploy done"]).code == 0)
        #expect(all.wait(timeout: 30) { $0.count == 1 })
        let seq = try #require(all.requests.first?.seq)
        let m = "\(c)/\(seq)"
        for step in [
            (bob, ["react", m, "👍"]), (bob, ["react", m, "👍"]), (alice, ["edit", m, "deploy done, v2"]), (bob, ["react", m, "👍", "--remove"]),
            (alice, ["delete", m]), (alice, ["remove", c, carol.email]), (alice, ["rename", c, "Ops", "room"]),
        ] {
            let r = try step.0.run(step.1)
            #expect(r.code == 0, "\(step.1): \(r.err)")
        }

        let expected = [
            "message.created", "reaction.added", "message.edited", "reaction.removed", "message.deleted", "membership.changed",
            "membership.changed",
        ]
        #expect(all.wait(timeout: 30) { $0.count >= expected.count }, "\(all.requests.map(\.event))")
        let got = all.requests
        // The second 👍 changed nothing, so nothing was sent for it.
        #expect(got.map(\.event) == expected)
        #expect(got.allSatisfy { $0.valid && $0.status == 200 && $0.delivery == $0.bodyDelivery })
        #expect(got.map(\.change) == [nil, "react", "edit", "unreact", "delete", nil, nil])
        #expect(got[1].emoji == "👍" && got[1].actor == bob.email && got[2].actor == alice.email)
        #expect(got[2].text == "deploy done, v2" && (got[4].text ?? "") == "")
        #expect(got.suffix(2).map(\.membership) == ["removed", "renamed"])

        // Deliveries are queued in their change's transaction: once none waits, all were made.
        #expect(some.wait(timeout: 30) { _ in (try? alice.run(["hook", "list", "--json"]).decode(HooksResponse.self).hooks.allSatisfy { $0.pending == 0 }) == true })
        #expect(some.requests.map(\.event) == ["message.created", "reaction.added", "reaction.removed"])
        #expect(all.requests.count == expected.count)
    }

    @Test func aMistypedEventIsRefusedBeforeAnythingIsMade() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        #expect(try alice.run(["send", bob.email, "hi"]).code == 0)
        let typo = try alice.run(["hook", "create", bob.email, "--url", "http://127.0.0.1:9/x", "--events", "message,reactions"])
        #expect(typo.code == 2)
        #expect(typo.err.contains("'reactions' is no hook event") && typo.err.contains("message, edit, delete, reaction, membership"))
        let incoming = try alice.run(["hook", "create", bob.email, "--events", "message"])
        #expect(incoming.code == 2 && incoming.err.contains("--events is for an outgoing hook"))
        #expect(try alice.run(["hook", "list", "--json"]).decode(HooksResponse.self).hooks.isEmpty)
    }
}
