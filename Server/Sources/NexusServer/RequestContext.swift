import Hummingbird
import NIOCore
import Foundation

/// `package`: a ServerExtension's routes are on a router of this context.
package struct AppRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The peer's IP address, for the per-address login limit; nil in in-process tests.
    /// Worked out when asked: a login asks, and writing it out cost every request.
    var clientAddress: String? { channel?.remoteAddress?.ipAddress }
    /// Set by AuthenticationMiddleware; read it as `caller`.
    var identity: Caller?
    /// The connection, so a held long poll can tell when its client goes away.
    var channel: (any Channel)?
    /// Set by AccessLog when it writes lines, for the caller's id; nil otherwise.
    var accessNote: AccessNote?

    package init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// Large enough for a 64 KiB message escaped as JSON (up to 6 bytes a byte).
    package var maxUploadSize: Int { 512 * 1024 }
}

extension Request {
    /// Decodes a JSON body, answering 400 with the decoder's reason when it is not valid.
    /// `reading`: a hand reader that gives the same value as JSONDecoder or nil (then
    /// JSONDecoder decides), for a body on the hot path (SendRequest.read).
    func decodeJSON<T: Decodable>(
        _ type: T.Type, context: AppRequestContext, limit: Int? = nil, reading: ((UnsafeRawBufferPointer) -> T?)? = nil
    ) async throws -> T {
        let buffer = try await body.collect(upTo: limit ?? context.maxUploadSize)
        if JSONDepth.exceeds(buffer.readableBytesView, ServerLimits.maxJSONDepth) {
            throw APIError.badRequest(
                "The request body nests arrays and objects more than \(ServerLimits.maxJSONDepth) deep.", code: "too_deep")
        }
        if let reading, let value = buffer.withUnsafeReadableBytes(reading) { return value }
        do {
            return try JSONDecoder().decode(T.self, from: buffer)
        } catch let DecodingError.keyNotFound(key, _) {
            throw APIError.badRequest("The request body lacks the field '\(key.stringValue)'.", code: "invalid_body")
        } catch let DecodingError.typeMismatch(_, ctx), let DecodingError.valueNotFound(_, ctx) {
            let path = ctx.codingPath.map(\.stringValue).joined(separator: ".")
            throw APIError.badRequest("The field '\(path)' has the wrong type.", code: "invalid_body")
        } catch {
            throw APIError.badRequest("The request body is not valid JSON in UTF-8.", code: "invalid_body")
        }
    }
}

/// How deep a JSON text nests, counted before decoding: Foundation's decoder recurses,
/// and a body of 500,000 brackets would otherwise cost a deep stack before it is refused.
enum JSONDepth {
    static func exceeds(_ bytes: some Sequence<UInt8>, _ limit: Int) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return false
    }
}
