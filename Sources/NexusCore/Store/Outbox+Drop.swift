import LibC

/// `queue drop`, and the claim that makes it safe against a delivery already running in
/// another process. The two meet under the outbox lock:
///
/// - a delivery, right before each request, re-reads the outbox under the lock, leaves out
///   what was dropped meanwhile, and writes the localIds it is about to send into
///   `inflight.lock`, which it holds until the request's verdict is appended;
/// - a drop, under the same lock, writes its `dropped` record only for a message that is
///   not in flight; for one that is, it waits for the in-flight lock and looks again, and
///   then finds it sent (too late to drop) or back in the queue (dropped).
///
/// So a message is either claimed before the drop (and the drop reports it sent, or drops
/// it after a failed try), or dropped before the claim (and never sent).
extension Outbox {
    /// The messages of one request, marked in flight until `end`.
    final class InFlight {
        let lock: FileLock

        init(_ lock: FileLock) { self.lock = lock }

        /// The request's verdict is in the outbox: a waiting drop may look again.
        public func end() {
            // An empty file with a free lock: nothing in flight. A crashed delivery leaves
            // its ids behind, which tells a drop the message may have reached the server.
            try? lock.replaceContents([])
            lock.unlock()
        }
    }

    /// Right before a request: leaves out the messages of `batch` dropped meanwhile (or gone
    /// from the file, which only a drop or a send does), and marks the rest in flight. `view`
    /// carries what the delivery's previous claims read (Outbox+ClaimView.swift).
    func claim(_ batch: [OutboxEntry], view: ClaimView = ClaimView()) throws(StoreError) -> (live: [OutboxEntry], dropped: [OutboxEntry], inFlight: InFlight?) {
        let lock = try FileLock.acquire(lockPath)
        defer { lock.unlock() }
        try view.update(file.path)
        var live: [OutboxEntry] = []
        var dropped: [OutboxEntry] = []
        for e in batch {
            if view.dropped.contains(e.localId) || (!view.present.contains(e.localId) && e.status != .sent) {
                dropped.append(e)
            } else {
                live.append(e)
            }
        }
        guard !live.isEmpty else { return (live, dropped, nil) }
        let flight = try FileLock.acquire(inFlightPath)
        do {
            try flight.replaceContents(Array(live.map(\.localId).joined(separator: "\n").utf8))
        } catch {
            flight.unlock()
            throw error
        }
        return (live, dropped, InFlight(flight))
    }

    public enum DropOutcome: Sendable, Equatable {
        /// It will never be sent. `maybeSent`: a delivery that was sending it was killed
        /// mid-request, so the server may have it (a `delete` takes it back).
        case dropped(OutboxEntry, maybeSent: Bool)
        /// The server has it: too late to drop.
        case alreadySent(OutboxEntry)
        /// Another drop got there first.
        case alreadyDropped(String)
    }

    public enum DropError: Error, Equatable {
        case notInOutbox(localId: String)
        case store(StoreError)
    }

    /// Drops queued or failed messages, so that no delivery ever sends them, also one that
    /// is running now. A message in flight at this instant is waited for (`onWait` is told
    /// first): its verdict decides. Unknown localIds throw before anything is dropped.
    public func drop(_ localIds: [String], onWait: (() -> Void)? = nil) throws(DropError) -> [DropOutcome] {
        // No outbox yet (nor perhaps the profile's folder): nothing to drop, nothing to lock.
        if let first = localIds.first, !FileSystem.exists(file.path) { throw .notInOutbox(localId: first) }
        var outcomes: [String: DropOutcome] = [:]
        var todo: [String] = []
        for id in localIds where !todo.contains(id) { todo.append(id) }
        var seen: [String: OutboxEntry] = [:]
        var firstPass = true
        while !todo.isEmpty {
            let lock: FileLock
            let contents: Contents
            do {
                lock = try FileLock.acquire(lockPath)
                contents = try read()
            } catch {
                throw .store(error)
            }
            defer { lock.unlock() }
            var open: [String: OutboxEntry] = [:]
            for e in contents.entries { open[e.localId] = e }
            if firstPass, let unknown = todo.first(where: { open[$0] == nil && contents.dropped[$0] == nil }) {
                throw .notInOutbox(localId: unknown)
            }
            firstPass = false
            let flight: (ids: Set<String>, crashed: Set<String>)
            do { flight = try inFlightIds() } catch { throw .store(error) }
            var records: [OutboxRecord] = []
            var busy: [String] = []
            let at = Timestamp.now()
            for id in todo {
                guard let e = open[id] else {
                    // Gone after a wait: sent, and the sent entries rewritten away.
                    outcomes[id] = contents.dropped[id] == nil ? seen[id].map { .alreadySent($0) } ?? .alreadyDropped(id) : .alreadyDropped(id)
                    continue
                }
                seen[id] = e
                if e.status == .sent {
                    outcomes[id] = .alreadySent(e)
                } else if flight.ids.contains(id) {
                    busy.append(id)
                } else {
                    records.append(OutboxRecord(op: .dropped, localId: id, at: at))
                    outcomes[id] = .dropped(e, maybeSent: flight.crashed.contains(id))
                }
            }
            do { try file.append(records) } catch { throw .store(error) }
            lock.unlock()
            todo = busy
            guard !busy.isEmpty else { break }
            onWait?()
            // The delivery holds this until the request's verdict is in the outbox.
            do { try FileLock.acquire(inFlightPath).unlock() } catch { throw .store(error) }
        }
        return localIds.reduce(into: [DropOutcome]()) { list, id in
            if let o = outcomes.removeValue(forKey: id) { list.append(o) }
        }
    }

    /// Under the outbox lock: the localIds a running delivery has in flight, and those a
    /// killed one left behind (its request may have reached the server).
    private func inFlightIds() throws(StoreError) -> (ids: Set<String>, crashed: Set<String>) {
        // Taken, the lock shows what a killed delivery left; held, what is in flight now
        // (a delivery empties the file before it lets go).
        let free = try FileLock.tryAcquire(inFlightPath)
        defer { free?.unlock() }
        guard let bytes = try FileSystem.readFile(inFlightPath), !bytes.isEmpty else { return ([], []) }
        let ids = Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
        return free == nil ? (ids, []) : ([], ids)
    }
}
