import Foundation
import Hummingbird
import NIOCore
import NexusWire

/// Uploads and the files they become: one per (uploader, SHA-256). The bookkeeping
/// (size, bytes acknowledged, done) is a table on both backends; the bytes live in a
/// blob folder beside a SQLite database, or in a chunk table on PostgreSQL so any
/// replica serves any blob (docs/attachments.md).
protocol AttachmentStore: Sendable {
    /// The upload of `sha256` by `user`, or nil.
    func upload(user: Int64, sha256: String) async throws -> UploadState?
    /// Starts an upload, or finds the one already there (whatever its size: the caller compares).
    func begin(user: Int64, sha256: String, size: Int64, now: Timestamp) async throws -> UploadState
    /// Appends the bytes of `body` at `offset`, which must be the bytes acknowledged so far,
    /// passing each piece to `observe` (the hash); syncs them to disk and records them
    /// before it returns the new state. A body that breaks off still counts in `bytesIn`.
    func append(
        user: Int64, sha256: String, offset: Int64, limit: Int64, body: RequestBody, observe: (ByteBuffer) -> Void
    ) async throws -> UploadState
    /// Marks a fully received upload done, once its hash was checked.
    func complete(user: Int64, sha256: String) async throws
    /// Forgets an upload and its bytes.
    func discard(user: Int64, sha256: String) async throws
    /// Bytes `range` of an upload, in pieces, in order.
    func read(user: Int64, sha256: String, range: Range<Int64>, _ piece: (ByteBuffer) async throws -> Void) async throws
    /// Deletes uploads started before `before` that no message refers to; returns how many.
    func cleanUp(before: Timestamp) async throws -> Int
    /// Deletes the upload and its bytes if no message of `user` refers to it any more (after
    /// a delete); returns whether it went. The check and the delete are one statement, so a
    /// message that still names the blob keeps it.
    func release(user: Int64, sha256: String) async throws -> Bool
}

/// The test "no message of the uploader names this blob, nor is it their picture", for
/// both backends: the `attachments` column is JSON holding each SHA-256 as written, and
/// the UNIQUE (sender_id, local_id) index narrows the scan to the uploader's messages.
enum BlobReference {
    static let unreferenced = """
        NOT EXISTS (SELECT 1 FROM messages m WHERE m.sender_id = uploads.user_id AND m.attachments LIKE '%' || uploads.sha256 || '%')
        AND NOT EXISTS (SELECT 1 FROM user_pictures p WHERE p.user_id = uploads.user_id AND p.sha256 = uploads.sha256)
        """
}

/// The `attachments` column of a message: its attachments as a JSON array, NULL when none.
enum AttachmentColumn {
    static func encode(_ attachments: [Attachment]) -> String? {
        guard !attachments.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(attachments)).map { String(decoding: $0, as: UTF8.self) }
    }

    static func decode(_ text: String?) -> [Attachment]? {
        guard let text, !text.isEmpty else { return nil }
        return try? JSONDecoder().decode([Attachment].self, from: Data(text.utf8))
    }
}

/// Pieces of a request body gathered into writes of about `size` bytes: fewer, larger
/// writes (and database rows), while memory stays bounded. A buffer once written is given
/// back (`recycle`) and gathers the next write: a fresh one for each took a 1 or 2 MiB
/// allocation a write, whose space glibc kept in the arenas of the threads that freed them.
struct PieceGatherer {
    let size: Int
    /// Capacity beyond `size` for the piece that crosses it, which otherwise doubles the
    /// buffer: PostgreSQL's 2 MiB rows each took a 4 MiB allocation.
    let room: Int
    var buffer: ByteBuffer
    private var spare: ByteBuffer?

    init(size: Int = 1 << 20, room: Int = 0) {
        self.size = size
        self.room = room
        self.buffer = ByteBufferAllocator().buffer(capacity: size + room)
    }

    /// Adds `piece`; true once a write's worth is gathered (`take` it).
    mutating func add(_ piece: inout ByteBuffer) -> Bool {
        buffer.writeBuffer(&piece)
        return buffer.readableBytes >= size
    }

    /// What is gathered, to write; nil when nothing is.
    mutating func take() -> ByteBuffer? {
        guard buffer.readableBytes > 0 else { return nil }
        let full = buffer
        if var spare = spare.take() {
            spare.clear()
            buffer = spare
        } else {
            buffer = ByteBufferAllocator().buffer(capacity: size + room)
        }
        return full
    }

    /// `written`, a buffer `take` gave, once nothing else holds it: the next one gathers into it.
    mutating func recycle(_ written: ByteBuffer) {
        spare = written
    }
}

/// The body was longer than the upload has room for.
struct UploadOverflow: Error {}
