import Foundation
import NexusCore
import Testing

/// Each way a token fails names the token's problem and its fix, with the documented exit
/// code (docs/tokens.md, docs/exit-codes.md), from `send` as from `whoami`.
@Suite(.harness)
struct TokenFailureTextTests {
    func token(_ alice: User, _ args: [String]) throws -> String {
        let made = try alice.run(["token", "create"] + args)
        guard made.code == 0 else { throw HarnessError("token create \(args): \(made.err)") }
        return made.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func script(_ server: TestServer, token: String) throws -> User {
        var ci = try User("ci", server: server.url)
        ci.extraEnvironment["NEXUS_TOKEN"] = token
        return ci
    }

    @Test func anExpiredTokenSaysSoWhenItSends() throws {
        let clocked = try AccessTokenTests.ClockedServer()
        defer { clocked.server.stop() }
        let (alice, bob) = try clocked.server.pair()
        let a = try AccessTokenTests.open(alice, [bob.email])
        let ci = try script(clocked.server, token: try token(alice, ["short", "--expires", "2d"]))
        try clocked.setDay(3)
        let r = try ci.run(["send", a, "after it expired"])
        #expect(r.code == 4, "\(r.err)")
        #expect(r.err.contains("error: $NEXUS_TOKEN has expired"), "\(r.err)")
        #expect(r.err.contains("nexusctl token create"), "\(r.err)")
        #expect(!r.err.contains("signing in"), "\(r.err)")
    }

    @Test func aTokenOutOfItsConversationsSaysSoAndExits4() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let carol = try User("carol", server: server.url)
        try carol.register()
        let a = try AccessTokenTests.open(alice, [bob.email])
        let b = try AccessTokenTests.open(alice, [carol.email])
        let ci = try script(server, token: try token(alice, ["ci", "--conversation", b]))
        let r = try ci.run(["send", a, "not here"])
        #expect(r.code == 4, "\(r.err)")
        #expect(r.err.contains("error: $NEXUS_TOKEN may not do this: This token is limited to conversations \(b)."), "\(r.err)")
        #expect(r.err.contains("--conversation"), "\(r.err)")
        #expect(!r.err.contains("try again"), "trying again can't help: \(r.err)")
    }

    @Test func aTokenThatIsNoneIsNamedNotAPasswordLogin() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let a = try AccessTokenTests.open(alice, [bob.email])
        let ci = try script(server, token: "garbage")
        for args in [["send", a, "hello"], ["whoami"]] {
            let r = try ci.run(args)
            #expect(r.code == 4, "\(args): \(r.err)")
            #expect(r.err.contains("$NEXUS_TOKEN was refused"), "\(args): \(r.err)")
            #expect(r.err.contains("nexusctl token create") && !r.err.contains("login <email>"), "\(args): \(r.err)")
        }
    }
}
