import Foundation
import HTTPTypes
import Hummingbird
import NexusWire

/// POST /v1/hooks/in/<secret>: post into a conversation without nexusctl, as the hook's
/// bot. No login: the secret in the URL is the credential, so an unknown or revoked one
/// is a plain 404.
struct IncomingHookController {
    let services: AppServices
    /// Alertmanager groups many alerts in one body; a text body stops at the message limit.
    static let maxBodyBytes = 1024 * 1024
    static let maxKeyBytes = 56

    @Sendable func post(_ request: Request, context: AppRequestContext) async throws -> Response {
        let secret = context.parameters.get("secret") ?? ""
        guard let target = try await services.stores.hooks.incoming(secretHash: Tokens.hash(secret)) else {
            throw APIError(status: .notFound, code: "hook_not_found", message: "No such hook: its URL is wrong, or it was revoked or disabled (its owner's `nexusctl hook list` says why).")
        }
        if let wait = services.hooks.throttle(hook: target.hookId, now: services.clock()) {
            throw APIError.tooManyRequests(
                "rate_limited", "This hook takes at most \(Int(services.hooks.settings.burst)) posts at once and "
                    + "\(services.hooks.settings.perSecond) a second after; try again in \(wait) s.", retryAfter: wait)
        }
        let key = try Self.idempotencyKey(request)
        let body = try await request.body.collect(upTo: Self.maxBodyBytes)
        let texts = try Self.texts(Array(buffer: body), contentType: request.headers[.contentType])
        guard texts.count <= Limits.maxBatchItems else {
            throw APIError(status: .contentTooLarge, code: "too_many_items", message: "One post takes at most \(Limits.maxBatchItems) alerts.")
        }
        let (stored, created) = try await Sending(services: services).post(
            texts, through: target, key: key ?? "hook-" + String(UInt64.random(in: 0...UInt64.max), radix: 16))
        return try jsonResponse(IncomingHookResponse(messages: stored, duplicate: !created), status: created ? .created : .ok)
    }

    /// `Idempotency-Key`: a retry with the same key posts nothing new and answers what the first post did.
    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let name = HTTPField.Name("Idempotency-Key"), let key = request.headers[name] else { return nil }
        guard (1...maxKeyBytes).contains(key.utf8.count), !key.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            throw APIError.badRequest(
                "Idempotency-Key must be 1 to \(maxKeyBytes) printable characters without spaces.", code: "invalid_idempotency_key")
        }
        return key
    }

    /// The messages a body asks for: JSON {"text": …}, Alertmanager's payload (one per
    /// alert), or else the body itself as the text (text/plain, or curl -d's form type).
    static func texts(_ body: [UInt8], contentType: String?) throws -> [String] {
        let type = contentType?.lowercased() ?? ""
        let looksJSON = body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{")
        if type.contains("json") || (looksJSON && !type.hasPrefix("text/")) {
            if JSONDepth.exceeds(body, ServerLimits.maxJSONDepth) {
                throw APIError.badRequest("The body nests more than \(ServerLimits.maxJSONDepth) deep.", code: "too_deep")
            }
            let data = Data(body)
            if let alerts = try? JSONDecoder().decode(AlertmanagerPayload.self, from: data) {
                guard !alerts.alerts.isEmpty else { throw APIError.badRequest("The Alertmanager payload has no alerts.", code: "empty_message") }
                return alerts.messages
            }
            if let plain = try? JSONDecoder().decode(TextBody.self, from: data) { return [plain.text] }
            if type.contains("json") {
                throw APIError.badRequest(
                    "A JSON body needs a \"text\" string, or must be Alertmanager's webhook payload (with \"alerts\").",
                    code: "invalid_body")
            }
        }
        guard let text = String(validating: body, as: UTF8.self) else {
            throw APIError.badRequest("The body is not UTF-8 text.", code: "invalid_text")
        }
        return [text]
    }

    private struct TextBody: Decodable {
        var text: String
    }
}
