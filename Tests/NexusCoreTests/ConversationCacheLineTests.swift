import Testing
@testable import NexusCore

/// `convos.tsv` lines are read from the bytes, without a String per field. They must give
/// what the String reading gave (`reference` below is that code), for the lines the cache
/// writes and for damaged ones: wrong field counts, signs, empty parts, bytes that are not
/// UTF-8, a "/" or "," followed by a combining mark.
// The clock starts when the run queues a test: the limit bounds the whole run (IntegrationTests/TimeLimit.swift).
@Suite(.timeLimit(.minutes(15)))
struct ConversationCacheLineTests {
    @Test(arguments: [21, 22, 23, 24, 25])
    func damagedLinesReadAsTheStringCodeReadThem(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var bytes: [UInt8] = []
        for s in ConversationsResponse.random(&rng).conversations { ConversationCache.format(s, into: &bytes) }
        let lines = bytes.split(separator: 10).map(Array.init)
        let pieces: [[UInt8]] = [[9], [47], [44], [43], [45], [92], [48], [57], [120], [0xC3], [0xA9], [0xFF], [0xCC, 0x81], [], [45, 45]]
        var checked = 0, readable = 0
        for line in lines {
            #expect(Self.parse(line) == Self.reference(line[...]), "\(line)")
            for _ in 0..<40 {
                var damaged = line
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let at = Int.random(in: 0...damaged.count, using: &rng)
                    let piece = pieces.randomElement(using: &rng)!
                    if at < damaged.count, Bool.random(using: &rng) {
                        damaged.replaceSubrange(at..<(at + 1), with: piece)
                    } else {
                        damaged.insert(contentsOf: piece, at: at)
                    }
                }
                let new = Self.parse(damaged), old = Self.reference(damaged[...])
                #expect(new == old, "\(damaged)")
                checked += 1
                if old != nil { readable += 1 }
            }
        }
        // Lines were compared, and the damage left some readable and some not: else only
        // the rejections, or only the acceptances, were compared.
        #expect(checked >= 40, "\(lines.count) lines")
        #expect(readable > checked / 20 && readable < checked, "\(readable) of \(checked)")
    }

    @Test func edgesOfTheNumbersAndTheReadCounts() {
        let base = "7\tgroup\tname\t1,2\t3\t4\t5\t6\t"
        let cases = ["", "1", "1/2", "1/", "/2", "1/2/3", "//", "x/2", "1/x", "+1/-2", "\u{301}/2", "1/\u{301}2", "1,/2"]
        let members = ["", ",", "1,,2", ",1", "+5,-0", "x,1", "9223372036854775807,-9223372036854775808", "9223372036854775808", "1,\u{301}2"]
        let numbers = ["0", "-0", "+0", "-", "+", "", "00012", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                       "-9223372036854775809", " 1", "1 ", "١"]
        var lines: [String] = []
        lines += cases.map { base + $0 }
        lines += members.map { "7\tdirect\t\t\($0)\t3\t4\t5\t6\t" }
        lines += numbers.map { "\($0)\tgroup\tn\t1\t\($0)\t4\t5\t\($0)\t" }
        lines += numbers.map { base + "1/2\t\($0)\t\($0)\t1\tlocal\t\($0)\ttext" }
        lines += [base + "\t1\t2\t3\tl\t4", base + "1\t1\t2\t3\tl\t4\tt\textra", "7\tchannel\tn\t1\t3\t4\t5\t6\t", "7\tgroup\tn\\tx\\\\y\\q\t1\t3\t4\t5\t6\t"]
        for line in lines {
            let bytes = Array(line.utf8)
            #expect(Self.parse(bytes) == Self.reference(bytes[...]), "\(line.debugDescription)")
        }
    }

    static func parse(_ line: [UInt8]) -> ConversationSummary? {
        line.withUnsafeBufferPointer { ConversationCache.parse($0) }
    }

    // MARK: the String reading, as it was

    static func reference(_ line: ArraySlice<UInt8>) -> ConversationSummary? {
        let f = line.split(separator: 9, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard f.count == 9 || f.count == 15, let id = Int64(f[0]), let kind = ConversationKind(rawValue: f[1]),
              let lastSeq = Int64(f[4]), let created = Int64(f[5]), let updated = Int64(f[6]), let unread = Int(f[7])
        else { return nil }
        var message: Message?
        if f.count == 15 {
            guard let mid = Int64(f[9]), let seq = Int64(f[10]), let sender = Int64(f[11]), let sent = Int64(f[13]) else { return nil }
            message = Message(id: mid, conversationId: id, seq: seq, senderId: sender, localId: unescape(f[12]), text: unescape(f[14]),
                              sentAt: Timestamp(milliseconds: sent))
        }
        let name = unescape(f[2])
        let read = f[8].split(separator: "/").map { Int($0) }
        return ConversationSummary(
            id: id, kind: kind, name: name.isEmpty ? nil : name, memberIds: f[3].split(separator: ",").compactMap { Int64($0) },
            lastSeq: lastSeq, lastMessage: message, createdAt: Timestamp(milliseconds: created),
            updatedAt: Timestamp(milliseconds: updated), unreadCount: unread, lastMessageReadBy: read.first ?? nil,
            lastMessageReaders: read.count == 2 ? read[1] : nil)
    }

    static func unescape(_ s: String) -> String {
        guard s.utf8.contains(92) else { return s }
        var out: [UInt8] = []
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
