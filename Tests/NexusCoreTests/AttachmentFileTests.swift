import Foundation
@testable import NexusCore
import Testing

/// The client's side of attachments that needs no server: the hash is OpenSSL's SHA-256,
/// and the outbox keeps a message's files through compaction.
struct AttachmentFileTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ])
    func sha256MatchesTheStandardVectors(_ input: String, _ expected: String) {
        let digest = SHA256Digest()
        digest.update(Array(input.utf8))
        #expect(digest.finalHex() == expected)
    }

    @Test func aFileIsMeasuredInPiecesLikeInOne() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-measure-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Three pieces and a bit: the hash must not depend on where the reads split.
        let bytes = (0..<(3 * LocalFile.pieceBytes + 12_345)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let whole = SHA256Digest()
        whole.update(bytes)
        let measured = try LocalFile.measure(path)
        #expect(measured.size == Int64(bytes.count))
        #expect(measured.sha256 == whole.finalHex())
        #expect(throws: StoreError.self) { try LocalFile.measure(path + ".missing") }
    }

    @Test func compactionKeepsTheFilesOfOpenMessages() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-files-\(UUID().uuidString)").path
        let profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        let outbox = Outbox(profile: profile)
        let file = OutboxFile(path: "/tmp/a.png", name: "a.png", size: 3, sha256: String(repeating: "0", count: 64), type: "image/png")
        var record = OutboxRecord(op: .queued, localId: "with-file", at: .now(), conversationId: 1, text: "")
        record.files = [file]
        try outbox.append([record])
        try outbox.enqueue([(1, nil, "plain")])
        #expect(try outbox.compact(force: true))
        let entries = try outbox.entries()
        #expect(entries.map(\.files) == [[file], []])
        #expect(entries[0].text == "", "a caption may be empty")
    }

    @Test(arguments: [
        (Int64(512), "512 B"), (Int64(1536), "1.5 KiB"), (Int64(450_000), "439 KiB"), (Int64(1) << 30, "1 GiB"),
    ])
    func sizesReadAsPeopleWriteThem(_ bytes: Int64, _ text: String) {
        #expect(LocalFile.humanSize(bytes) == text)
    }
}
