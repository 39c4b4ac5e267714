import Hummingbird
import NexusWire

/// Every whole number in a request's path or query is read here, into the range its use
/// allows, so nothing past this edge sees Int64.max or a negative count; a value outside
/// its range is a 400 that names the field. The ranges are docs/openapi.yaml's
/// minimum/maximum for the same parameters.
enum RequestNumbers {
    /// Ids and seqs: a seq plus one (the page below it) still fits.
    static let id: ClosedRange<Int64> = 1...(Int64.max - 1)
    /// Feed cursors and offsets: 0 is the start.
    static let position: ClosedRange<Int64> = 0...(Int64.max - 1)
    static let pageSize: ClosedRange<Int64> = 1...Int64(Limits.maxPageSize)
}

extension Request {
    /// The query parameter `name` in `range`, nil when absent; 400 `invalid_query` otherwise.
    func queryInt(_ name: String, in range: ClosedRange<Int64>) throws -> Int64? {
        guard let text = uri.queryParameters[name[...]] else { return nil }
        guard let value = CheckedNumbers.parse(text, in: range) else {
            throw APIError.badRequest(CheckedNumbers.problem("The query parameter '\(name)'", range) + ".", code: "invalid_query")
        }
        return value
    }
}

extension AppRequestContext {
    /// The path parameter `name` in `range`; 400 `invalid_path` otherwise.
    func pathInt(_ name: String, in range: ClosedRange<Int64>) throws -> Int64 {
        guard let value = parameters.get(name).flatMap({ CheckedNumbers.parse($0, in: range) }) else {
            throw APIError.badRequest(CheckedNumbers.problem("The path's \(name)", range) + ".", code: "invalid_path")
        }
        return value
    }

    /// A conversation id from the path. Anything that can't be one gets the 404 of an
    /// unknown conversation (docs/openapi.yaml), so a probe learns nothing from the form.
    func idParameter(_ name: String = "id") throws -> Int64 {
        guard let id = parameters.get(name).flatMap({ CheckedNumbers.parse($0, in: RequestNumbers.id) }) else {
            throw APIError.conversationNotFound
        }
        return id
    }
}
