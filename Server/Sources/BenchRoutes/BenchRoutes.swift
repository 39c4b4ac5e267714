import HTTPTypes
import Hummingbird
import NexusServer
import NIOCore
import NIOHTTPTypes

/// nexusd-bench's additions to the application (`make bench` only; nexusd has none): a
/// route that does what every request does in Hummingbird (parse, route, read the body,
/// answer) and nothing of ours, so the bench can measure the machine's limit with the same
/// load generator and print each throughput row as a fraction of it.
package struct BenchRoutes: ServerExtension {
    /// `--bench-below-hummingbird`: the connections also answer `belowHummingbirdPath`
    /// (BelowHummingbird), on a nexusd-bench of its own: the handler sees every request.
    package var belowHummingbird: Bool

    package init(belowHummingbird: Bool = false) { self.belowHummingbird = belowHummingbird }

    /// The same answer written by `BelowHummingbird`, so the bench can say how much of the
    /// limit route's cost is Hummingbird's own (the 60 µs a message target).
    static let belowHummingbirdPath = "/bench/limit-nio"

    /// An answer the size and shape of a send's (SendResponse), written once.
    static let answer = ByteBuffer(string: """
        {"duplicate":false,"message":{"conversationId":1,"id":1,"localId":"tp-0-0","senderId":1,\
        "sentAt":"2026-11-23T12:00:00.000Z","seq":1,"text":"throughput 0"}}
        """)

    package func addRoutes(to router: Router<AppRequestContext>) {
        router.post("bench/limit") { request, context -> Response in
            _ = try await request.body.collect(upTo: context.maxUploadSize)
            return Response(
                status: .created,
                headers: jsonHeaders(length: Self.answer.readableBytes),
                body: .init(byteBuffer: Self.answer))
        }
    }

    package func channelHandlers() -> [any RemovableChannelHandler] {
        belowHummingbird ? [BelowHummingbird()] : []
    }
}

/// Answers `BenchRoutes.belowHummingbirdPath` in the connection's pipeline, with the limit
/// route's bytes (date and server included), before Hummingbird sees the request: the same
/// parse and encoder, without Hummingbird's request task, router and response writer.
///
/// It answers as soon as the request ends, so an answer could overtake one that Hummingbird
/// still owes on the same connection: the load generator never pipelines.
final class BelowHummingbird: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private var answering = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head) where head.path == BenchRoutes.belowHummingbirdPath:
            answering = true
        case .head:
            context.fireChannelRead(data)
        case .body:
            if !answering { context.fireChannelRead(data) }
        case .end:
            guard answering else { return context.fireChannelRead(data) }
            answering = false
            var fields = jsonHeaders(length: BenchRoutes.answer.readableBytes)
            fields[.date] = HTTPDate.now()
            fields[.server] = serverName
            context.write(wrapOutboundOut(.head(HTTPResponse(status: .created, headerFields: fields))), promise: nil)
            context.write(wrapOutboundOut(.body(BenchRoutes.answer)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
