import Foundation
import Testing

/// The rows of `convos`: in a group the last message names who wrote it ("You: " for your
/// own, as everywhere), and on a terminal each row fits its width, the last message
/// getting what is left, at most 60 characters.
@Suite(.harness)
struct ConvosRowTests {
    private static let long = String(repeating: "ramen and karaoke, ", count: 5)

    private func group() throws -> (TestServer, User, User) {
        let server = try TestServer()
        let (alice, bob) = try server.pair()
        let carol = try User("carol", server: server.url)
        try carol.register(name: "Carol")
        #expect(try alice.run(["new", bob.email, carol.email, "--name", "Friday night ramen and karaoke crew"]).code == 0)
        return (server, alice, bob)
    }

    @Test func aGroupsLastMessageNamesWhoWroteIt() throws {
        let (server, alice, bob) = try group()
        defer { server.stop() }
        let sent = try bob.run(["send", "1", "who's in for ramen?"])
        #expect(sent.code == 0, "\(sent.err)")
        let list = try alice.run(["convos"])
        #expect(list.lines.contains { $0.hasSuffix("Bob: who's in for ramen?") }, "\(list.out)")
        #expect(try alice.run(["send", "1", "me!"]).code == 0)
        #expect(try alice.run(["convos"]).lines.contains { $0.hasSuffix("You: me!") })
        #expect(try bob.run(["convos"]).lines.contains { $0.hasSuffix("Alice: me!") })
        // A direct conversation needs no name: there is one other person.
        #expect(try bob.run(["send", alice.email, "see you"]).code == 0)
        let direct = try alice.run(["convos"]).lines.first { $0.contains("see you") }
        #expect(direct?.hasSuffix("  see you") == true, "\(direct ?? "")")
    }

    @Test func onATerminalEachRowFitsItsWidth() throws {
        let (server, alice, bob) = try group()
        defer { server.stop() }
        #expect(try bob.run(["send", "1", Self.long]).code == 0)
        let narrow = try TerminalSession(alice, ["convos"], width: 100)
        defer { narrow.close() }
        #expect(narrow.exitCode() == 0, "\(narrow.screen)")
        let rows = narrow.screen.filter { !$0.contains("[exit ") }
        // The header and one row, neither wrapped onto a second line of the screen.
        #expect(rows.count == 2, "\(rows)")
        let row = rows.last ?? ""
        #expect(row.contains("Bob: ramen and karaoke") && row.hasSuffix("…"), "\(row)")
        #expect(row.count <= 100 && row.count >= 95, "the last message takes what is left: \(row.count) columns")

        let wide = try TerminalSession(alice, ["convos"], width: 200)
        defer { wide.close() }
        #expect(wide.exitCode() == 0, "\(wide.screen)")
        let preview = try #require(wide.screen.first { $0.contains("Bob: ") }?.components(separatedBy: "Bob: ").last)
        #expect(preview.count == 60 && preview.hasSuffix("…"), "never more than 60 characters: \(preview)")
    }
}
