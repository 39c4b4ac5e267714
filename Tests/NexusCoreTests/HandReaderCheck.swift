import Foundation
import Testing
@testable import NexusCore

/// The checks of a hand reader of JSON (ConversationsResponse.read, SendRequest.read): it
/// must give what JSONDecoder gives, or nil (then the caller asks JSONDecoder), never a
/// different value and never a value where JSONDecoder fails.
struct HandReaderCheck<Value: Decodable & Equatable & Sendable>: Sendable {
    let read: @Sendable ([UInt8]) -> Value?

    /// The hand reader's answer, checked against JSONDecoder's on the same bytes.
    @discardableResult
    func compare(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> (fast: Value?, slow: Value?) {
        let fast = read(bytes)
        let slow = try? JSONDecoder().decode(Value.self, from: Data(bytes))
        if let fast {
            #expect(slow != nil, "the hand reader read what JSONDecoder refuses", sourceLocation: sourceLocation)
            #expect(fast == slow, sourceLocation: sourceLocation)
        }
        return (fast, slow)
    }

    /// Read by hand (not handed to JSONDecoder), and equal to JSONDecoder's value.
    func readsByHand(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let (fast, slow) = compare(Array(text.utf8), sourceLocation: sourceLocation)
        #expect(fast != nil, "left to JSONDecoder: \(text)", sourceLocation: sourceLocation)
        #expect(slow != nil, sourceLocation: sourceLocation)
    }

    /// Every prefix of `bytes`, and `bytes` with each byte replaced by each byte that JSON
    /// gives a meaning to: never a value that JSONDecoder does not give.
    func compareMangled(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        for end in 0..<bytes.count { compare(Array(bytes[..<end]), sourceLocation: sourceLocation) }
        let meaningful = Array("{}[]:,\"\\ 0-9.eEtfnul".utf8) + [0x00, 0x0A, 0x80, 0xC3]
        for i in bytes.indices {
            for c in meaningful where c != bytes[i] {
                var mangled = bytes
                mangled[i] = c
                compare(mangled, sourceLocation: sourceLocation)
            }
        }
    }

    func leavesToJSONDecoder(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let (fast, _) = compare(bytes, sourceLocation: sourceLocation)
        #expect(fast == nil, "read by hand: \(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
    }
}
