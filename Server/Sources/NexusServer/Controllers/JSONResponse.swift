import Foundation
import Hummingbird
import NexusWire
import NIOCore

/// Encodes a wire type as the JSON body of a response with the given status.
func jsonResponse<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
    let body = try jsonBody(value)
    return Response(status: status, headers: jsonHeaders(length: body.readableBytes), body: .init(byteBuffer: body))
}

func jsonBody<T: Encodable>(_ value: T) throws -> ByteBuffer {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    return ByteBuffer(bytes: try encoder.encode(value))
}

let jsonContentType = "application/json; charset=utf-8"

package func jsonHeaders(length: Int) -> HTTPFields {
    [.contentType: jsonContentType, .contentLength: String(length)]
}

/// A body written by hand (JSONWriter): on the hot path of a send, Codable's encoder cost
/// more than the rest of the answer. The same JSON as `jsonResponse` would write.
func jsonResponse(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
    Response(
        status: status,
        headers: jsonHeaders(length: bytes.count),
        body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
}

extension SendResponse {
    func jsonBytes() -> [UInt8] {
        var w = JSONWriter(capacity: 256 + message.text.utf8.count)
        w.beginObject()
        w.key("message"); message.write(to: &w)
        w.key("duplicate"); w.bool(duplicate)
        w.endObject()
        return w.bytes
    }
}
