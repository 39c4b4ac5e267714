import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Holds parked long polls in the connection's pipeline (see ParkedPoll), between the HTTP
/// codec and Hummingbird's handlers.
///
/// A poll that must wait is answered by its route with a stand-in carrying `marker`. This
/// handler swallows the stand-in, so Hummingbird goes on to wait for the next request, and
/// writes the real answer when the poll's answer comes. Until then it holds what would
/// overtake the answer: a pipelined request, and a graceful shutdown's "close when idle".
final class ParkingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let marker = HTTPField.Name("nexus-parked")!

    private var context: ChannelHandlerContext?
    /// HTTP1ToHTTPServerCodec's: an answer written there skips converting its head, made once.
    private var codec: ChannelHandlerContext?
    /// Between the stand-in's head and its end.
    private var swallowing: ParkedPoll?
    /// The poll waiting for its answer.
    private var parked: ParkedPoll?
    private var held: [NIOAny] = []
    private var heldQuiesce = false
    /// A read put off while a request is held: what a client pipelines is not buffered
    /// without bound.
    private var readPutOff = false

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        codec = try? context.pipeline.syncOperations.context(handlerType: HTTP1ToHTTPServerCodec.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        codec = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if let token = head.headerFields[Self.marker].flatMap(Int.init) {
                promise?.succeed(())
                guard let poll = ParkedPoll.claim(token) else {
                    // Only if the stand-in took over 10 s to come: the client asks again.
                    context.close(promise: nil)
                    return
                }
                swallowing = poll
                return
            }
        case .body:
            if swallowing != nil { promise?.succeed(()); return }
        case .end:
            if let poll = swallowing {
                swallowing = nil
                parked = poll
                promise?.succeed(())
                if let answer = poll.attach(self) { write(answer, for: poll) }
                return
            }
        }
        context.write(data, promise: promise)
    }

    /// On the connection's loop.
    func write(_ answer: ParkedPoll.Answer, for poll: ParkedPoll) {
        guard let context, parked === poll else { return }
        parked = nil
        if let codec {
            codec.write(NIOAny(HTTPServerResponsePart.head(answer.head)), promise: nil)
            codec.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(answer.body))), promise: nil)
            codec.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
        } else {
            context.write(wrapOutboundOut(.head(answer.response)), promise: nil)
            context.write(wrapOutboundOut(.body(answer.body)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        let later = held
        held = []
        for part in later { context.fireChannelRead(part) }
        if !later.isEmpty { context.fireChannelReadComplete() }
        if heldQuiesce {
            heldQuiesce = false
            context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        if readPutOff {
            readPutOff = false
            context.read()
        }
    }

    func read(context: ChannelHandlerContext) {
        if held.isEmpty { context.read() } else { readPutOff = true }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if parked != nil || swallowing != nil { held.append(data) } else { context.fireChannelRead(data) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, parked != nil || swallowing != nil {
            heldQuiesce = true
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        (parked ?? swallowing)?.cancel()
        parked = nil
        swallowing = nil
        context.fireChannelInactive()
    }
}
