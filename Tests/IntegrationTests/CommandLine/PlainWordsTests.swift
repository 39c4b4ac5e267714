import Foundation
import NexusCore
import Testing

/// The small words a new user reads: who wrote a message in JSON, "you" as the object of a
/// membership line, and `new` with the same people twice.
@Suite(.harness)
struct PlainWordsTests {
    struct Line: Decodable {
        var type: String?
        var text: String?
        var sender: String?
        var senderName: String?
    }

    struct History: Decodable { var messages: [Line] }

    struct Opened: Decodable {
        var conversation: Conversation
        var created: Bool
    }

    @Test func messageJSONNamesItsSender() throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try User("alice", server: server.url)
        let bob = try User("bob", server: server.url)
        try alice.register(name: "Alice Liddell")
        try bob.register(name: "Bob")
        #expect(try alice.run(["send", bob.email, "lunch at noon"]).code == 0)

        let history = try bob.run(["history", alice.email, "--json"]).decode(History.self)
        let message = history.messages.first { $0.text == "lunch at noon" }
        #expect(message?.sender == alice.email && message?.senderName == "Alice Liddell", "\(history.messages)")

        let tail = try bob.run(["tail", alice.email, "--json"])
        let line = tail.out.split(separator: "\n").compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
            .first { $0.text == "lunch at noon" }
        #expect(line?.senderName == "Alice Liddell", "\(tail.out)")

        let search = try bob.run(["search", "lunch", "--json"])
        let hit = search.out.split(separator: "\n").compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }.first
        #expect(hit?.senderName == "Alice Liddell", "\(search.out) \(search.err)")
        let picked = try bob.run(["history", alice.email, "--fields", "senderName,text"])
        #expect(picked.code == 0 && picked.out.contains(#""senderName":"Alice Liddell""#), "\(picked.out) \(picked.err)")
    }

    @Test func theViewerIsYouAsSubjectAndYouAsObject() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio()
        let group = try alice.run(["new", bob.email, carol.email, "--separate", "--json"])
        let c = try group.decode(Opened.self).conversation.id
        #expect(try alice.run(["remove", "\(c)", carol.email]).code == 0)
        #expect(try alice.run(["add", "\(c)", carol.email]).code == 0)

        let carolSees = try carol.run(["history", "\(c)"])
        #expect(carolSees.out.contains("Alice added you"), "\(carolSees.out) \(carolSees.err)")
        #expect(carolSees.out.contains("Alice removed you"), "\(carolSees.out)")
        let aliceSees = try alice.run(["history", "\(c)"])
        #expect(aliceSees.out.contains("You removed Carol") && aliceSees.out.contains("You added Carol"), "\(aliceSees.out)")
    }

    @Test func newWithTheSamePeopleReusesTheGroupUnlessSeparate() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob, carol) = try server.trio(carol: "Carol 🌸")

        let first = try alice.run(["new", bob.email, carol.email])
        #expect(first.code == 0, "\(first.out) \(first.err)")
        let id = try #require(first.out.split(separator: " ").dropFirst(2).first.flatMap { Int64($0) }, "\(first.out)")
        #expect(first.out == "Created group \(id) with Bob and Carol 🌸.\n", "\(first.out)")

        let again = try alice.run(["new", carol.email, bob.email.uppercased(), "--json"]).decode(Opened.self)
        #expect(again.conversation.id == id && again.created == false)
        let text = try alice.run(["new", bob.email, carol.email])
        #expect(text.out == "Reusing group \(id) with Bob and Carol 🌸.\n" && text.err.contains("--separate"), "\(text.out) \(text.err)")

        let separate = try alice.run(["new", bob.email, carol.email, "--separate", "--json"]).decode(Opened.self)
        #expect(separate.created && separate.conversation.id != id)
        let named = try alice.run(["new", bob.email, carol.email, "--name", "Ramen"])
        #expect(named.out.hasPrefix("Created group ") && named.out.hasSuffix(", \"Ramen\", with Bob and Carol 🌸.\n"), "\(named.out)")
        let namedAgain = try alice.run(["new", bob.email, carol.email, "--name", "Ramen"])
        #expect(namedAgain.out.hasPrefix("Reusing group "), "\(namedAgain.out)")
        #expect(try alice.run(["new", bob.email, "--separate"]).code == 2)
    }
}
