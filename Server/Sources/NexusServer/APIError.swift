import Hummingbird
import Logging
import NexusWire
import NIOCore
import NIOHTTP1
import Foundation

/// An error answer with a stable machine-readable `code` and a sentence for people.
/// Every 4xx and 5xx nexusd sends has this JSON shape (see docs/protocol.md).
struct APIError: HTTPResponseError {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var headers: HTTPFields = [:]

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: responseHeaders, body: .init(byteBuffer: body))
    }

    var responseHeaders: HTTPFields {
        var fields = headers
        fields[.contentType] = jsonContentType
        return fields
    }

    var body: ByteBuffer {
        // Sorted keys: the same error is the same bytes, so a non-member's 404 can't be told
        // from an unknown id's by its key order.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Two strings always encode.
        return ByteBuffer(bytes: (try? encoder.encode(ErrorResponse(code: code, message: message))) ?? Data())
    }

    static func badRequest(_ message: String, code: String = "bad_request") -> APIError {
        APIError(status: .badRequest, code: code, message: message)
    }

    static let unauthorized = APIError(
        status: .unauthorized, code: "unauthorized",
        message: "Missing or invalid token. Log in again with `nexusctl login`.")

    static let tokenExpired = APIError(
        status: .unauthorized, code: "token_expired",
        message: "The session has expired. Log in again with `nexusctl login`.")

    static let accessTokenExpired = APIError(
        status: .unauthorized, code: "token_expired",
        message: "The access token has expired. Make a new one with `nexusctl token create`.")

    /// 429 with `Retry-After`, in whole seconds (at least 1).
    static func tooManyRequests(_ code: String, _ message: String, retryAfter seconds: Int64) -> APIError {
        APIError(status: .tooManyRequests, code: code, message: message, headers: [.retryAfter: String(max(1, seconds))])
    }

    static func notFound(_ message: String) -> APIError {
        APIError(status: .notFound, code: "not_found", message: message)
    }

    static let conversationNotFound = notFound("Conversation not found.")
}

/// Turns errors that are not ours (a body over the size limit, a framework error) into
/// the same JSON error shape, so clients parse one format. Anything unexpected is a 500
/// with a generic message; the details go to the log, not to the client.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            throw APIError.from(error, logger: context.logger)
        }
    }
}

extension APIError {
    /// Any error as the API's error (ErrorMiddleware; a parked poll's failure).
    static func from(_ error: any Error, logger: Logger) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as DatabaseUnavailable:
            switch error.reason {
            case .notAnswering:
                return APIError(
                    status: .serviceUnavailable, code: "unavailable", message: "The database is not answering; try again shortly.",
                    headers: [.retryAfter: "5"])
            case .storageFull:
                StorageCondition.shared.sawFull()
                return APIError(
                    status: .serviceUnavailable, code: "storage_full",
                    message: "The server is out of storage; nothing was stored. Try again later.", headers: [.retryAfter: "30"])
            }
        case let error as HTTPError:
            return APIError(
                status: error.status, code: Self.code(for: error.status),
                message: error.body ?? error.status.reasonPhrase, headers: error.headers)
        case let error as any HTTPResponseError:
            return APIError(status: error.status, code: Self.code(for: error.status), message: error.status.reasonPhrase)
        case let error as HTTPParserError:
            return MalformedHTTP.answer(error, logger: logger)
        default:
            logger.error("request failed: \(String(reflecting: error))")
            return APIError(status: .internalServerError, code: "internal", message: "The server hit an internal error.")
        }
    }

    static func code(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: return "bad_request"
        case 401: return "unauthorized"
        case 404: return "not_found"
        case 405: return "method_not_allowed"
        case 413: return "too_large"
        default: return "http_\(status.code)"
        }
    }
}

/// The database cannot take the request just now: answered 503 with Retry-After, which
/// clients treat as "try again later" (the outbox keeps the message).
struct DatabaseUnavailable: Error {
    enum Reason { case notAnswering, storageFull }
    var reason: Reason = .notAnswering
}
