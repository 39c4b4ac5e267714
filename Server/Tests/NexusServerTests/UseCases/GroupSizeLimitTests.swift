import Foundation
import HTTPTypes
import HummingbirdTesting
import NexusWire
import Testing

@testable import NexusServer

/// The size of a group, bounded by ServerLimits.maxGroupMembers (`nexusd --max-group-members`,
/// 256 by default): at creation and when members are added. Checked in the controllers,
/// before any store, so the same on both backends.
@Suite(.timeLimit(.minutes(5)))
struct GroupSizeLimitTests {
    /// The creator and `others` more, registered; returns the creator's token and the others' emails.
    func people(_ api: API, others: Int) async throws -> (creator: String, emails: [String]) {
        let creator = try await api.register("creator@example.com", name: "Creator").token
        var emails: [String] = []
        for i in 0..<others {
            emails.append(try await api.register("member\(i)@example.com", name: "Member \(i)").user.email)
        }
        return (creator, emails)
    }

    func create(_ api: API, _ token: String, _ emails: [String]) async throws -> TestResponse {
        try await api.call(.post, "/v1/conversations", token: token, json: CreateConversationRequest(kind: .group, members: emails, name: "Big"))
    }

    @Test func theDefaultRefusesAGroupOver256AndSaysWhichFlagRaisesIt() async throws {
        try await withServer { api in
            #expect(ServerLimits().maxGroupMembers == 256)
            let (creator, emails) = try await people(api, others: 257)
            let tooBig = try await create(api, creator, Array(emails.prefix(256)))
            let error = try expectError(tooBig, .badRequest, code: "invalid_members")
            #expect(error.error.message.contains("at most 255 other members"), "\(error.error.message)")
            #expect(error.error.message.contains("--max-group-members"), "\(error.error.message)")

            // 255 others and the creator: exactly the limit.
            let full = try await create(api, creator, Array(emails.prefix(255)))
            #expect(full.status == .created, "\(full.text)")
            let id = try decode(ConversationResponse.self, full).conversation.id
            #expect(try decode(ConversationResponse.self, full).conversation.members.count == 256)
            let add = try await api.call(
                .post, "/v1/conversations/\(id)/members", token: creator, json: MembershipRequest(localId: "add-1", emails: [emails[255]]))
            let addError = try expectError(add, .badRequest, code: "invalid_members")
            #expect(addError.error.message.contains("at most 256 members"), "\(addError.error.message)")
            #expect(addError.error.message.contains("--max-group-members"), "\(addError.error.message)")
        }
    }

    @Test func aRaisedLimitTakesTheBiggerGroupAndStillBoundsIt() async throws {
        var limits = ServerLimits()
        limits.maxGroupMembers = 259
        try await withServer(limits: limits) { api in
            let (creator, emails) = try await people(api, others: 259)
            let created = try await create(api, creator, Array(emails.prefix(257)))
            #expect(created.status == .created, "\(created.text)")
            let id = try decode(ConversationResponse.self, created).conversation.id
            #expect(try decode(ConversationResponse.self, created).conversation.members.count == 258)

            // Every member gets the group's message in their feed.
            try await api.send(creator, to: id, localId: "hello")
            let last = try await api.login(emails[256])
            let feed = try await api.sync(try decode(AuthResponse.self, last).token, query: "last=1")
            #expect(feed.events.last?.message?.text == "message hello")

            let added = try await api.call(
                .post, "/v1/conversations/\(id)/members", token: creator, json: MembershipRequest(localId: "add-1", emails: [emails[257]]))
            #expect(added.status == .created, "\(added.text)")
            let over = try await api.call(
                .post, "/v1/conversations/\(id)/members", token: creator, json: MembershipRequest(localId: "add-2", emails: [emails[258]]))
            let error = try expectError(over, .badRequest, code: "invalid_members")
            #expect(error.error.message.contains("at most 259 members"), "\(error.error.message)")
        }
    }
}
