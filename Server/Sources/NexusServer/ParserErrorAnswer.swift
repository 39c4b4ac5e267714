import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The HTTP parser's refusal of a request line or headers (malformed, or over the header
/// limits), answered in the API's JSON error shape, as docs/openapi.yaml says every 400
/// is: left to Hummingbird it is a bare 400 with no body, which no client can parse as an
/// error. Between Hummingbird and the rest of the pipeline, where it sees what Hummingbird
/// sees: a refusal with no request open is in the next request's head. One inside a
/// request's body goes on to its route, which answers `malformed_request` itself.
final class ParserErrorAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let logger: Logger
    /// Requests read whose answers have not ended.
    private var open = 0

    init(logger: Logger) {
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { open += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { open = max(0, open - 1) }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard open == 0, let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        let answer = MalformedHTTP.answer(parserError, logger: logger)
        let body = answer.body
        var head = HTTPResponse(status: answer.status, headerFields: answer.responseHeaders)
        head.headerFields[.contentLength] = String(body.readableBytes)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}
