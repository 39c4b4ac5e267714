import Hummingbird
import NIOCore

/// What `make bench` may switch on in nexusd, by hidden flags; never in production.
public struct BenchOptions: Sendable {
    /// `--bench-routes`: the trivial route below.
    public var routes = false
    /// `--bench-baseline`: sends take the path they had before issue 19 (SQLiteNIO for the
    /// INSERT, Codable for the answer; on PostgreSQL, one transaction a single send), so one
    /// build measures before and after side by side.
    public var baseline = false

    public init() {}
}

/// `nexusd --bench-routes` (hidden; `make bench` only, never in production): a route
/// that does what every request does in Hummingbird (parse, route, read the body, answer)
/// and nothing of ours, so the bench can measure the machine's limit with the same load
/// generator and print each throughput row as a fraction of it.
enum BenchRoutes {
    /// An answer the size and shape of a send's (SendResponse), written once.
    static let answer = ByteBuffer(string: """
        {"duplicate":false,"message":{"conversationId":1,"id":1,"localId":"tp-0-0","senderId":1,\
        "sentAt":"2026-11-23T12:00:00.000Z","seq":1,"text":"throughput 0"}}
        """)

    static func add(to router: Router<AppRequestContext>) {
        router.post("bench/limit") { request, context -> Response in
            _ = try await request.body.collect(upTo: context.maxUploadSize)
            return Response(
                status: .created,
                headers: jsonHeaders(length: answer.readableBytes),
                body: .init(byteBuffer: answer))
        }
    }
}
