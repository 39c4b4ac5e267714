#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Typed calls to nexusd's /v1 API. One instance keeps one keep-alive connection.
///
/// Given several addresses (replicas behind no load balancer), it talks to one at a time
/// and moves on to the next when a request finds the server gone: refused, unreachable,
/// or the connection lost. Every request nexusd takes is idempotent (sends by localId),
/// so asking the next replica again is safe.
public final class NexusAPI {
    public let addresses: [ServerAddress]
    /// The server this client talks to now.
    public var address: ServerAddress { addresses[current] }
    public var token: String?
    /// Set by a live client (`tail -f`, `convos -f`, `send --each-line`): sent as
    /// `Nexus-Presence` on every request, so its user stays online while it runs and goes
    /// offline when it ends (`leave`), rather than 60 s after its last request.
    public var presenceClient: String?
    public let tls: TLSOptions
    /// True once any request has been answered without an error: the server is there.
    public private(set) var hasReachedServer = false
    /// The session's expiry as the server last stated it (`Nexus-Session-Expires`, sent on
    /// every answer to a session): it slides with use, so the saved session can follow it.
    public private(set) var sessionExpiresAt: Timestamp?
    /// The largest attachment the server takes, in bytes, as its last answer stated it.
    public private(set) var maxAttachmentBytes: Int64?
    private var current = 0
    var http: HTTPClient
    private let encoder: JSONEncoder
    private let decoder = JSONDecoder()

    public convenience init(address: ServerAddress, token: String? = nil) {
        self.init(addresses: [address], token: token)
    }

    public init(addresses: [ServerAddress], token: String? = nil, tls: TLSOptions = TLSOptions()) {
        precondition(!addresses.isEmpty, "NexusAPI needs at least one server address")
        self.addresses = addresses
        self.token = token
        self.tls = tls
        self.http = HTTPClient(address: addresses[0], tls: tls)
        self.encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
    }

    public func register(email: String, password: String, displayName: String?) throws(APIError) -> AuthResponse {
        try call("POST", "/v1/register", body: RegisterRequest(email: email, password: password, displayName: displayName))
    }

    public func login(email: String, password: String) throws(APIError) -> AuthResponse {
        try call("POST", "/v1/login", body: LoginRequest(email: email, password: password))
    }

    public func logout() throws(APIError) {
        _ = try raw("POST", "/v1/logout", body: nil as [UInt8]?)
    }

    public func me() throws(APIError) -> User {
        try call("GET", "/v1/me")
    }

    public func users(search: String? = nil) throws(APIError) -> [User] {
        var path = "/v1/users"
        if let search { path += "?search=" + percentEncode(search) }
        let r: UsersResponse = try call("GET", path)
        return r.users
    }

    public func openDirect(with email: String) throws(APIError) -> ConversationResponse {
        try call("POST", "/v1/conversations", body: CreateConversationRequest(kind: .direct, members: [email]))
    }

    public func createGroup(with emails: [String], name: String?) throws(APIError) -> ConversationResponse {
        try call("POST", "/v1/conversations", body: CreateConversationRequest(kind: .group, members: emails, name: name))
    }

    /// Moves the caller's watermarks forward; returns the conversation as it now is.
    @discardableResult
    public func receipts(conversationId: Int64, delivered: Int64? = nil, read: Int64? = nil) throws(APIError) -> Conversation {
        try call("POST", "/v1/conversations/\(conversationId)/receipts", body: ReceiptsRequest(delivered: delivered, read: read))
    }

    public func typing(conversationId: Int64) throws(APIError) -> Typing {
        try call("POST", "/v1/conversations/\(conversationId)/typing", body: [String: String]())
    }

    public func status(messageId: Int64) throws(APIError) -> MessageStatus {
        try call("GET", "/v1/messages/\(messageId)/status")
    }

    public func status(localId: String) throws(APIError) -> MessageStatus {
        try call("GET", "/v1/messages/status?localId=" + percentEncode(localId))
    }

    public func conversations() throws(APIError) -> ConversationsResponse {
        // Megabytes for someone in thousands of conversations: read by hand, and by
        // JSONDecoder only when the hand reader can't be sure (it then says what is wrong).
        let response = try raw("GET", "/v1/conversations", body: nil)
        if let list = ConversationsResponse.read(json: response.body) { return list }
        return try decode(response)
    }

    public func conversation(_ id: Int64) throws(APIError) -> Conversation {
        try call("GET", "/v1/conversations/\(id)")
    }

    public func send(conversationId: Int64, localId: String, text: String) throws(APIError) -> SendResponse {
        // Written and read by hand: Foundation's JSON was 40 % of the CPU of a client that
        // sends one message after another. JSONDecoder decides what the reader can't.
        let body = SendRequest(localId: localId, text: text).jsonBytes()
        let response = try raw("POST", "/v1/conversations/\(conversationId)/messages", body: body)
        if let answer = SendResponse.read(json: response.body) { return answer }
        return try decode(response)
    }

    public func sendBatch(_ items: [BatchItem]) throws(APIError) -> [BatchResult] {
        let response: BatchSendResponse = try call("POST", "/v1/messages/batch", body: BatchSendRequest(messages: items))
        guard response.results.count == items.count else {
            throw .badResponse("the batch answer has \(response.results.count) results for \(items.count) messages")
        }
        return response.results
    }

    public func applyChanges(_ items: [ChangeItem]) throws(APIError) -> [BatchResult] {
        let response: ChangesResponse = try call("POST", "/v1/messages/changes", body: ChangesRequest(changes: items))
        guard response.results.count == items.count else {
            throw .badResponse("the changes answer has \(response.results.count) results for \(items.count) changes")
        }
        return response.results
    }

    /// Where a page of history ends: before a seq, before a message, or before a time.
    public enum Anchor: Sendable, Equatable {
        case seq(Int64)
        case messageId(Int64)
        case time(Timestamp)
    }

    public func messages(conversationId: Int64, before: Anchor? = nil, limit: Int? = nil) throws(APIError) -> MessagesPage {
        var query: [String] = []
        switch before {
        case .seq(let seq): query.append("before=\(seq)")
        case .messageId(let id): query.append("beforeId=\(id)")
        case .time(let time): query.append("beforeTime=" + percentEncode(time.iso8601))
        case nil: break
        }
        if let limit { query.append("limit=\(limit)") }
        return try call("GET", "/v1/conversations/\(conversationId)/messages" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
    }

    /// The feed after `after`; waits up to `waitSeconds` for something to arrive.
    /// With `last`, returns instead the newest `last` message events and a cursor after them.
    public func sync(after: Int64? = nil, last: Int? = nil, conversationId: Int64? = nil, waitSeconds: Int = 0)
        throws(APIError) -> SyncResponse
    {
        try sync(from: after.map { FeedCursor(id: $0) }, last: last, conversationId: conversationId, waitSeconds: waitSeconds)
    }

    /// The feed after a checked cursor: a cursor that is not from the server's history (its
    /// database was restored or reset) is refused with 410 `unknown_cursor`.
    public func sync(from cursor: FeedCursor?, last: Int? = nil, conversationId: Int64? = nil, waitSeconds: Int = 0)
        throws(APIError) -> SyncResponse
    {
        try sync(from: cursor, last: last, conversationId: conversationId, waitSeconds: waitSeconds, asking: FeedAsks())
    }

    /// The same, also asking for contacts' presence when it differs from `asking.presence`
    /// (the last `presenceDigest`, "" at first), and the same for the account's mutes.
    public func sync(from cursor: FeedCursor?, last: Int?, conversationId: Int64?, waitSeconds: Int, asking: FeedAsks)
        throws(APIError) -> SyncResponse
    {
        var query: [String] = []
        if let presence = asking.presence { query.append("presence=" + percentEncode(presence)) }
        if let mutes = asking.mutes { query.append("mutes=" + percentEncode(mutes)) }
        if let cursor {
            query.append("after=\(cursor.id)")
            if let check = cursor.check { query.append("check=" + percentEncode(check)) }
        }
        if let last { query.append("last=\(last)") }
        if let conversationId { query.append("conversation=\(conversationId)") }
        if waitSeconds > 0 { query.append("wait=\(waitSeconds)") }
        return try call(
            "GET", "/v1/sync" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")),
            timeoutMs: Int32(waitSeconds * 1000 + 15_000))
    }

    /// The live client is going away: its user is offline at once unless another is live.
    public func leave(presenceClient client: String) throws(APIError) {
        _ = try raw("DELETE", "/v1/presence/" + percentEncode(client), body: nil as [UInt8]?, timeoutMs: 2_000)
    }

    // MARK: - Plumbing

    func call<R: Decodable>(_ method: String, _ path: String, timeoutMs: Int32 = 30_000) throws(APIError) -> R {
        try decode(raw(method, path, body: nil as [UInt8]?, timeoutMs: timeoutMs))
    }

    func call<B: Encodable, R: Decodable>(_ method: String, _ path: String, body: B) throws(APIError) -> R {
        let bytes: Data
        do { bytes = try encoder.encode(body) } catch { throw .badResponse("can't encode request: \(error)") }
        return try decode(raw(method, path, body: Array(bytes)))
    }

    func decode<R: Decodable>(_ response: HTTPResponse) throws(APIError) -> R {
        do {
            return try decoder.decode(R.self, from: Data(response.body))
        } catch {
            throw .badResponse("\(R.self) did not decode: \(error)")
        }
    }

    func raw(
        _ method: String, _ path: String, body: [UInt8]?, contentType: String = "application/json", timeoutMs: Int32 = 30_000
    ) throws(APIError) -> HTTPResponse {
        var headers: [(String, String)] = []
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let presenceClient { headers.append(("Nexus-Presence", presenceClient)) }
        // Checked before any connection: a secret must never leave in the clear.
        if !tls.allowPlainHTTP, token != nil || path == "/v1/login" || path == "/v1/register",
           let open = addresses.first(where: { !$0.isTLS && !$0.isLoopback })
        {
            throw .plainHTTPRefused("\(open)")
        }
        var failovers = 0
        while true {
            let response: HTTPResponse
            do {
                response = try http.request(method, path, headers: headers, body: body, contentType: contentType, timeoutMs: timeoutMs)
            } catch {
                guard error.serverGone, failovers + 1 < addresses.count else { throw Self.apiError(error, address: address) }
                failovers += 1
                current = (current + 1) % addresses.count
                http = HTTPClient(address: address, tls: tls)
                continue
            }
            return try check(response)
        }
    }

    static func apiError(_ error: HTTPClientError, address: ServerAddress) -> APIError {
        switch error {
        case .unreachable(let why): return .unreachable(why)
        case .timedOut: return .interrupted("the server at \(address) did not answer in time")
        case .connectionLost(let why): return .interrupted("lost the connection to \(address): \(why)")
        case .malformedResponse(let why): return .badResponse(why)
        case .tls(let failure): return .tls(failure)
        }
    }

    func check(_ response: HTTPResponse) throws(APIError) -> HTTPResponse {
        if response.status < 400 {
            hasReachedServer = true
            if let stated = response.header("Nexus-Session-Expires").flatMap(Timestamp.init(iso8601:)) { sessionExpiresAt = stated }
            if let stated = response.header("Nexus-Max-Attachment").flatMap({ Int64($0) }), stated >= 0 { maxAttachmentBytes = stated }
        }
        if response.status >= 400 {
            let retryAfter = response.header("Retry-After").flatMap { Int($0) }
            if let e = try? decoder.decode(ErrorResponse.self, from: Data(response.body)) {
                throw .server(status: response.status, code: e.error.code, message: e.error.message, retryAfter: retryAfter)
            }
            throw .server(status: response.status, code: "http_\(response.status)",
                          message: ForeignError.message(status: response.status, body: response.body), retryAfter: retryAfter)
        }
        return response
    }
}

func percentEncode(_ s: String) -> String {
    var out = ""
    for b in s.utf8 {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            out.append(Character(Unicode.Scalar(b)))
        default:
            let hex = Array("0123456789ABCDEF")
            out += "%" + String(hex[Int(b >> 4)]) + String(hex[Int(b & 15)])
        }
    }
    return out
}
