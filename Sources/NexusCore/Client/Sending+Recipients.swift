extension Sending {
    /// Gives every queued message known only by its recipient's email, up to `horizon`,
    /// its conversation id: from the profile's map when it knows it, else from the server.
    /// A recipient the server refuses for good fails its messages; a server that can't be
    /// reached, or refuses the credentials, stops the run before anything is sent, because
    /// an unresolved message might come first in any conversation.
    /// The command's own new messages (`discardOnRefusal`) are not kept when refused.
    func resolveRecipients(
        _ entries: inout [OutboxEntry], upTo horizon: Int, discardOnRefusal: Set<String>, _ report: inout DeliveryReport
    ) throws(StoreError) {
        guard horizon >= 0 else { return }
        let open = entries[...horizon].indices.filter { entries[$0].status == .queued && entries[$0].conversationId == nil }
        guard !open.isEmpty else { return }
        var known = profile.loadDirects()
        var refused: [String: (why: String, notFound: Bool)] = [:]
        var records: [OutboxRecord] = []
        for i in open {
            guard let to = entries[i].to else { continue }
            if known[to] == nil, refused[to] == nil {
                do throws(APIError) {
                    let conversation = try api.openDirect(with: to).conversation
                    known[to] = conversation.id
                    try? profile.rememberDirect(email: to, conversationId: conversation.id)
                } catch {
                    if error.isTransportSecurity || error.isTransient {
                        report.stopReason = DeliveryText.stopped(by: error)
                        if error.isTransportSecurity { report.transportSecurity = error }
                        break
                    } else if error.status == 401 || error.status == 403 {
                        report.authRefused = true
                        report.authError = error
                        break
                    }
                    // Trying again can't help a recipient who does not exist: say so instead.
                    refused[to] = error.status == 404
                        ? ("Message failed to send: no user \(to) exists on this server.", true)
                        : ("\(DeliveryText.other) (\(error))", false)
                }
            }
            if let id = known[to] {
                entries[i].conversationId = id
            } else if let (why, notFound) = refused[to] {
                if notFound { report.notFound.insert(entries[i].localId) }
                entries[i].status = .failed
                entries[i].lastError = why
                report.failed.append(entries[i])
                if discardOnRefusal.contains(entries[i].localId) && entries[i].attempts == 0 {
                    report.discarded.insert(entries[i].localId)
                    records.append(OutboxRecord(op: .dropped, localId: entries[i].localId, at: now()))
                } else {
                    records.append(OutboxRecord(op: .failed, localId: entries[i].localId, at: now(), error: why))
                }
            }
        }
        try outbox.append(records)
    }
}
