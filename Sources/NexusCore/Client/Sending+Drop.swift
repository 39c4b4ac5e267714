extension Sending {
    /// `queue drop`: the messages are never sent, also not by a delivery running now in
    /// another process (see Outbox+Drop); the outbox's own copies of their files go too.
    /// It sends nothing, so it needs no session or server: the outbox is a file of the profile.
    public static func drop(
        _ localIds: [String], from outbox: Outbox, progress: UploadProgress? = nil, onWait: (() -> Void)? = nil
    ) throws(Outbox.DropError) -> [Outbox.DropOutcome] {
        let outcomes = try outbox.drop(localIds, onWait: onWait)
        OutboxDelivery.removeSpooledFiles(of: outcomes.compactMap { if case .dropped(let e, _) = $0 { e } else { nil } }, progress: progress)
        return outcomes
    }

    /// "24h", "90m", "45s", "7d": a limit as people write it.
    public static func duration(_ seconds: Int64) -> String {
        for (unit, size) in [("d", Int64(86_400)), ("h", 3600), ("m", 60)] where seconds >= size && seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }
}
