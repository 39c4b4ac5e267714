import Crypto
import HTTPTypes
import Hummingbird
import NIOCore
import NexusWire
import Synchronization

/// Uploads (resumable, in chunks, checked by SHA-256 before the last chunk is
/// acknowledged) and downloads of the files sent with messages. See docs/attachments.md.
struct AttachmentsController {
    let store: any AttachmentStore
    let messages: any MessageStore
    let services: AppServices
    let tracker: UploadTracker

    @Sendable func begin(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.send).user
        let body = try await request.decodeJSON(UploadRequest.self, context: context)
        guard Limits.isSHA256(body.sha256) else { throw Self.badHash }
        guard body.size >= 0 else { throw APIError.badRequest("size must not be negative.", code: "invalid_size") }
        let limit = services.limits.maxAttachmentBytes
        guard body.size <= limit else {
            throw APIError(
                status: .contentTooLarge, code: "attachment_too_large",
                message: "The file is \(body.size) bytes; this server takes attachments of at most \(limit) bytes (nexusd --max-attachment).")
        }
        var state = try await store.begin(user: me.id, sha256: body.sha256, size: body.size, now: services.clock())
        guard state.size == body.size else {
            throw APIError(
                status: .conflict, code: "upload_size_mismatch",
                message: "An upload of this SHA-256 with another size is under way; the size does not match the hash.")
        }
        if state.size == 0 && !state.complete {
            guard Self.hex(SHA256.hash(data: [UInt8]())) == body.sha256 else { throw Self.hashMismatch }
            try await store.complete(user: me.id, sha256: body.sha256)
            state.complete = true
        }
        return try jsonResponse(state)
    }

    @Sendable func state(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.send).user
        let sha = try Self.shaParameter(context)
        guard let state = try await store.upload(user: me.id, sha256: sha) else { throw Self.uploadNotFound }
        return try jsonResponse(state)
    }

    /// One chunk at `offset`, which must be the bytes acknowledged so far. The answer comes
    /// once the chunk is on disk; on the last chunk, once the whole file's hash matched.
    @Sendable func append(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.caller(.send).user
        let sha = try Self.shaParameter(context)
        guard let offset = try request.queryInt("offset", in: RequestNumbers.position) else {
            throw APIError.badRequest("PATCH needs ?offset=N, the bytes acknowledged so far.", code: "invalid_query")
        }
        let key = "\(me.id)/\(sha)"
        guard tracker.claim(key) else {
            throw APIError(
                status: .conflict, code: "upload_busy", message: "Another request is writing this upload; try again shortly.",
                headers: [.retryAfter: "1"])
        }
        defer { tracker.release(key) }
        guard let current = try await store.upload(user: me.id, sha256: sha) else { throw Self.uploadNotFound }
        if current.complete { return try jsonResponse(current) }
        guard offset == current.received else {
            throw APIError(
                status: .conflict, code: "offset_mismatch",
                message: "The server has \(current.received) bytes of this upload; send from offset \(current.received).")
        }
        var hasher: SHA256
        if let saved = tracker.hasher(key, at: offset) {
            hasher = saved
        } else {
            hasher = try await prefixHash(me.id, sha, upTo: offset)
        }
        let chunkLimit = min(Int64(Limits.maxUploadChunkBytes), current.size - offset)
        let state: UploadState
        do {
            state = try await store.append(
                user: me.id, sha256: sha, offset: offset, limit: chunkLimit, body: request.body,
                observe: { piece in piece.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) } })
        } catch is UploadOverflow {
            throw APIError(
                status: .contentTooLarge, code: "chunk_too_large",
                message: "A chunk takes at most \(chunkLimit) bytes here (the upload's size, or \(Limits.maxUploadChunkBytes) bytes).")
        } catch is UploadConflict {
            throw APIError(status: .conflict, code: "offset_mismatch", message: "Another request wrote this upload; ask its state again.")
        }
        guard state.received == state.size else {
            tracker.keep(key, at: state.received, hasher)
            return try jsonResponse(state)
        }
        tracker.forget(key)
        guard Self.hex(hasher.finalize()) == sha else {
            try await store.discard(user: me.id, sha256: sha)
            throw Self.hashMismatch
        }
        try await store.complete(user: me.id, sha256: sha)
        var done = state
        done.complete = true
        return try jsonResponse(done)
    }

    /// The hash of the bytes already acknowledged, read back: after a restart, or when the
    /// previous chunk went to another replica.
    private func prefixHash(_ user: Int64, _ sha: String, upTo offset: Int64) async throws -> SHA256 {
        var hasher = SHA256()
        try await store.read(user: user, sha256: sha, range: 0..<offset) { piece in
            piece.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        }
        return hasher
    }

    /// Streams an attachment to a member of its conversation; everyone else gets the 404
    /// of an unknown conversation, byte for byte.
    @Sendable func download(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.caller
        let id = try context.idParameter()
        _ = try await services.members(of: id, caller: caller, for: .read)
        let seq = try context.pathInt("seq", in: RequestNumbers.id)
        let index = Int(try context.pathInt("index", in: 0...Int64(Limits.maxAttachments - 1)))
        guard let message = try await messages.messages(conversationId: id, before: seq.saturatingAdd(1), limit: 1).messages.first,
              message.seq == seq, let attachments = message.attachments, attachments.indices.contains(index)
        else { throw Self.attachmentNotFound }
        let attachment = attachments[index]
        guard let upload = try await store.upload(user: message.senderId, sha256: attachment.sha256), upload.complete else {
            throw Self.attachmentNotFound
        }
        var headers: HTTPFields = [:]
        headers[.contentType] = "application/octet-stream"
        headers[Self.shaHeader] = attachment.sha256
        let store = self.store
        let sender = message.senderId
        let loop = context.channel?.eventLoop
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: Int(upload.size)) { writer in
                try await store.read(user: sender, sha256: attachment.sha256, range: 0..<upload.size) { piece in
                    try await writer.write(piece)
                    // A write from off the channel's loop reaches it later, and so does the
                    // news that the socket is full: meanwhile the next writes went through,
                    // and a busy host held tens of 256 KiB pieces (nexusd's peak over a 1 GiB
                    // download). Once the loop has taken this write, the next one
                    // waits for the socket.
                    try await loop?.submit {}.get()
                }
                try await writer.finish(nil)
            })
    }

    static let shaHeader = HTTPField.Name("X-Content-SHA256")!
    static let badHash = APIError.badRequest("sha256 must be 64 lower-case hex digits.", code: "invalid_sha256")
    static let uploadNotFound = APIError.notFound("No upload of this SHA-256; start one with POST /v1/uploads.")
    static let attachmentNotFound = APIError.conversationNotFound
    static let hashMismatch = APIError(
        status: .unprocessableContent, code: "hash_mismatch",
        message: "The bytes received do not have the SHA-256 given; the upload was dropped. Was the file changed while it was sent?")

    private static func shaParameter(_ context: AppRequestContext) throws -> String {
        guard let sha = context.parameters.get("sha256"), Limits.isSHA256(sha) else { throw badHash }
        return sha
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in digest {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Uploads being written now (one request at a time each), and the running hash of each
/// upload between its chunks, so a chunk costs no reading back of the ones before.
final class UploadTracker: Sendable {
    private let busy = Mutex<Set<String>>([])
    /// SHA256 is a plain value; it is only declared Sendable here.
    private struct Saved: @unchecked Sendable {
        var offset: Int64
        var hasher: SHA256
    }
    private let hashers = Mutex<[String: Saved]>([:])

    func claim(_ key: String) -> Bool { busy.withLock { $0.insert(key).inserted } }
    func release(_ key: String) { _ = busy.withLock { $0.remove(key) } }

    func hasher(_ key: String, at offset: Int64) -> SHA256? {
        if offset == 0 { return SHA256() }
        return hashers.withLock { saved in saved[key].flatMap { $0.offset == offset ? $0.hasher : nil } }
    }

    func keep(_ key: String, at offset: Int64, _ hasher: SHA256) {
        hashers.withLock { saved in
            // A bound on memory: uploads left half-way are read back when they resume.
            if saved.count >= 1024 { saved.removeAll() }
            saved[key] = Saved(offset: offset, hasher: hasher)
        }
    }

    func forget(_ key: String) { _ = hashers.withLock { $0.removeValue(forKey: key) } }
}
