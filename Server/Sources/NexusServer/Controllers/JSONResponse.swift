import Foundation
import Hummingbird
import NIOCore

/// Encodes a wire type as the JSON body of a response with the given status.
func jsonResponse<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    let data = try encoder.encode(value)
    return Response(
        status: status,
        headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(data.count)],
        body: .init(byteBuffer: ByteBuffer(bytes: data)))
}
