extension SyncResponse {
    /// The same JSON as the Codable encoding, for a page of message events: what a woken
    /// `tail -f` is answered. The 10,000 tails of one group in the scale test have 1,000 such pages to
    /// encode at once, and Codable's encoder took a twentieth of nexusd's time for them.
    /// Nil when an event is of another kind, or the answer carries typing or presence:
    /// those go through the encoder.
    public func jsonBytes() -> [UInt8]? {
        guard typing == nil, presence == nil, presenceDigest == nil, mutes == nil, mutesDigest == nil else { return nil }
        var capacity = 64
        for event in events {
            guard event.type == .message, event.message != nil || event.change != nil, event.conversation == nil, event.receipt == nil
            else { return nil }
            capacity += 320 + (event.message?.text ?? event.change?.text ?? "").utf8.count
        }
        var w = JSONWriter(capacity: capacity)
        w.beginObject()
        w.key("events")
        w.beginArray()
        for event in events {
            w.beginObject()
            w.key("id"); w.int(event.id)
            w.key("type"); w.string(event.type.rawValue)
            w.key("conversationId"); w.int(event.conversationId)
            if let message = event.message { w.key("message"); message.write(to: &w) }
            if let change = event.change {
                w.key("change")
                w.beginObject()
                w.key("kind"); w.string(change.kind.rawValue)
                w.key("userId"); w.int(change.userId)
                if let emoji = change.emoji { w.key("emoji"); w.string(emoji) }
                w.key("at"); w.timestamp(change.at)
                w.key("seq"); w.int(change.seq)
                if let text = change.text { w.key("text"); w.string(text) }
                w.endObject()
            }
            if let check = event.check { w.key("check"); w.string(check) }
            w.endObject()
        }
        w.endArray()
        w.key("cursor"); w.int(cursor)
        if let cursorCheck { w.key("cursorCheck"); w.string(cursorCheck) }
        w.endObject()
        return w.bytes
    }
}
