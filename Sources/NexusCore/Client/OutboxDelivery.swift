/// The words people see when a message does not go out (from the product documents, but
/// a message kept safely in the outbox is said to be queued, with why: it has not failed).
public enum DeliveryText {
    public static let network = "Message queued: the server could not be reached."
    public static let auth = "Message failed to send. Please try signing in again."
    public static let other = "Message failed to send. Please try again."
    public static let secure = "Message waits: no secure connection to the server."
    public static let storage = "Message waits: the server is out of storage."
    /// A message tried for longer than the retry limit (from the product documents).
    static let retryLimit = "Retry limit exceeded"

    /// Why a run stopped on a failure that may pass, or that needs a secure connection.
    static func stopped(by error: APIError) -> String {
        if error.isTransportSecurity { return "\(secure) (\(error))" }
        if error.isStorageFull { return "\(storage) It stays queued and goes when the server has room again." }
        return "Message queued: \(error)"
    }
}

/// What one delivery run did.
public struct DeliveryReport: Sendable {
    public var sent: [(entry: OutboxEntry, message: Message)] = []
    /// Tried, and failed in a way that may pass: still queued, with a backoff.
    public var deferred: [OutboxEntry] = []
    /// Not tried: not due yet, behind an earlier message of its conversation, or after the
    /// run stopped. Still queued.
    public var waiting: [OutboxEntry] = []
    /// Will not be retried without `retry`; `lastError` says why.
    public var failed: [OutboxEntry] = []
    /// Why the run stopped early (the server could not be reached, or answered 429 or 5xx).
    public var stopReason: String?
    /// The server refused the credentials.
    public var authRefused = false
    /// How it refused them, so the words can name the token's or the session's problem.
    public var authError: APIError?
    /// Messages the token may not send there (403 insufficient_scope), with the server's why.
    public var outOfScope: [String: String] = [:]
    /// No secure connection could be made (TLS, or plain http:// refused): the run stopped,
    /// and the messages wait for that to be fixed (`queue` shows why).
    public var transportSecurity: APIError?
    /// Failed messages whose conversation or recipient does not exist (404).
    public var notFound: Set<String> = []
    /// Failed changes the server forbade (403): someone else's message to edit or delete.
    public var forbidden: Set<String> = []
    /// Membership changes and mutes the server found already made (all added already, …), with why.
    public var unchanged: [String: String] = [:]
    /// Mutes and unmutes the server applied: they make no event.
    public var applied: Set<String> = []
    /// The localIds dropped (`queue drop`, by another process) before they went: never sent.
    public var dropped: Set<String> = []
    /// The command's own messages the server refused for good (also in `failed`): nothing
    /// of them was kept.
    var discarded: Set<String> = []
    /// Queued messages another account wrote: they stay queued until a delivery with its
    /// credentials sends them (OutboxAuthor).
    public var otherAuthors: [OutboxEntry] = []

    public init() {}

    public var stillQueued: Int { deferred.count + waiting.count }
}

/// Sends chosen outbox messages in batches, in the order given, and records every
/// outcome in the outbox before it returns. Which messages go, and in what order, is
/// `Sending`'s rule; this is only the mechanism. It never prints: progress goes to
/// `onProgress`.
struct OutboxDelivery {
    let outbox: Outbox
    let api: any SendingAPI
    var now: () -> Timestamp
    var maxItems: Int
    var maxBytes: Int
    /// Called after each batch with (messages done, messages to do).
    var onProgress: ((Int, Int) -> Void)?
    /// Called while a file goes up with (the file, bytes the server has).
    var onUpload: ((OutboxFile, Int64) -> Void)? = nil
    /// How long a message is tried (from its first failed try) before it fails with
    /// "Retry limit exceeded".
    var retryLimitSeconds: Int64 = Sending.defaultRetryLimitSeconds
    /// Where the bytes acknowledged of each file are noted for `queue`.
    var progress: UploadProgress? = nil
    /// The command's own new messages: a refusal no retry can fix leaves nothing of them.
    var discardOnRefusal: Set<String> = []
    /// What this delivery's claims have read of the outbox, so each reads only what is new.
    let claims = Outbox.ClaimView()

    /// Sends `candidates` in order. A message counts as due if it was due at `start`; a
    /// run that stops (server gone, busy, or credentials refused) leaves the rest waiting.
    func deliver(_ candidates: [OutboxEntry], dueAt start: Timestamp, _ report: inout DeliveryReport) throws(StoreError) {
        var done = 0
        var index = 0
        while index < candidates.count {
            if report.stopReason != nil || report.authRefused {
                report.waiting += candidates[index...]
                break
            }
            var batch: [OutboxEntry] = []
            var bytes = 0
            // Sends and changes go by different requests, and a message with files goes in a
            // batch of its own, after its uploads; the queue's order holds across batches.
            while index < candidates.count, batch.count < maxItems,
                  batch.isEmpty || ((batch[0].kind == .send) == (candidates[index].kind == .send)
                      && !batch[0].kind.goesAlone && !candidates[index].kind.goesAlone
                      && bytes + candidates[index].text.utf8.count + 200 <= maxBytes
                      && candidates[index].files.isEmpty && batch[0].files.isEmpty)
            {
                bytes += candidates[index].text.utf8.count + 200
                batch.append(candidates[index])
                index += 1
            }
            try send(batch, due: { $0.isDue(at: start) }, &report)
            done += batch.count
            onProgress?(done, candidates.count)
        }
    }

    /// Sends one batch and records the outcomes. A transient failure of a message tried
    /// before it was due (`ignoreBackoff`) is no strike against it: its backoff stays as it was.
    private func send(_ batch: [OutboxEntry], due: (OutboxEntry) -> Bool, _ report: inout DeliveryReport) throws(StoreError) {
        let at = now()
        var records: [OutboxRecord] = []
        var spent: [OutboxEntry] = []
        var uploaded: [OutboxEntry] = []
        var live: [OutboxEntry] = []
        var results: [BatchResult] = []
        var flight: Outbox.InFlight?
        defer { flight?.end() }
        var failure: APIError?
        do throws(APIError) {
            for e in batch {
                if let why = try uploadFiles(of: e) {
                    records.append(OutboxRecord(op: .failed, localId: e.localId, at: at, error: why))
                    report.failed.append(failing(e, why))
                } else {
                    uploaded.append(e)
                }
            }
        } catch {
            failure = error
        }
        if failure == nil {
            // Right before the request: what `queue drop` took meanwhile stays out, and the
            // rest is in flight (a drop of it waits) until its verdict is appended below.
            let claimed = try outbox.claim(uploaded, view: claims)
            (live, flight) = (claimed.live, claimed.inFlight)
            report.dropped.formUnion(claimed.dropped.map(\.localId))
            spent += claimed.dropped
            do throws(APIError) {
                results = live.isEmpty ? [] : try live[0].kind == .send
                    ? api.sendBatch(live.map(Self.item))
                    : live[0].kind.goesAlone ? [try aloneResult(live[0])]
                    : api.applyChanges(live.map(Self.change))
            } catch {
                failure = error
            }
        }
        if failure == nil {
            for (e, result) in zip(live, results) {
                switch result.status {
                case .created, .duplicate:
                    guard let m = result.message else {
                        // A membership change with nothing left to change, or a mute: done, with no event.
                        guard e.kind.goesAlone else { continue }
                        records.append(OutboxRecord(op: .sent, localId: e.localId, at: at, conversationId: e.conversationId))
                        if result.status == .created { report.applied.insert(e.localId) } else { report.unchanged[e.localId] = result.error?.message }
                        spent.append(e)
                        continue
                    }
                    records.append(OutboxRecord(op: .sent, localId: e.localId, at: at, conversationId: m.conversationId, messageId: m.id, seq: m.seq))
                    var sent = e
                    sent.status = .sent
                    report.sent.append((sent, m))
                    spent.append(e)
                case .rejected:
                    let reason = result.error?.message ?? "rejected"
                    if result.httpStatus == 404 { report.notFound.insert(e.localId) }
                    let why = e.kind != .send ? "\(e.kind.rawValue.capitalized) failed: \(reason)"
                        : result.httpStatus == 404 || result.httpStatus == 403 ? "Message failed to send. \(reason)"
                        : "\(DeliveryText.other) (\(reason))"
                    if result.httpStatus == 403 { report.forbidden.insert(e.localId) }
                    if result.error?.code == "insufficient_scope" { report.outOfScope[e.localId] = reason }
                    records.append(refused(e, why, at: at, &report, &spent))
                }
            }
        } else if let error = failure {
            if error.isTransient || error.isTransportSecurity {
                let why = DeliveryText.stopped(by: error)
                report.stopReason = why
                if error.isTransportSecurity { report.transportSecurity = error }
                var retryAfter: Int64?
                // A day at most: a wild Retry-After must not park a message for ever (or overflow).
                if case .server(_, _, _, let seconds?) = error { retryAfter = min(max(Int64(seconds), 0), 86_400) }
                for e in batch where !report.dropped.contains(e.localId) {
                    // The server's Retry-After binds every message; otherwise a message
                    // tried before it was due keeps the backoff it had.
                    guard due(e) || retryAfter != nil else {
                        report.deferred.append(e)
                        continue
                    }
                    if at.milliseconds - (e.tryingSince ?? at).milliseconds >= retryLimitSeconds * 1000 {
                        let limitWhy = "\(DeliveryText.retryLimit): tried for \(Sending.duration(retryLimitSeconds)). \(why)"
                        records.append(OutboxRecord(op: .failed, localId: e.localId, at: at, error: limitWhy))
                        report.failed.append(failing(e, limitWhy))
                        continue
                    }
                    let delay = max(Sending.backoff(afterAttempts: e.attempts + 1), retryAfter ?? 0)
                    let next = Timestamp(milliseconds: at.milliseconds + delay * 1000)
                    records.append(OutboxRecord(op: .deferred, localId: e.localId, at: at, error: why, nextAttemptAt: next))
                    var deferred = e
                    deferred.lastError = why
                    deferred.nextAttemptAt = next
                    deferred.attempts += 1
                    report.deferred.append(deferred)
                }
            } else {
                let why: String
                if error.status == 401 || error.status == 403 {
                    report.authRefused = true
                    report.authError = error
                    why = DeliveryText.auth
                } else {
                    why = "\(DeliveryText.other) (\(error))"
                }
                for e in batch where !report.dropped.contains(e.localId) {
                    if report.authRefused || error.status == nil {
                        records.append(OutboxRecord(op: .failed, localId: e.localId, at: at, error: why))
                        report.failed.append(failing(e, why))
                    } else {
                        records.append(refused(e, why, at: at, &report, &spent))
                    }
                }
            }
        }
        // Deletes acknowledged, and nothing else: that need not survive a crash. Lost, the
        // delete is sent again and the server answers it as the same change (once per
        // localId); the text it takes off this device left the file when it was queued.
        let deletes = Set(live.filter { $0.kind == .delete }.map(\.localId))
        try outbox.append(records, sync: !records.allSatisfy { $0.op == .sent && deletes.contains($0.localId) })
        removeSpooledFiles(of: spent)
    }

    static func change(_ e: OutboxEntry) -> ChangeItem {
        ChangeItem(
            localId: e.localId, kind: e.kind.change ?? .edit, conversationId: e.conversationId ?? 0, seq: e.target ?? 0,
            text: e.kind == .edit ? e.text : nil, emoji: e.emoji)
    }

    /// The record of a refusal no retry can fix (no such conversation or message, not
    /// allowed): the command's own new message is not kept (`discarded`, a `dropped` record),
    /// as a usage error keeps nothing; any other fails and stays for `retry` or `queue drop`.
    private func refused(
        _ e: OutboxEntry, _ why: String, at: Timestamp, _ report: inout DeliveryReport, _ spent: inout [OutboxEntry]
    ) -> OutboxRecord {
        report.failed.append(failing(e, why))
        guard discardOnRefusal.contains(e.localId), e.attempts == 0 else {
            return OutboxRecord(op: .failed, localId: e.localId, at: at, error: why)
        }
        report.discarded.insert(e.localId)
        spent.append(e)
        return OutboxRecord(op: .dropped, localId: e.localId, at: at)
    }

    func failing(_ e: OutboxEntry, _ why: String) -> OutboxEntry {
        var failed = e
        failed.status = .failed
        failed.lastError = why
        failed.attempts += 1
        return failed
    }
}
