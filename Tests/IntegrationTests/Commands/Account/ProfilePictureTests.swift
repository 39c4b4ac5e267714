import Foundation
@testable import NexusCore
import Testing

/// `profile --picture FILE`: an image uploaded as attachments are, kept as the account's;
/// `users --json` and `whoami --json` give its URL and hash, the URL serves its bytes to
/// the server's users, the upload cleanup keeps it while it is the picture, and
/// `--remove-picture` takes it away. What is not an image is refused before anything goes.
@Suite(.harness)
struct ProfilePictureTests {
    @Test func aPictureIsKeptShownAndServed() throws {
        let server = try TestServer(extraArguments: ["--upload-cleanup-after", "2s"])
        defer { server.stop() }
        let (alice, bob) = try server.pair()
        let dir = try makeTempDir("picture")
        let first = Data("first picture bytes".utf8), second = Data((0..<3000).map { UInt8($0 % 251) })
        try first.write(to: URL(fileURLWithPath: dir + "/old.png"))
        try second.write(to: URL(fileURLWithPath: dir + "/me.jpg"))
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: dir + "/notes.txt"))

        let refused = try alice.run(["profile", "--picture", dir + "/notes.txt"])
        #expect(refused.code == 2 && refused.err.contains("--picture takes an image"), "\(refused.err)")
        #expect(try alice.run(["profile", "--picture", dir + "/old.png"]).code == 0)
        let set = try alice.run(["profile", "--picture", dir + "/me.jpg", "--json"])
        #expect(set.code == 0, "\(set.err)")
        let mine = try #require(try set.decode(NexusCore.User.self).picture)
        #expect(mine.sha256 == sha256(second) && mine.size == 3000 && mine.type == "image/jpeg" && mine.name == "me.jpg")
        let aliceId = try set.decode(NexusCore.User.self).id
        #expect(mine.url == "/v1/users/\(aliceId)/picture")
        #expect(try alice.run(["profile"]).out.contains("picture: me.jpg (image/jpeg"))
        let whoami = try alice.run(["whoami", "--json"]).decode(Whoami.self)
        #expect(whoami.user.picture == mine)
        let directory = try bob.run(["users", "--json"]).decode([NexusCore.User].self)
        #expect(directory.first { $0.email == alice.email }?.picture == mine, "the directory gives its URL and hash")

        // The replaced picture's upload is unreferenced, and the cleanup takes it; the
        // picture's own stays, and its URL serves its bytes to anyone on the server.
        let api = try alice.api()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, (try? api.uploadState(sha256: sha256(first))) != nil { Thread.sleep(forTimeInterval: 0.2) }
        #expect((try? api.uploadState(sha256: sha256(first))) == nil, "the old picture's upload was cleaned up")
        let served = try get(mine.url, as: bob, server)
        #expect(served.status == 200 && served.body == Array(second))
        #expect(served.header("Content-Type") == "image/jpeg")

        let removed = try alice.run(["profile", "--remove-picture", "--json"])
        let after = try removed.decode(NexusCore.User.self)
        #expect(removed.code == 0 && after.picture == nil, "\(removed.err)")
        let listed = try bob.run(["users", "--json"]).decode([NexusCore.User].self)
        #expect(listed.first { $0.email == alice.email }?.picture == nil)
        #expect(try get(mine.url, as: bob, server).status == 404)
    }

    struct Whoami: Decodable { var user: NexusCore.User }

    private func get(_ path: String, as user: User, _ server: TestServer) throws -> HTTPResponse {
        let token = try #require(try Profile(name: "default", home: user.home).loadSession()).token
        return try HTTPClient(address: try ServerAddress.list(parsing: server.url)[0])
            .request("GET", path, headers: [("Authorization", "Bearer \(token)")])
    }

    private func sha256(_ data: Data) -> String {
        let digest = SHA256Digest()
        digest.update(Array(data))
        return digest.finalHex()
    }
}
