import Foundation
import NexusWire
import Synchronization
import Testing

@testable import NexusServer

/// Concurrent single sends on PostgreSQL go in together, one
/// transaction a group (PostgresSendBatcher). Whatever the grouping, every answer must be
/// the one a send alone would have had. Run on PostgreSQL through with-postgres.sh; on
/// SQLite the same promises hold through its writer's group commit.
@Suite(.timeLimit(.minutes(5)))
struct GroupSendTests {
    enum Sent: Sendable, Equatable {
        case stored(localId: String, id: Int64, seq: Int64, created: Bool)
        case refused(localId: String, code: String)
    }

    /// 240 sends at once, 40 of them resends of another in flight, one with an invalid
    /// localId and one reusing a localId already used in another conversation: one row per
    /// localId, seqs 1…200 with no gap, each resend answered with its original, and the
    /// two bad ones refused as a send alone is.
    @Test func concurrentSendsWithResendsAndBadOnesAnswerEachRight() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            _ = try await api.register("carol@example.com", name: "Carol")
            let other = try await api.openDirect(alice.token, with: "carol@example.com").conversation.id
            let (elsewhere, _) = try await api.send(alice.token, to: other, localId: "taken", text: "in the other conversation")

            var localIds = (0..<200).map { "g-\($0)" }
            localIds += (0..<40).map { "g-\($0 * 5)" }  // resends, racing their originals
            localIds += ["bad id with spaces", "taken"]
            localIds.shuffle()
            let sent = try await withThrowingTaskGroup(of: Sent.self) { group in
                for localId in localIds {
                    group.addTask {
                        let response = try await api.call(
                            .post, "/v1/conversations/\(conversation)/messages", token: alice.token,
                            json: SendRequest(localId: localId, text: "text of \(localId)"))
                        guard response.status == .created || response.status == .ok else {
                            let error = try decode(ErrorResponse.self, response)
                            return .refused(localId: localId, code: "\(response.status.code) \(error.error.code)")
                        }
                        let answer = try decode(SendResponse.self, response)
                        #expect(answer.message.localId == localId && answer.message.text == "text of \(localId)")
                        #expect(answer.duplicate == (response.status == .ok))
                        return .stored(localId: localId, id: answer.message.id, seq: answer.message.seq, created: response.status == .created)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }

            #expect(sent.count == localIds.count)
            let refused = sent.compactMap { if case .refused(let l, let c) = $0 { return "\(l): \(c)" } else { return nil } }.sorted()
            #expect(refused == ["bad id with spaces: 400 invalid_local_id", "taken: 409 local_id_reused"])
            var byLocalId: [String: [(id: Int64, seq: Int64, created: Bool)]] = [:]
            for case .stored(let localId, let id, let seq, let created) in sent { byLocalId[localId, default: []].append((id, seq, created)) }
            #expect(byLocalId.count == 200)
            for (localId, answers) in byLocalId {
                #expect(answers.filter(\.created).count == 1, "\(localId): \(answers.count) answers, \(answers.filter(\.created).count) created")
                #expect(Set(answers.map(\.id)).count == 1 && Set(answers.map(\.seq)).count == 1, "\(localId) answered as two messages")
            }
            #expect(byLocalId.values.map { $0[0].seq }.sorted() == Array(1...200))

            // What is stored: the same 200 rows, seqs 1…200, and nothing more in the other conversation.
            var stored: [Message] = []
            var before: Int64? = nil
            repeat {
                let page = try await api.messages(alice.token, in: conversation, query: "limit=100" + (before.map { "&before=\($0)" } ?? ""))
                stored = page.messages + stored
                before = page.hasMore ? page.messages.first?.seq : nil
            } while before != nil
            #expect(stored.map(\.seq) == Array(1...200))
            #expect(Set(stored.map(\.localId)) == Set((0..<200).map { "g-\($0)" }))
            for message in stored { #expect(byLocalId[message.localId]?.first?.id == message.id) }
            #expect(try await api.messages(alice.token, in: other).messages.map(\.id) == [elsewhere.message.id])
        }
    }

    /// A non-member's sends go into the same groups as a member's: the statement that
    /// stores a group (the writer's group commit on SQLite) checks each sender, so each is
    /// refused with the non-member's 404, the same bytes as for a conversation that does
    /// not exist, and takes no seq. The member's keep seqs 1…100.
    @Test func aNonMembersSendsAmongAMembersAreRefusedAndTakeNoSeq() async throws {
        try await withServer { api in
            let (alice, _, conversation) = try await api.pair()
            let carol = try await api.register("carol@example.com", name: "Carol")
            let unknown = try await api.call(
                .post, "/v1/conversations/999999/messages", token: carol.token, json: SendRequest(localId: "u", text: "x"))
            _ = try expectError(unknown, .notFound, code: "not_found")
            let sends = (0..<100).map { (alice.token, "a-\($0)") } + (0..<60).map { (carol.token, "c-\($0)") }
            let answers = try await withThrowingTaskGroup(of: (String, Int, String).self) { group in
                for (token, localId) in sends.shuffled() {
                    group.addTask {
                        let response = try await api.call(
                            .post, "/v1/conversations/\(conversation)/messages", token: token, json: SendRequest(localId: localId, text: localId))
                        return (localId, response.status.code, response.text)
                    }
                }
                return try await group.reduce(into: [String: (Int, String)]()) { $0[$1.0] = ($1.1, $1.2) }
            }
            for (localId, (status, text)) in answers where localId.hasPrefix("c-") {
                #expect(status == 404 && text == unknown.text, "\(localId): \(status) \(text)")
            }
            var seqs: [Int64] = []
            for (localId, (status, text)) in answers where localId.hasPrefix("a-") {
                #expect(status == 201, "\(localId): \(status) \(text)")
                if status == 201 { seqs.append(try JSONDecoder().decode(SendResponse.self, from: Data(text.utf8)).message.seq) }
            }
            #expect(seqs.sorted() == Array(1...100))
            let page = try await api.messages(alice.token, in: conversation, query: "limit=200")
            #expect(page.messages.map(\.seq) == Array(1...100) && page.messages.allSatisfy { $0.localId.hasPrefix("a-") })
        }
    }

    /// The batcher itself: sends that arrive while a group is being written go in one later
    /// group, and a group that fails for one message's reason is written again one by one,
    /// so only that message fails.
    @Test func aGroupThatFailsIsWrittenOneByOne() async throws {
        struct Poison: Error {}
        let groups = Mutex<[[String]]>([])
        let batcher = PostgresSendBatcher { messages in
            groups.withLock { $0.append(messages.map(\.localId)) }
            try await Task.sleep(for: .milliseconds(20))  // a commit's time: the next ones queue
            if messages.contains(where: { $0.localId == "poison" }) { throw Poison() }
            return messages.enumerated().map { index, m in
                .created(Message(id: Int64(index), conversationId: m.conversationId, seq: 1, senderId: m.senderId, localId: m.localId, text: m.text, sentAt: .now()))
            }
        }
        let localIds = (0..<30).map { "m-\($0)" } + ["poison"]
        let answers = await withTaskGroup(of: (String, Bool).self) { group in
            for localId in localIds {
                group.addTask {
                    do {
                        guard case .created(let m) = try await batcher.send(NewMessage(conversationId: 1, senderId: 1, localId: localId, text: localId)) else {
                            return (localId, false)
                        }
                        return (localId, m.localId == localId)
                    } catch {
                        return (localId, false)
                    }
                }
            }
            return await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 31)
        #expect(answers.filter { !$0.value }.map(\.key) == ["poison"])
        let written = groups.withLock { $0 }
        #expect(written.contains { $0.count > 1 }, "no two sends were ever grouped: \(written)")
        #expect(written.flatMap { $0 }.filter { $0 != "poison" }.count >= 30)
    }
}
