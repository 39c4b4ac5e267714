extension Sending {
    public enum RetryError: Error {
        case notInOutbox(localId: String)
        case notFailed(localId: String, status: OutboxStatus)
        case store(StoreError)
    }

    /// Makes failed messages due again: these, or every failed one when `localIds` is nil.
    /// Returns them (none when nothing failed); a `deliver(.everything…)` then sends them
    /// in their places in the queue.
    public func retry(_ localIds: [String]?) throws(RetryError) -> [OutboxEntry] {
        let entries: [OutboxEntry]
        do { entries = try outbox.read().entries } catch { throw .store(error) }
        var chosen: [OutboxEntry] = []
        if let localIds {
            for id in localIds {
                guard let e = entries.first(where: { $0.localId == id }) else { throw .notInOutbox(localId: id) }
                guard e.status == .failed else { throw .notFailed(localId: id, status: e.status) }
                chosen.append(e)
            }
        } else {
            chosen = entries.filter { $0.status == .failed }
        }
        guard !chosen.isEmpty else { return [] }
        let at = now()
        do {
            try outbox.append(chosen.map { OutboxRecord(op: .retry, localId: $0.localId, at: at) })
        } catch {
            throw .store(error)
        }
        return chosen
    }
}
