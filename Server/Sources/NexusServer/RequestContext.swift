import Hummingbird
import Foundation

struct AppRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    /// Large enough for a 64 KiB message escaped as JSON (up to 6 bytes a byte).
    var maxUploadSize: Int { 512 * 1024 }
}

extension Request {
    /// Decodes a JSON body, answering 400 with the decoder's reason when it is not valid.
    func decodeJSON<T: Decodable>(_ type: T.Type, context: AppRequestContext, limit: Int? = nil) async throws -> T {
        let buffer = try await body.collect(upTo: limit ?? context.maxUploadSize)
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

    func queryInt(_ name: String) throws -> Int64? {
        guard let text = uri.queryParameters[name[...]] else { return nil }
        guard let value = Int64(String(text)) else {
            throw APIError.badRequest("The query parameter '\(name)' must be a whole number.", code: "invalid_query")
        }
        return value
    }
}

extension AppRequestContext {
    func idParameter(_ name: String = "id") throws -> Int64 {
        guard let text = parameters.get(name), let id = Int64(text) else {
            throw APIError.conversationNotFound
        }
        return id
    }
}
