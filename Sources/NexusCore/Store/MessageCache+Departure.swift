extension MessageCache {
    /// How `me` stopped being a member of a group, as this profile saw it: the newest
    /// membership event that took them out (they left, or someone removed them), unless a
    /// later one added them back. The server answers a non-member "not found", so that a
    /// stranger learns nothing; the profile's own cache can still say why. Nil when the
    /// cache saw no such event.
    public func departure(of me: Int64, from conversationId: Int64) throws(StoreError) -> Message? {
        var top = try lastSeq(conversationId)
        while top >= 1 {
            let bottom = max(1, top - Int64(Limits.maxPageSize) + 1)
            for m in try messages(conversationId, seqs: bottom...top).reversed() {
                guard let event = m.membership else { continue }
                switch event.kind {
                case .left where m.senderId == me: return m
                case .removed where event.userIds?.contains(me) == true: return m
                case .added where event.userIds?.contains(me) == true: return nil
                default: continue
                }
            }
            top = bottom - 1
        }
        return nil
    }
}
