#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MessageCache {
    /// Keeps messages as they are now: an edit, a tombstone, new reactions. A cached message
    /// that differs is put in its place by rewriting its segment atomically (temporary file,
    /// rename), so a deleted message's text leaves the file; the rest are inserted as
    /// `insert` does. Only segments with a real difference are rewritten: reading a page
    /// the cache already agrees with costs a binary search per run, as a read does.
    func upsert(_ messages: [Message]) throws(StoreError) {
        var byConversation: [Int64: [Message]] = [:]
        for m in messages where m.seq > 0 { byConversation[m.conversationId, default: []].append(m) }
        for (conversationId, list) in byConversation {
            let low = list.map(\.seq).min()!, high = list.map(\.seq).max()!
            var cached: [Int64: Message] = [:]
            for m in try self.messages(conversationId, seqs: low...high) { cached[m.seq] = m }
            var newer: [Int64: Message] = [:]
            for m in list where cached[m.seq] != nil && cached[m.seq] != m { newer[m.seq] = m }
            if !newer.isEmpty { try rewrite(conversationId, with: newer) }
            try insert(list.filter { cached[$0.seq] == nil })
        }
    }

    /// Applies the feed's changes, in order, to the messages cached, rewriting their segments
    /// as `upsert` does. Returns each changed message as it is after its change, or nil for
    /// one the cache doesn't hold (a change never brings a message into the cache).
    public func apply(_ changes: [(conversationId: Int64, change: MessageChange)]) throws(StoreError) -> [Message?] {
        var results = [Message?](repeating: nil, count: changes.count)
        var byConversation: [Int64: [Int]] = [:]
        for (i, c) in changes.enumerated() where c.change.seq > 0 { byConversation[c.conversationId, default: []].append(i) }
        for (conversationId, indices) in byConversation {
            let seqs = indices.map { changes[$0].change.seq }
            var current: [Int64: Message] = [:]
            for m in try self.messages(conversationId, seqs: seqs.min()!...seqs.max()!) where seqs.contains(m.seq) { current[m.seq] = m }
            let before = current
            for i in indices {
                let change = changes[i].change
                guard let m = current[change.seq] else { continue }
                current[change.seq] = m.applying(change)
                results[i] = current[change.seq]
            }
            let newer = current.filter { before[$0.key] != $0.value }
            if !newer.isEmpty { try rewrite(conversationId, with: newer) }
        }
        return results
    }

    private func rewrite(_ conversationId: Int64, with newer: [Int64: Message]) throws(StoreError) {
        let encoder = JSONLinesFile.lineEncoder()
        let decoder = JSONDecoder()
        for s in try segments(conversationId) where newer.keys.contains(where: { s.first <= $0 && $0 <= s.last }) {
            let bytes = try FileSystem.readFile(s.path) ?? []
            // Only the lines that may hold one of `newer` are decoded and written anew; the
            // others go over byte for byte (a change costs one line's JSON, not the segment's).
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 256)
            var start = 0
            for i in bytes.indices where bytes[i] == 10 {
                let line = bytes[start..<i]
                start = i + 1
                if line.isEmpty { continue }
                if Self.mayHold(line, oneOf: newer),
                   let old = try? decoder.decode(Message.self, from: Data(line)), let m = newer[old.seq]
                {
                    do { out += try encoder.encode(m) } catch { throw StoreError(path: s.path, reason: "can't encode a record: \(error)") }
                } else {
                    out += line
                }
                out.append(10)
            }
            // Not fsynced, like every cache write: still atomic (temporary file, rename), so
            // the old text is in no file reachable by name once this returns. A torn last
            // line is left out, as a read skips it.
            try FileSystem.writeAtomically(s.path, out, durable: false)
        }
    }

    /// False only when `line` is surely none of `newer`: every `"seq":N` in it names another
    /// seq (the message's own key is among them; a quote inside a string is escaped, so none
    /// comes from a text). A line without one is decoded, to be sure.
    static func mayHold(_ line: ArraySlice<UInt8>, oneOf newer: [Int64: Message]) -> Bool {
        let key = Array(#""seq":"#.utf8)
        var found = false
        var i = line.startIndex
        while i + key.count <= line.endIndex {
            if line[i] == key[0] && line[i..<(i + key.count)].elementsEqual(key) {
                var j = i + key.count
                var value: Int64 = 0
                var digits = 0
                while j < line.endIndex, (48...57).contains(line[j]), digits < 18 {
                    value = value * 10 + Int64(line[j] - 48)
                    digits += 1
                    j += 1
                }
                if digits == 0 || newer[value] != nil { return true }
                found = true
                i = j
            } else {
                i += 1
            }
        }
        return !found
    }
}
