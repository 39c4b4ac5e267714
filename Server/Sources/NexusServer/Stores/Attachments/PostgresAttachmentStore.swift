import Hummingbird
import NIOCore
import NexusWire
import PostgresNIO

/// PostgreSQL mode: the bytes in the database, in `upload_chunks` rows of about 2 MiB
/// keyed by their offset, so any replica serves any blob and a backup holds them all.
struct PostgresAttachmentStore: AttachmentStore {
    let db: PostgresDatabase

    private static func state(_ row: PostgresRandomAccessRow) throws -> UploadState {
        UploadState(
            sha256: try row["sha256"].decode(String.self), size: try row["size"].decode(Int64.self),
            received: try row["received"].decode(Int64.self), complete: try row["complete"].decode(Bool.self),
            bytesIn: try row["bytes_in"].decode(Int64.self))
    }

    func upload(user: Int64, sha256: String) async throws -> UploadState? {
        try await db.rows(
            "SELECT sha256, size, received, complete, bytes_in FROM uploads WHERE user_id = \(user) AND sha256 = \(sha256)"
        ).first.map(Self.state)
    }

    func begin(user: Int64, sha256: String, size: Int64, now: Timestamp) async throws -> UploadState {
        _ = try await db.rows(
            """
            INSERT INTO uploads (user_id, sha256, size, received, complete, bytes_in, created_at)
            VALUES (\(user), \(sha256), \(size), 0, false, 0, \(now.milliseconds)) ON CONFLICT DO NOTHING
            """)
        guard let state = try await upload(user: user, sha256: sha256) else { throw StoreError.inconsistent("upload \(sha256)") }
        return state
    }

    func append(
        user: Int64, sha256: String, offset: Int64, limit: Int64, body: RequestBody, observe: (ByteBuffer) -> Void
    ) async throws -> UploadState {
        // Rows past the acknowledged bytes are from a chunk that broke off.
        _ = try await db.rows("DELETE FROM upload_chunks WHERE user_id = \(user) AND sha256 = \(sha256) AND at >= \(offset)")
        var written: Int64 = 0
        var read: Int64 = 0
        var failure: (any Error)?
        // One row's INSERT runs while the next row arrives and is hashed; it gives its
        // buffer back for the row after that.
        var inFlight: Task<ByteBuffer, any Error>?
        do {
            var gatherer = PieceGatherer(size: 2 << 20, room: 256 << 10)
            for try await var piece in body {
                read += Int64(piece.readableBytes)
                if written + Int64(piece.readableBytes) + Int64(gatherer.buffer.readableBytes) > limit { throw UploadOverflow() }
                observe(piece)
                if gatherer.add(&piece) {
                    if let row = inFlight {
                        inFlight = nil
                        gatherer.recycle(try await row.value)
                    }
                    guard let full = gatherer.take() else { continue }
                    inFlight = Task { [self, at = offset + written] in
                        try await insert(user, sha256, at: at, full)
                        return full
                    }
                    written += Int64(full.readableBytes)
                }
            }
            _ = try await inFlight?.value
            inFlight = nil
            if let rest = gatherer.take() {
                try await insert(user, sha256, at: offset + written, rest)
                written += Int64(rest.readableBytes)
            }
        } catch {
            failure = error
            // Its row must be in before the next chunk's DELETE, or gone with its failure.
            _ = try? await inFlight?.value
        }
        let acknowledged = failure == nil ? written : 0
        let rows = try await db.rows(
            """
            UPDATE uploads SET received = received + \(acknowledged), bytes_in = bytes_in + \(read)
            WHERE user_id = \(user) AND sha256 = \(sha256) AND received = \(offset)
            RETURNING sha256, size, received, complete, bytes_in
            """)
        if let failure { throw failure }
        guard let row = rows.first else { throw UploadConflict() }
        return try Self.state(row)
    }

    /// One row, committed without waiting for the WAL on disk: the UPDATE that acknowledges
    /// the chunk commits synchronously, and flushing the WAL up to it takes these rows too.
    private func insert(_ user: Int64, _ sha256: String, at: Int64, _ data: ByteBuffer) async throws {
        try await db.transaction { [logger = db.logger] c in
            try await c.query("SET LOCAL synchronous_commit TO OFF", logger: logger)
            _ = try await c.execute(InsertUploadChunk(user: user, sha256: sha256, at: at, data: data), logger: logger)
        }
    }

    func complete(user: Int64, sha256: String) async throws {
        _ = try await db.rows("UPDATE uploads SET complete = true WHERE user_id = \(user) AND sha256 = \(sha256)")
    }

    func discard(user: Int64, sha256: String) async throws {
        try await db.transaction { c in
            try await c.query("DELETE FROM upload_chunks WHERE user_id = \(user) AND sha256 = \(sha256)", logger: db.logger)
            try await c.query("DELETE FROM uploads WHERE user_id = \(user) AND sha256 = \(sha256)", logger: db.logger)
        }
    }

    func read(user: Int64, sha256: String, range: Range<Int64>, _ piece: (ByteBuffer) async throws -> Void) async throws {
        var at = range.lowerBound
        while at < range.upperBound {
            // The row that holds byte `at`: one row in memory at a time.
            guard let row = try await db.rows(
                """
                SELECT at, data FROM upload_chunks WHERE user_id = \(user) AND sha256 = \(sha256) AND at <= \(at)
                ORDER BY at DESC LIMIT 1
                """
            ).first else { throw StoreError.inconsistent("blob \(sha256) has no bytes at \(at)") }
            let start = try row["at"].decode(Int64.self)
            var data = try row["data"].decode(ByteBuffer.self)
            data.moveReaderIndex(forwardBy: Int(at - start))
            let count = Int(min(Int64(data.readableBytes), range.upperBound - at))
            guard count > 0, let slice = data.readSlice(length: count) else {
                throw StoreError.inconsistent("blob \(sha256) is short at \(at)")
            }
            at += Int64(count)
            try await piece(slice)
        }
    }

    func cleanUp(before: Timestamp) async throws -> Int {
        let stale = try await db.rows(
            "SELECT user_id, sha256 FROM uploads WHERE created_at < \(before.milliseconds) AND \(unescaped: BlobReference.unreferenced)")
        for row in stale {
            try await discard(user: try row["user_id"].decode(Int64.self), sha256: try row["sha256"].decode(String.self))
        }
        return stale.count
    }

    func release(user: Int64, sha256: String) async throws -> Bool {
        try await db.transaction { c in
            let gone = try await c.query(
                "DELETE FROM uploads WHERE user_id = \(user) AND sha256 = \(sha256) AND \(unescaped: BlobReference.unreferenced) RETURNING sha256",
                logger: db.logger
            ).collect()
            guard !gone.isEmpty else { return false }
            try await c.query("DELETE FROM upload_chunks WHERE user_id = \(user) AND sha256 = \(sha256)", logger: db.logger)
            return true
        }
    }
}

/// A chunk's INSERT, prepared once on each connection. Sent unnamed, it was planned for every
/// row with the row's 2 MiB as a constant: PostgreSQL copied the bytes twice more to plan it,
/// about a sixth of its backend's CPU over an upload. A prepared INSERT soon runs
/// on a generic plan, which takes the bytes as the parameter they are.
private struct InsertUploadChunk: PostgresPreparedStatement {
    typealias Row = ()
    static let name = "InsertUploadChunk"  // not worked out at every execute (SendGroup.name)
    static let sql = "INSERT INTO upload_chunks (user_id, sha256, at, data) VALUES ($1, $2, $3, $4)"

    let user: Int64, sha256: String, at: Int64, data: ByteBuffer

    func makeBindings() throws -> PostgresBindings {
        var b = PostgresBindings(capacity: 4)
        b.append(user); b.append(sha256); b.append(at); b.append(data)
        return b
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {}
}
