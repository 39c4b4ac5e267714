extension Sending {
    /// The entries this delivery's account wrote; the queued ones of other accounts go to
    /// `report.otherAuthors` and are neither resolved, ordered nor sent. An access token's
    /// user is asked of the server only when an entry needs it; while that can't be known,
    /// those entries wait too.
    func ownEntries(_ entries: [OutboxEntry], _ report: inout DeliveryReport) throws(StoreError) -> [OutboxEntry] {
        guard var me = outbox.author else { return entries }
        var own: [OutboxEntry] = []
        var asked = false
        for e in entries {
            var wrote = me.wrote(e.author, profileOwner: profileOwner)
            if wrote == nil, !asked, e.status != .sent {
                asked = true
                me.userId = try? api.me().id
                wrote = me.wrote(e.author, profileOwner: profileOwner)
            }
            if wrote == true || e.status == .sent {
                own.append(e)
            } else if e.status == .queued {
                report.otherAuthors.append(e)
            }
        }
        return own
    }
}
