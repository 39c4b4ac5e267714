import Foundation
import NexusCore
import Testing

/// `new`, `read` and resolving an email, in-process: what each keeps in the cache.
struct ConversationActionsTests {
    let profile: Profile
    let server = FakeReadingServer()
    let actions: ConversationActions

    init() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-actions-\(UUID().uuidString)").path
        profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        actions = ConversationActions(profile: profile, api: server, me: FakeReadingServer.alice.id)
        server.addDirect(7, count: 4)
    }

    @Test func openingKeepsTheConversationAndItsEmail() throws {
        let opened = try actions.open(["bob@example.com"], name: nil)
        #expect(opened.value.conversation.id == 7)
        #expect(opened.cacheProblems.isEmpty)
        #expect(profile.loadDirects()["bob@example.com"] == 7)
        #expect(ConversationCache(profile: profile).conversation(7)?.members.count == 2)

        let group = try actions.open(["bob@example.com", "carol@example.com"], name: "Launch")
        #expect(group.value.created)
        #expect(ConversationCache(profile: profile).conversation(group.value.conversation.id)?.name == "Launch")
    }

    @Test func resolvingAnEmailNotesOnlyTheEmail() throws {
        #expect(try actions.directId(with: "bob@example.com") == 7)
        #expect(profile.loadDirects()["bob@example.com"] == 7)
        #expect(ConversationCache(profile: profile).conversation(7) == nil)
    }

    @Test func markingReadMovesTheReadMarkToTheNewest() throws {
        _ = try actions.markRead(7)
        #expect(server.receipts.count == 1)
        #expect(server.receipts.first?.read == 4)
        server.down = true
        #expect(throws: APIError.self) { try actions.markRead(7) }
    }
}
