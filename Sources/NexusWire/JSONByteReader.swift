/// A reader of JSON bytes for the hand-written decoders of large answers (the conversation
/// list), where Foundation's JSONDecoder takes most of a command's time.
///
/// It reads only what it can read exactly as JSONDecoder would, and gives up on the rest
/// (a number with a fraction or an exponent, an escaped key, a lone surrogate, a control
/// character in a string, bytes that are not UTF-8, a repeated key). The caller then
/// decodes the same bytes with JSONDecoder, which returns the same value or the error, so
/// the wire format keeps one definition: the Codable types.
package struct JSONByteReader {
    /// Not an error to show anyone: the signal to decode with JSONDecoder instead.
    package struct Unreadable: Error { package init() {} }

    /// Which fields an object had, so a repeated key (whose meaning JSONDecoder decides) and
    /// a missing required one are noticed.
    package struct Seen {
        var bits: UInt32 = 0
        package init() {}
        package mutating func mark(_ field: UInt32) throws(Unreadable) {
            guard bits & (1 << field) == 0 else { throw .init() }
            bits |= 1 << field
        }
        package func has(all fields: UInt32...) -> Bool { fields.allSatisfy { bits & (1 << $0) != 0 } }
    }

    package let b: UnsafeBufferPointer<UInt8>
    package var i = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>) { self.b = bytes }

    /// The value `read` makes of all of `bytes` (white space around it allowed); nil when
    /// it gives up or bytes follow the value.
    package static func whole<Value>(_ bytes: UnsafeBufferPointer<UInt8>, _ read: (inout JSONByteReader) throws(Unreadable) -> Value) -> Value? {
        var r = JSONByteReader(bytes)
        guard let value = try? read(&r) else { return nil }
        r.skipSpace()
        return r.atEnd ? value : nil
    }

    package var atEnd: Bool { i >= b.count }

    package mutating func skipSpace() {
        while i < b.count {
            let c = b[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    /// The next byte after white space, not consumed.
    package mutating func peek() throws(Unreadable) -> UInt8 {
        skipSpace()
        guard i < b.count else { throw Unreadable() }
        return b[i]
    }

    package mutating func expect(_ c: UInt8) throws(Unreadable) {
        guard try peek() == c else { throw Unreadable() }
        i += 1
    }

    /// Consumes `c` when it comes next.
    package mutating func take(_ c: UInt8) throws(Unreadable) -> Bool {
        guard try peek() == c else { return false }
        i += 1
        return true
    }

    /// Consumes `null` when it comes next: an optional field's nil.
    package mutating func takeNull() throws(Unreadable) -> Bool {
        guard try peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    private mutating func literal(_ word: StaticString) throws(Unreadable) {
        let n = word.utf8CodeUnitCount
        guard i + n <= b.count else { throw Unreadable() }
        for k in 0..<n where b[i + k] != word.utf8Start[k] { throw Unreadable() }
        i += n
        // "nullx" or "true1" is not a literal.
        if i < b.count, Self.isWordByte(b[i]) { throw Unreadable() }
    }

    private static func isWordByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x2D || c == 0x2B
    }

    // MARK: Objects and arrays

    /// Reads `{`, then calls `field` with each key's bytes (the reader is then at the value,
    /// which `field` must read or skip), up to `}`.
    package mutating func object(_ field: (inout JSONByteReader, Range<Int>) throws(Unreadable) -> Void) throws(Unreadable) {
        try expect(UInt8(ascii: "{"))
        if try take(UInt8(ascii: "}")) { return }
        repeat {
            let key = try keyBytes()
            try expect(UInt8(ascii: ":"))
            try field(&self, key)
        } while try take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    /// Reads `[`, calls `element` for each element, up to `]`.
    package mutating func array(_ element: (inout JSONByteReader) throws(Unreadable) -> Void) throws(Unreadable) {
        try expect(UInt8(ascii: "["))
        if try take(UInt8(ascii: "]")) { return }
        repeat { try element(&self) } while try take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
    }

    /// A key's bytes, between its quotes; an escaped key is left to JSONDecoder.
    private mutating func keyBytes() throws(Unreadable) -> Range<Int> {
        try expect(UInt8(ascii: "\""))
        let start = i
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return start..<(i - 1)
            }
            guard c >= 0x20, c < 0x80, c != UInt8(ascii: "\\") else { throw Unreadable() }
            i += 1
        }
        throw Unreadable()
    }

    /// True when the key's bytes spell `name`.
    @inline(__always)
    package func key(_ key: Range<Int>, is name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        let p = name.utf8Start
        for k in 0..<key.count where b[key.lowerBound + k] != p[k] { return false }
        return true
    }

    // MARK: Values

    package mutating func int64() throws(Unreadable) -> Int64 {
        skipSpace()
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        let start = i
        var value: Int64 = 0
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
            let digit = Int64(b[i] - 0x30)
            // Accumulated as a negative number, so Int64.min fits.
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (v, o2) = m.subtractingReportingOverflow(digit)
            guard !o1, !o2 else { throw Unreadable() }
            value = v
            i += 1
        }
        let digits = i - start
        guard digits > 0, !(digits > 1 && b[start] == 0x30) else { throw Unreadable() }
        if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") { throw Unreadable() }
        if negative { return value }
        guard value != .min else { throw Unreadable() }
        return -value
    }

    package mutating func int() throws(Unreadable) -> Int {
        let v = try int64()
        guard let n = Int(exactly: v) else { throw Unreadable() }
        return n
    }

    package mutating func bool() throws(Unreadable) -> Bool {
        switch try peek() {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: throw Unreadable()
        }
    }

    package mutating func timestamp() throws(Unreadable) -> Timestamp {
        // A time is plain ASCII between quotes: read from the bytes, without a String.
        let save = i
        try expect(UInt8(ascii: "\""))
        let start = i
        while i < b.count, b[i] != UInt8(ascii: "\""), b[i] != UInt8(ascii: "\\") { i += 1 }
        if i < b.count, b[i] == UInt8(ascii: "\"") {
            let bytes = UnsafeBufferPointer(rebasing: b[start..<i])
            i += 1
            guard let t = Timestamp(iso8601: bytes) else { throw Unreadable() }
            return t
        }
        i = save
        guard let t = Timestamp(iso8601: try string()) else { throw Unreadable() }
        return t
    }

    package mutating func string() throws(Unreadable) -> String {
        try expect(UInt8(ascii: "\""))
        let start = i
        // The common case: no escapes, so the bytes are the string's; and when they are all
        // ASCII, they are UTF-8 without the generic validation's cost.
        var high: UInt8 = 0
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                let bytes = UnsafeBufferPointer(rebasing: b[start..<(i - 1)])
                return high < 0x80 ? String(decoding: bytes, as: UTF8.self) : try Self.text(bytes)
            }
            if c == UInt8(ascii: "\\") { break }
            guard c >= 0x20 else { throw Unreadable() }
            high |= c
            i += 1
        }
        var out = Array(b[start..<i])
        while i < b.count {
            let c = b[i]
            i += 1
            if c == UInt8(ascii: "\"") { return try out.withUnsafeBufferPointer { p throws(Unreadable) in try Self.text(p) } }
            guard c >= 0x20 else { throw Unreadable() }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                continue
            }
            guard i < b.count else { throw Unreadable() }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    // A high surrogate must be followed by an escaped low one.
                    guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else { throw Unreadable() }
                    i += 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low < 0xE000 else { throw Unreadable() }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    throw Unreadable()
                }
                guard let u = Unicode.Scalar(scalar) else { throw Unreadable() }
                out.append(contentsOf: UTF8.encode(u)!)
            default:
                throw Unreadable()
            }
        }
        throw Unreadable()
    }

    private mutating func hex4() throws(Unreadable) -> UInt32 {
        guard i + 4 <= b.count else { throw Unreadable() }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw Unreadable()
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    private static func text(_ bytes: UnsafeBufferPointer<UInt8>) throws(Unreadable) -> String {
        guard let s = String(validating: bytes, as: UTF8.self) else { throw Unreadable() }
        return s
    }

    /// Skips a value of a field not read (JSONDecoder ignores unknown keys), checking it is
    /// well-formed as JSONDecoder would.
    package mutating func skipValue(depth: Int = 0) throws(Unreadable) {
        guard depth < 64 else { throw Unreadable() }
        switch try peek() {
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "{"): try object { r, _ throws(Unreadable) in try r.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): try array { r throws(Unreadable) in try r.skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try int64()
        }
    }
}
