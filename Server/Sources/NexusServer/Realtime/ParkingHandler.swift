import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Holds parked long polls in the connection's pipeline (see ParkedPoll), between the HTTP
/// codec and Hummingbird's handlers.
///
/// A poll that must wait is answered by its route with a stand-in carrying `marker`. This
/// handler keeps the stand-in from the client (its StandInSink drops its bytes), so
/// Hummingbird goes on to wait for the next request, and writes the real answer when the
/// poll's answer comes. Until then it holds what would overtake the answer: a pipelined
/// request, and a graceful shutdown's "close when idle".
final class ParkingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let marker = HTTPField.Name("nexus-parked")!

    private var context: ChannelHandlerContext?
    /// Just below NIO's HTTP/1 encoder: it drops the stand-in's bytes (so the encoder, which
    /// pairs each answer with its request's method, has seen an answer), and the real answer,
    /// encoded once for all the polls that take it, is written there in one piece.
    private let sink = StandInSink()
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
        let pipeline = context.pipeline.syncOperations
        do {
            try pipeline.addHandler(sink, position: .before(pipeline.handler(type: HTTPResponseEncoder.self)))
        } catch {
            // Hummingbird's HTTP/1 pipeline always has the encoder; without the sink a
            // stand-in would reach the client, so serve nothing rather than that.
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if let token = head.headerFields[Self.marker].flatMap(Int.init) {
                guard let poll = ParkedPoll.claim(token) else {
                    // Only if the stand-in took over 10 s to come: the client asks again.
                    promise?.succeed(())
                    context.close(promise: nil)
                    return
                }
                swallowing = poll
                sink.dropping = true
            }
        case .body:
            break
        case .end:
            if let poll = swallowing {
                // Down to the encoder and the sink, which drops its bytes.
                context.write(data, promise: promise)
                sink.dropping = false
                swallowing = nil
                parked = poll
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
        sink.write(answer.encoded)
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

/// Sits just below NIO's HTTP/1 encoder (see ParkingHandler.sink).
final class StandInSink: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    var dropping = false
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if dropping { promise?.succeed(()) } else { context.write(data, promise: promise) }
    }

    /// An answer already encoded for HTTP/1.1.
    func write(_ bytes: ByteBuffer) {
        context?.writeAndFlush(wrapOutboundOut(.byteBuffer(bytes)), promise: nil)
    }
}
