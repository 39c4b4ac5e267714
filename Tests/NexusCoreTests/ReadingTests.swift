import Foundation
import NexusCore
import Testing

/// The offline-first reads, in-process, against a fake server with injected faults: the
/// cache answers alone when it can, keeps what the server says, and answers offline with
/// the reason; a refusal by the server is never hidden behind the cache.
struct ReadingTests {
    let profile: Profile
    let server = FakeReadingServer()
    let reading: Reading

    init() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-reading-\(UUID().uuidString)").path
        profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        reading = Reading(profile: profile, api: server, me: FakeReadingServer.alice.id)
        server.addDirect(7, count: 120)
    }

    @Test func aPageFromTheServerIsKeptAndThenReadOfflineWithTheReason() throws {
        let online = try reading.page(7, before: nil, limit: 50)
        #expect(online.fromServer)
        #expect(online.value.messages.map(\.seq) == Array(71...120))
        #expect(online.value.next == 71)

        server.down = true
        let offline = try reading.page(7, before: nil, limit: 50)
        let reason = try #require(offline.offlineReason)
        #expect(reason.isNetwork)
        #expect(offline.value.messages.map(\.seq) == Array(71...120))
        #expect(offline.value.complete)
    }

    @Test func aWholeCachedPageBelowASeqNeedsNoServer() throws {
        _ = try reading.page(7, before: nil, limit: 50)
        let calls = server.calls.count
        server.down = true
        let cached = try reading.page(7, before: .seq(101), limit: 20)
        #expect(server.calls.count == calls, "the server was asked for a page the cache holds whole")
        guard case .cache = cached.source else { Issue.record("expected the cache, got \(cached.source)"); return }
        #expect(cached.value.messages.map(\.seq) == Array(81...100))
        #expect(cached.value.hasMore)
    }

    @Test func offlineAPartlyCachedPageSaysItHasGaps() throws {
        _ = try reading.page(7, before: nil, limit: 10)  // seqs 111…120 cached
        server.down = true
        let page = try reading.page(7, before: .seq(116), limit: 10)  // 106…115, half cached
        #expect(page.offlineReason != nil)
        #expect(page.value.messages.map(\.seq) == Array(111...115))
        #expect(!page.value.complete)
    }

    @Test func offlineTheCacheCannotFindAPageByIdOrTime() throws {
        server.down = true
        #expect(throws: ReadError.self) { try reading.page(7, before: .messageId(7001), limit: 10) }
        do {
            _ = try reading.page(7, before: .time(.now()), limit: 10)
            Issue.record("read offline by time")
        } catch {
            guard case .cacheCannotAnswer(let reason) = error else { Issue.record("got \(error)"); return }
            #expect(reason.isNetwork)
        }
    }

    @Test func aRefusalIsNotHiddenBehindTheCache() throws {
        _ = try reading.page(7, before: nil, limit: 50)
        server.faults = [.server(status: 403, code: "forbidden", message: "Not a member.", retryAfter: nil)]
        do {
            _ = try reading.page(7, before: nil, limit: 50)
            Issue.record("a 403 was answered from the cache")
        } catch {
            guard case .api(.server(403, _, _, _)) = error else { Issue.record("got \(error)"); return }
        }
    }

    @Test func pagingBackWalksToTheStartOnce() throws {
        var seen: [Int64] = []
        try reading.history(7, before: nil, limit: 50, all: true) { seen += $0.value.messages.map(\.seq).reversed() }
        #expect(seen == Array((1...120).reversed()))
        #expect(server.calls == ["messages", "messages", "messages"])
    }

    @Test func theConversationListIsKeptAndListedOffline() throws {
        server.addDirect(9, count: 3)
        let online = try reading.conversations()
        #expect(online.fromServer)
        #expect(profile.loadDirects()["bob@example.com"] != nil)

        server.down = true
        let offline = try reading.conversations()
        #expect(offline.offlineReason != nil)
        #expect(Set(offline.value.conversations.map(\.id)) == [7, 9])
        #expect(Set(offline.value.users.map(\.email)) == ["alice@example.com", "bob@example.com"])
    }

    @Test func oneConversationOfflineComesFromTheCacheOrNotAtAll() throws {
        server.down = true
        do {
            _ = try reading.conversation(7)
            Issue.record("a conversation never seen was answered offline")
        } catch {
            guard case .cacheCannotAnswer = error else { Issue.record("got \(error)"); return }
        }
        server.down = false
        _ = try reading.conversation(7)
        server.down = true
        let cached = try reading.conversation(7)
        #expect(cached.offlineReason != nil)
        #expect(cached.value.members.map(\.id) == [1, 2])
    }

    @Test func membersComeFromTheServerAndOfflineFromTheCache() throws {
        server.addDirect(9, count: 1)
        let one = try reading.members(of: 7)
        #expect(one.fromServer)
        #expect(one.value.conversations.map(\.id) == [7])
        #expect(Set(one.value.people.map(\.id)) == [1, 2])
        let all = try reading.members(of: nil)
        #expect(all.value.conversations.map(\.id) == [7], "the receipts of conversations looked at, from the cache")
        #expect(Set(all.value.people.map(\.id)) == [1, 2])

        server.down = true
        let offline = try reading.members(of: 9)
        #expect(offline.offlineReason != nil)
        #expect(offline.value.conversations.map(\.id) == [7])
        #expect(Set(offline.value.people.map(\.email)) == ["alice@example.com", "bob@example.com"])
    }

    @Test func aCacheThatCannotBeWrittenCostsAWarningNotTheRead() throws {
        // A file where the message cache's folder should be: every write to it fails.
        let folder = MessageCache(profile: profile).directory
        try? FileManager.default.removeItem(atPath: folder)
        try Data().write(to: URL(fileURLWithPath: folder))
        let page = try reading.page(7, before: nil, limit: 5)
        #expect(page.value.messages.count == 5)
        #expect(page.cacheProblems.count == 1)
        #expect(page.cacheProblems.first?.description.hasPrefix("could not update the local cache") == true)
    }

    @Test func receiptsMoveForwardOnceAndOnlyForOthersMessages() throws {
        let reporter = ReceiptReporter(api: server, me: FakeReadingServer.alice.id)
        let bobs = server.messages[7]!
        let mine = Message(id: 1, conversationId: 9, seq: 4, senderId: 1, localId: "x", text: "mine", sentAt: .now())
        reporter.stored(Array(bobs.prefix(3)) + [mine])
        reporter.stored(Array(bobs.prefix(2)))  // behind the watermark: nothing to say
        server.down = true
        reporter.stored(Array(bobs.prefix(5)))  // fails now, said again with the next messages
        server.down = false
        reporter.stored(Array(bobs.prefix(6)), read: true)
        #expect(server.receipts.map(\.conversationId) == [7, 7])
        #expect(server.receipts.map(\.delivered) == [3, 6])
        #expect(server.receipts.map(\.read) == [nil, 6])
    }
}
