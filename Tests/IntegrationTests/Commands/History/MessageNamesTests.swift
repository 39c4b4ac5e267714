import Foundation
import Testing

/// One name for a message everywhere, CONVERSATION/SEQ: printed by every send, `read` and
/// `members`, and taken by `status` as by `edit`, `react` and `send --reply-to`.
@Suite(.harness)
struct MessageNamesTests {
    @Test func everyCommandNamesAMessageAsConversationSlashSeq() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let one = try alice.run(["send", bob.email, "one"])
        let c = try #require(one.out.split(separator: " ").last?.split(separator: "/").first.map(String.init), "\(one.out)")
        #expect(one.out.hasSuffix(" \(c)/1\n"), "\(one.out)")

        let lines = try alice.run(["send", c, "--each-line"], stdin: "two\nthree\n")
        #expect(lines.code == 0, "\(lines.err)")
        #expect(lines.lines.map { $0.split(separator: " ").last.map(String.init) } == ["\(c)/2", "\(c)/3"], "\(lines.out)")

        let status = try alice.run(["status", "\(c)/2"])
        #expect(status.code == 0, "\(status.err)")
        #expect(status.lines.first == "Sent: two" || status.lines.first == "Delivered: two", "\(status.out)")
        #expect(try alice.run(["status", "\(c)/99"]).code == 3)

        let read = try bob.run(["read", alice.email])
        #expect(read.err.contains("read up to \(c)/3."), "\(read.err)")
        let members = try alice.run(["members", c])
        #expect(members.lines.contains { $0.contains(bob.email) && $0.hasSuffix("\(c)/3") }, "\(members.out)")

        try alice.revokeTokenKeepingSession()
        let refused = try alice.run(["send", c, "four", "--json"])
        try #require(refused.code == 4, "\(refused.err)")
        #expect(try alice.run(["login", alice.email, "--password-stdin"], stdin: "password123\n").code == 0)
        let retried = try alice.run(["retry", "--all"])
        #expect(retried.code == 0, "\(retried.err)")
        #expect(retried.out.hasSuffix(" \(c)/4\n"), "\(retried.out)")
    }
}
