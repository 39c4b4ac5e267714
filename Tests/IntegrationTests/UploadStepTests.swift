import Foundation
import NexusCore
import Testing

/// Issue 17, upload speed: one upload request may carry many 16 MiB steps, and the server
/// acknowledges each once it is durable while the next arrives. A request cut off in the
/// middle keeps the steps made durable and nothing past them, and the upload goes on from
/// there to a file whose SHA-256 matched. Real nexusd (SQLite or PostgreSQL).
@Suite(.serialized, .timeLimit(.minutes(5)))
struct UploadStepTests {
    @Test func aRequestCutOffKeepsItsDurableStepsAndTheUploadGoesOnFromThere() throws {
        let server = try TestServer(extraArguments: ["--max-attachment", "1GiB"])
        defer { server.stop() }
        let (alice, _) = try server.pair()
        let dir = try makeTempDir("steps")
        let path = dir + "/steps.bin"
        let mib = 48
        var bytes = [UInt8](repeating: 0, count: mib << 20)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for i in stride(from: 0, to: bytes.count, by: 8) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            withUnsafeBytes(of: state) { for j in 0..<8 { bytes[i + j] = $0[j] } }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (size, sha) = try LocalFile.measure(path)
        let token = try #require(try Profile(name: "default", home: alice.home).loadSession()).token
        let auth = [("Authorization", "Bearer \(token)")]

        let client = HTTPClient(address: try ServerAddress(parsing: server.url))
        let begun = try client.request(
            "POST", "/v1/uploads", headers: auth, body: Array(#"{"sha256":"\#(sha)","size":\#(size)}"#.utf8))
        #expect(begun.status == 200, "\(String(decoding: begun.body, as: UTF8.self))")

        // The whole file in one request, cut off after 40 MiB: two steps of 16 MiB are
        // durable by then, the third is not whole.
        let cut = 40 << 20
        #expect(throws: HTTPClientError.self) {
            _ = try client.request(
                "PATCH", "/v1/uploads/\(sha)?offset=0", headers: auth, length: Int(size), contentType: "application/octet-stream"
            ) { at, piece in
                guard at < cut else { return nil }
                let n = min(piece.count, cut - at)
                for i in 0..<n { piece[i] = bytes[at + i] }
                return n
            }
        }
        client.close()

        let api = try alice.api()
        var kept = try api.uploadState(sha256: sha)
        let deadline = Date().addingTimeInterval(30)
        while kept.received < 32 << 20, Date() < deadline {
            // The server may still be finishing the request the client left.
            Thread.sleep(forTimeInterval: 0.05)
            kept = try api.uploadState(sha256: sha)
        }
        #expect(kept.received >= 32 << 20 && kept.received <= Int64(cut), "the server kept \(kept.received) bytes of \(cut) sent")
        #expect(!kept.complete)

        // nexusctl's upload goes on from there: not from 0, and the hash matched.
        try api.upload(OutboxFile(path: path, name: "steps.bin", size: size, sha256: sha, type: "application/octet-stream"))
        let done = try api.uploadState(sha256: sha)
        #expect(done.complete && done.received == size)
        #expect(done.bytesIn <= Int64(cut) + size - kept.received, "the server read \(done.bytesIn) bytes: it started over")
    }
}
