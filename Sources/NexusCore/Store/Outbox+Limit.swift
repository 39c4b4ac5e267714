import LibC

/// The cap on the outbox ("Offline queue is full", from the product documents): a queue
/// left to grow for weeks offline would make every command that reads it slower, and
/// flood the conversation when it comes back. Nothing queued is ever dropped for it: new
/// messages are refused, before they are written.
extension Outbox {
    /// The shortest record a nexusctl outbox line can be (a `sent` record with its
    /// localId and time is longer): the file's size then bounds its messages, so the
    /// common case needs no read.
    static let minimumRecordBytes = 64

    /// Under the outbox lock: throws when `adding` new messages would take the queued and
    /// failed messages past `limit`.
    func admit(_ adding: Int, limit: Int) throws(StoreError) {
        var st = stat()
        if stat(file.path, &st) != 0 { return }
        if Int(st.st_size) / Self.minimumRecordBytes + adding <= limit { return }
        let open = try read().entries.count(where: { $0.status != .sent })
        guard open + adding > limit else { return }
        var error = StoreError(
            path: file.path, reason: "Offline queue is full: \(open) message(s) wait in the outbox, the limit is \(limit)")
        error.queueFull = StoreError.QueueFull(open: open, limit: limit)
        throw error
    }
}
