extension Outbox {
    /// The outbox as `queue` lists it: every message not yet sent, in queue order, with
    /// the due ones shown as sending while another delivery holds the flush lock.
    public func queue(now: Timestamp = .now()) throws(StoreError) -> Outbox.Contents {
        var contents = try read()
        contents.entries.removeAll { $0.status == .sent }
        if isDelivering {
            for i in contents.entries.indices where contents.entries[i].isDue(at: now) { contents.entries[i].status = .sending }
        }
        return contents
    }
}
