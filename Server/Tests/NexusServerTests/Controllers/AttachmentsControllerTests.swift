import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NexusWire
import Testing

@testable import NexusServer

extension API {
    static func sha256(_ text: String) -> String { AttachmentsController.hex(SHA256.hash(data: Array(text.utf8))) }

    func patch(_ token: String, _ sha: String, offset: Int64, bytes: String) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        headers[.authorization] = "Bearer \(token)"
        headers[.contentType] = "application/octet-stream"
        return try await client.executeRequest(
            uri: "/v1/uploads/\(sha)?offset=\(offset)", method: .patch, headers: headers, body: ByteBuffer(string: bytes))
    }

    /// Uploads `bytes` in one chunk and sends them as the attachment `file.txt`.
    func sendWithFile(_ token: String, to conversation: Int64, localId: String, bytes: String) async throws {
        let sha = Self.sha256(bytes)
        let size = Int64(bytes.utf8.count)
        #expect(try await call(.post, "/v1/uploads", token: token, json: UploadRequest(sha256: sha, size: size)).status == .ok)
        #expect(try await patch(token, sha, offset: 0, bytes: bytes).status == .ok)
        let send = try await call(
            .post, "/v1/conversations/\(conversation)/messages", token: token,
            json: SendRequest(localId: localId, text: "", attachments: [Attachment(name: "file.txt", size: size, type: "text/plain", sha256: sha)]))
        #expect(send.status == .created, "\(send.text)")
    }
}

/// Uploads and downloads in-process, on both backends: chunks resume at the acknowledged
/// offset, the hash is checked before the last acknowledgement, and an upload is its
/// uploader's alone.
struct AttachmentsControllerTests {
    @Test func chunksResumeAtTheAcknowledgedOffsetAndTheHashIsCheckedAtTheEnd() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            let text = "first half|second half"
            let sha = API.sha256(text)
            let begun = try decode(UploadState.self, try await api.call(.post, "/v1/uploads", token: alice.token, json: UploadRequest(sha256: sha, size: 22)))
            #expect(begun == UploadState(sha256: sha, size: 22, received: 0, complete: false, bytesIn: 0))
            let first = try decode(UploadState.self, try await api.patch(alice.token, sha, offset: 0, bytes: "first half|"))
            #expect(first.received == 11 && !first.complete)
            // A resend of the same chunk is refused with where to go on from.
            try expectError(try await api.patch(alice.token, sha, offset: 0, bytes: "first half|"), .conflict, code: "offset_mismatch")
            // Asking again answers where it stands.
            let again = try decode(UploadState.self, try await api.call(.post, "/v1/uploads", token: alice.token, json: UploadRequest(sha256: sha, size: 22)))
            #expect(again.received == 11 && again.bytesIn == 11, "a refused chunk is not read")
            try expectError(try await api.patch(alice.token, sha, offset: 11, bytes: "second half and more"), .contentTooLarge, code: "chunk_too_large")
            let done = try decode(UploadState.self, try await api.patch(alice.token, sha, offset: 11, bytes: "second half"))
            #expect(done.complete && done.received == 22)

            // Bob, a member, downloads it; the message carries its description.
            let send = try await api.call(
                .post, "/v1/conversations/\(conversation)/messages", token: alice.token,
                json: SendRequest(localId: "f", text: "caption", attachments: [Attachment(name: "a.txt", size: 22, type: "text/plain", sha256: sha)]))
            #expect(send.status == .created, "\(send.text)")
            let page = try await api.messages(bob.token, in: conversation)
            #expect(page.messages.last?.attachments == [Attachment(name: "a.txt", size: 22, type: "text/plain", sha256: sha)])
            let download = try await api.call(.get, "/v1/conversations/\(conversation)/messages/1/attachments/0", token: bob.token)
            #expect(download.status == .ok && download.text == text)
            #expect(download.headers[HTTPField.Name("X-Content-SHA256")!] == sha)
            let missing = try await api.call(.get, "/v1/conversations/\(conversation)/messages/1/attachments/1", token: bob.token)
            try expectError(missing, .notFound, code: "not_found")
        }
    }

    @Test func bytesThatDoNotMatchTheHashAreDroppedNotAcknowledged() async throws {
        try await withServer { api in
            let alice = try await api.register("alice@example.com")
            let sha = API.sha256("the right bytes")
            _ = try await api.call(.post, "/v1/uploads", token: alice.token, json: UploadRequest(sha256: sha, size: 15))
            try expectError(try await api.patch(alice.token, sha, offset: 0, bytes: "the wrong bytes"), .unprocessableContent, code: "hash_mismatch")
            try expectError(try await api.call(.get, "/v1/uploads/\(sha)", token: alice.token), .notFound, code: "not_found")
        }
    }

    /// Knowing a file's hash is not having it: another user's upload can be neither seen,
    /// written nor attached.
    @Test func anUploadIsItsUploadersAlone() async throws {
        try await withServer { api in
            let (alice, bob, conversation) = try await api.pair()
            try await api.sendWithFile(alice.token, to: conversation, localId: "a", bytes: "secret")
            let sha = API.sha256("secret")
            try expectError(try await api.call(.get, "/v1/uploads/\(sha)", token: bob.token), .notFound, code: "not_found")
            try expectError(try await api.patch(bob.token, sha, offset: 0, bytes: "secret"), .notFound, code: "not_found")
            let attach = try await api.call(
                .post, "/v1/conversations/\(conversation)/messages", token: bob.token,
                json: SendRequest(localId: "b", text: "", attachments: [Attachment(name: "x", size: 6, type: "text/plain", sha256: sha)]))
            try expectError(attach, .conflict, code: "attachment_not_uploaded")
        }
    }

    @Test func theLimitAndTheShapeOfAnAttachmentAreChecked() async throws {
        var limits = ServerLimits()
        limits.maxAttachmentBytes = 10
        try await withServer(limits: limits) { api in
            let (alice, _, conversation) = try await api.pair()
            let big = try await api.call(.post, "/v1/uploads", token: alice.token, json: UploadRequest(sha256: API.sha256("x"), size: 11))
            try expectError(big, .contentTooLarge, code: "attachment_too_large")
            try expectError(
                try await api.call(.post, "/v1/uploads", token: alice.token, raw: #"{"sha256":"ABC","size":1}"#), .badRequest, code: "invalid_sha256")
            // An empty file is complete at once; a name with a slash is refused.
            let empty = try decode(UploadState.self, try await api.call(.post, "/v1/uploads", token: alice.token, json: UploadRequest(sha256: API.sha256(""), size: 0)))
            #expect(empty.complete)
            let slash = try await api.call(
                .post, "/v1/conversations/\(conversation)/messages", token: alice.token,
                json: SendRequest(localId: "s", text: "", attachments: [Attachment(name: "../etc/passwd", size: 0, type: "text/plain", sha256: API.sha256(""))]))
            try expectError(slash, .badRequest, code: "invalid_attachment")
        }
    }
}
