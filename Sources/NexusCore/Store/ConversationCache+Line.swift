// One line of `convos.tsv`, written and read as bytes: `convos` writes ten thousand of
// them online and reads them all offline, and a String per field (fifteen a line) was most
// of the offline command's time.
//
// Fields: id, kind, name, memberIds, lastSeq, createdAt, updatedAt, unreadCount,
// lastMessageReadBy (with "/lastMessageReaders" when known: an older file has the count
// alone), then the last message's id, seq, senderId, localId, sentAt, text.
extension ConversationCache {
    static func format(_ s: ConversationSummary, into bytes: inout [UInt8]) {
        number(s.id, &bytes)
        bytes.append(9)
        bytes.append(contentsOf: s.kind.rawValue.utf8)
        bytes.append(9)
        escape(s.name ?? "", into: &bytes)
        bytes.append(9)
        for (k, id) in s.memberIds.enumerated() {
            if k > 0 { bytes.append(UInt8(ascii: ",")) }
            number(id, &bytes)
        }
        bytes.append(9); number(s.lastSeq, &bytes)
        bytes.append(9); number(s.createdAt.milliseconds, &bytes)
        bytes.append(9); number(s.updatedAt.milliseconds, &bytes)
        bytes.append(9); number(Int64(s.unreadCount), &bytes)
        bytes.append(9)
        if let readBy = s.lastMessageReadBy {
            number(Int64(readBy), &bytes)
            if let readers = s.lastMessageReaders {
                bytes.append(UInt8(ascii: "/"))
                number(Int64(readers), &bytes)
            }
        }
        if let m = s.lastMessage {
            bytes.append(9); number(m.id, &bytes)
            bytes.append(9); number(m.seq, &bytes)
            bytes.append(9); number(m.senderId, &bytes)
            bytes.append(9)
            escape(m.localId, into: &bytes)
            bytes.append(9)
            number(m.sentAt.milliseconds, &bytes)
            bytes.append(9)
            escape(m.text, into: &bytes)
        }
        bytes.append(10)
    }

    /// Digits straight into the bytes, without a String per number: ten thousand rows hold
    /// about a hundred thousand numbers. Written right to left, then turned round in place.
    static func number(_ v: Int64, _ out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        let start = out.count
        repeat {
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: m % 10))
            m /= 10
        } while m > 0
        out.withUnsafeMutableBufferPointer { p in
            var (i, j) = (start, p.count - 1)
            while i < j {
                p.swapAt(i, j)
                i += 1
                j -= 1
            }
        }
    }

    // Byte by byte, not Character by Character: "\r\n" is one Character in Swift, and a
    // backslash or tab followed by a combining mark is one too, so they slipped through.
    static func escape(_ s: String, into bytes: inout [UInt8]) {
        // Most names and texts have nothing to escape: copied whole, from their own bytes.
        let copied = s.utf8.withContiguousStorageIfAvailable { p -> Bool in
            guard !p.contains(where: { $0 == 92 || $0 == 9 || $0 == 10 || $0 == 13 }) else { return false }
            bytes.append(contentsOf: p)
            return true
        }
        if copied == true { return }
        for c in s.utf8 {
            switch c {
            case 92: bytes.append(92); bytes.append(92)
            case 9: bytes.append(92); bytes.append(UInt8(ascii: "t"))
            case 10: bytes.append(92); bytes.append(UInt8(ascii: "n"))
            case 13: bytes.append(92); bytes.append(UInt8(ascii: "r"))
            default: bytes.append(c)
            }
        }
    }

    /// A line back into a summary; nil for a line this format never wrote (it is skipped).
    static func parse(_ line: UnsafeBufferPointer<UInt8>) -> ConversationSummary? {
        // Where each of the 9 or 15 fields starts and ends; a 16th tab means a bad line.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 16) { bounds -> ConversationSummary? in
            var count = 0
            for (i, c) in line.enumerated() where c == 9 {
                guard count < 14 else { return nil }
                bounds[count] = i
                count += 1
            }
            bounds[count] = line.count
            count += 1
            guard count == 9 || count == 15 else { return nil }
            func field(_ k: Int) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: line[(k == 0 ? 0 : bounds[k - 1] + 1)..<bounds[k]])
            }
            guard let id = integer(field(0)), let kind = ConversationKind(rawValue: String(decoding: field(1), as: UTF8.self)),
                  let lastSeq = integer(field(4)), let created = integer(field(5)), let updated = integer(field(6)),
                  let unread = integer(field(7))
            else { return nil }
            var message: Message?
            if count == 15 {
                guard let mid = integer(field(9)), let seq = integer(field(10)), let sender = integer(field(11)),
                      let sent = integer(field(13))
                else { return nil }
                message = Message(id: mid, conversationId: id, seq: seq, senderId: sender, localId: text(field(12)), text: text(field(14)),
                                  sentAt: Timestamp(milliseconds: sent))
            }
            let name = text(field(2))
            let (read, members) = (readCounts(field(8)), memberIds(field(3)))
            return ConversationSummary(
                id: id, kind: kind, name: name.isEmpty ? nil : name, memberIds: members,
                lastSeq: lastSeq, lastMessage: message, createdAt: Timestamp(milliseconds: created),
                updatedAt: Timestamp(milliseconds: updated), unreadCount: Int(unread), lastMessageReadBy: read.first ?? nil,
                lastMessageReaders: read.count == 2 ? read[1] : nil)
        }
    }

    /// What `Int64(String)` reads: an optional sign, then at least one decimal digit, in range.
    static func integer(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        var negative = false
        if let sign = b.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            i = 1
        }
        guard i < b.count else { return nil }
        // Accumulated as a negative number, so Int64.min fits.
        var value: Int64 = 0
        while i < b.count {
            let c = b[i]
            guard c >= 0x30, c <= 0x39 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (v, o2) = m.subtractingReportingOverflow(Int64(c - 0x30))
            guard !o1, !o2 else { return nil }
            value = v
            i += 1
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    /// A text field: its escapes undone.
    static func text(_ b: UnsafeBufferPointer<UInt8>) -> String { unescape(String(decoding: b, as: UTF8.self)) }

    /// "readBy/readers" as the String reading split it: on "/" (empty parts dropped), each
    /// part an Int or nil. Beyond ASCII, Swift splits by Character (a "/" with a combining
    /// mark is no separator), so such a field, which this format never writes, goes that way.
    static func readCounts(_ b: UnsafeBufferPointer<UInt8>) -> [Int?] {
        if b.contains(where: { $0 >= 0x80 }) { return String(decoding: b, as: UTF8.self).split(separator: "/").map { Int($0) } }
        return b.split(separator: UInt8(ascii: "/")).map { integer(UnsafeBufferPointer(rebasing: $0)).map { Int($0) } }
    }

    /// The member ids, comma-separated, as the String reading kept them (see `readCounts`).
    static func memberIds(_ b: UnsafeBufferPointer<UInt8>) -> [Int64] {
        if b.contains(where: { $0 >= 0x80 }) { return String(decoding: b, as: UTF8.self).split(separator: ",").compactMap { Int64($0) } }
        return b.split(separator: UInt8(ascii: ",")).compactMap { integer(UnsafeBufferPointer(rebasing: $0)) }
    }

    static func unescape(_ s: String) -> String {
        guard s.utf8.contains(92) else { return s }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var escaped = false
        for c in s.utf8 {
            if escaped {
                switch c {
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "r"): out.append(13)
                default: out.append(c)
                }
                escaped = false
            } else if c == 92 {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
