import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NexusWire
import Synchronization
import Testing

@testable import NexusServer

/// Every kind of commit publishes one event, and what follows a commit follows that event:
/// each step below must reach the recording subscriber with its kind, conversation and the
/// users to wake, and must move those users' feeds (FeedWakeUp).
@Suite struct ServerEventsTests {
    final class Recorder: ServerEventSubscriber {
        let events = Mutex<[ServerEvent]>([])
        func handle(_ event: ServerEvent) async { events.withLock { $0.append(event) } }

        /// The commits recorded since the last call.
        func takeCommits() -> [Commit] {
            events.withLock { events in
                defer { events.removeAll() }
                return events.compactMap { if case .committed(let c) = $0 { c } else { nil } }
            }
        }
    }

    @Test func everyKindOfCommitIsPublishedOnceAndWakesItsMembers() async throws {
        try await withServices { api, services in
            let recorder = Recorder()
            services.events.subscribe(recorder)
            let alice = try await api.register("alice@example.com")
            let bob = try await api.register("bob@example.com")
            let carol = try await api.register("carol@example.com")
            let dave = try await api.register("dave@example.com")
            _ = recorder.takeCommits()

            /// Runs `step`, then expects exactly one commit of `kind` (and `also`) in the
            /// conversation the step answers that wakes `wake`, and their feeds to have moved.
            func expectCommit(
                _ kind: Commit.Kind, also: Set<Commit.Kind> = [], wakes wake: [Int64], _ label: String, _ step: () async throws -> Int64
            ) async throws {
                let before = wake.map { services.notifier.version(of: $0) }
                let conversation = try await step()
                let commits = recorder.takeCommits()
                #expect(commits.count == 1, "\(label): \(commits.count) commits published")
                let commit = try #require(commits.first, "\(label): nothing published")
                #expect(Set(commit.changes.map(\.kind)) == also.union([kind]), "\(label): \(commit.changes)")
                #expect(commit.conversations == [conversation], "\(label)")
                #expect(Set(commit.wake) == Set(wake), "\(label): woke \(commit.wake)")
                let after = wake.map { services.notifier.version(of: $0) }
                #expect(zip(before, after).allSatisfy { $0 < $1 }, "\(label): a feed did not move")
            }

            var direct: Int64 = 0
            try await expectCommit(.conversation, wakes: [alice.user.id, bob.user.id], "direct conversation") {
                direct = try await api.openDirect(alice.token, with: "bob@example.com").conversation.id
                return direct
            }
            var group: Int64 = 0
            let trio = [alice.user.id, bob.user.id, carol.user.id]
            try await expectCommit(.conversation, wakes: trio, "group") {
                let response = try await api.call(
                    .post, "/v1/conversations", token: alice.token,
                    json: CreateConversationRequest(kind: .group, members: ["bob@example.com", "carol@example.com"]))
                group = try decode(ConversationResponse.self, response).conversation.id
                return group
            }
            try await expectCommit(.message, wakes: [alice.user.id, bob.user.id], "send") {
                _ = try await api.send(alice.token, to: direct, localId: "m1", text: "hello")
                return direct
            }
            try await expectCommit(.message, wakes: trio, "batch") {
                let batch = BatchSendRequest(messages: [BatchItem(conversationId: group, localId: "b1", text: "to the group")])
                let answer = try await api.call(.post, "/v1/messages/batch", token: alice.token, json: batch)
                #expect(answer.status == .ok)
                return group
            }
            // A reaction moves its author's read mark to the message, in the same commit.
            for (kind, also, item) in [
                (Commit.Kind.edit, Set<Commit.Kind>(), ChangeItem(localId: "e1", kind: .edit, conversationId: group, seq: 1, text: "edited")),
                (.reaction, [.receipt], ChangeItem(localId: "r1", kind: .react, conversationId: group, seq: 1, emoji: "👍")),
                (.delete, [], ChangeItem(localId: "d1", kind: .delete, conversationId: group, seq: 1)),
            ] {
                try await expectCommit(kind, also: also, wakes: trio, "\(kind)") {
                    let response = try await api.call(.post, "/v1/messages/changes", token: alice.token, json: ChangesRequest(changes: [item]))
                    let statuses = try decode(ChangesResponse.self, response).results.map(\.status)
                    #expect(statuses == [.created])
                    return group
                }
            }
            try await expectCommit(.receipt, wakes: trio, "receipt") {
                let answer = try await api.call(.post, "/v1/conversations/\(group)/receipts", token: bob.token, json: ReceiptsRequest(read: 1))
                #expect(answer.status == .ok)
                return group
            }
            try await expectCommit(.membership, wakes: trio + [dave.user.id], "add") {
                let add = MembershipRequest(localId: "add-dave", emails: ["dave@example.com"])
                let answer = try await api.call(.post, "/v1/conversations/\(group)/members", token: alice.token, json: add)
                #expect(answer.status == .created)
                return group
            }
            #expect(try await services.membership.members(of: group, store: services.stores.conversations).contains(dave.user.id))
            try await expectCommit(.rename, wakes: trio + [dave.user.id], "rename") {
                let rename = MembershipRequest(localId: "rename", name: "Launch")
                let answer = try await api.call(.post, "/v1/conversations/\(group)/rename", token: alice.token, json: rename)
                #expect(answer.status == .created)
                return group
            }
            // A mute wakes only its account's own polls, and reaches no hook.
            try await expectCommit(.mute, wakes: [bob.user.id], "mute") {
                let answer = try await api.call(.put, "/v1/conversations/\(group)/mute", token: bob.token, json: MuteRequest())
                #expect(answer.status == .ok)
                return group
            }
            try await expectCommit(.mute, wakes: [bob.user.id], "unmute") {
                let answer = try await api.call(.delete, "/v1/conversations/\(group)/mute", token: bob.token)
                #expect(answer.status == .ok)
                return group
            }
            var hookPath = ""
            let hookResponse = try await api.call(.post, "/v1/hooks", token: alice.token, json: CreateHookRequest(conversationId: group))
            hookPath = try #require(try decode(CreateHookResponse.self, hookResponse).path)
            let joined = recorder.takeCommits()
            #expect(joined.map(\.membersChanged) == [[group]], "a hook's bot joining: \(joined)")
            let members = try await services.membership.members(of: group, store: services.stores.conversations)
            #expect(members.count == 5, "the bot's join reached the cache: \(members)")
            try await expectCommit(.message, wakes: members, "incoming hook") {
                let answer = try await api.call(.post, hookPath, raw: "{\"text\": \"disk full\"}")
                #expect(answer.status == .created)
                return group
            }
        }
    }

    /// nexusd in-process on a fresh database, with its services at hand.
    private func withServices(_ body: @Sendable (API, AppServices) async throws -> Void) async throws {
        let (config, cleanUp) = try testConfig(ServerLimits())
        defer { cleanUp() }
        let stores: Stores
        if PostgresURL.isPostgres(config.databasePath) {
            stores = try await PostgresDatabase.stores(url: config.databasePath, logger: Logger(label: "test"))
        } else {
            try FileManager.default.createDirectory(
                atPath: (config.databasePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            stores = try await SQLiteDatabase.stores(path: config.databasePath, logger: Logger(label: "test"))
        }
        try await stores.database.migrate()
        let services = AppServices(stores: stores, passwords: Passwords(cost: 4))
        let app = Application(router: buildRouter(services))
        do {
            try await app.test(.router) { client in try await body(API(client: client), services) }
        } catch {
            try? await stores.database.close()
            throw error
        }
        try await stores.database.close()
    }
}
