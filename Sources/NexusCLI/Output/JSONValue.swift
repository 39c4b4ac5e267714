#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any JSON document, for reshaping output (--fields) without knowing its type.
/// Whole numbers stay 64-bit integers, so ids and seqs survive exactly.
indirect enum JSONValue: Codable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// Keeps only `fields` of an object; of an array, of each element.
    func selecting(_ fields: Set<String>) -> JSONValue {
        switch self {
        case .object(let o): return .object(o.filter { fields.contains($0.key) })
        case .array(let a): return .array(a.map { $0.selecting(fields) })
        default: return self
        }
    }

    /// Applies `selecting` to the list under `key` of an object. Of its other keys, the
    /// plain values that describe the answer stay (`offline`, `hasMore`, `next`: a script
    /// must still tell a cached answer, and page on); nested lists and objects beside the
    /// list (convos' `users`) go, since nobody asked for them.
    func selecting(_ fields: Set<String>, inside key: String) -> JSONValue {
        guard case .object(var o) = self, let list = o[key] else { return selecting(fields) }
        o = o.filter { entry in
            switch entry.value {
            case .array, .object: return false
            default: return true
            }
        }
        o[key] = list.selecting(fields)
        return .object(o)
    }
}
