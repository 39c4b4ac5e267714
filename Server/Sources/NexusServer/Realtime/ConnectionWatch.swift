import NIOCore

/// Tells when the client of a held long poll goes away (its process ended, the connection
/// dropped), so its presence lease stops at once instead of at the poll's timeout. nexusd
/// allows half-closed connections, so a client's close arrives as `inputClosed`, not as
/// the channel closing.
final class ConnectionWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private var onClose: (@Sendable () -> Void)?

    init(onClose: @escaping @Sendable () -> Void) {
        self.onClose = onClose
    }

    private func closed() {
        onClose?()
        onClose = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { closed() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    /// Watches `channel` under `name` until `unwatch`; `onClose` runs at most once, on the event loop.
    static func watch(_ channel: any Channel, name: String, onClose: @escaping @Sendable () -> Void) {
        channel.eventLoop.execute {
            guard channel.isActive else { return onClose() }
            try? channel.pipeline.syncOperations.addHandler(ConnectionWatch(onClose: onClose), name: name, position: .first)
        }
    }

    static func unwatch(_ channel: any Channel, name: String) {
        channel.pipeline.removeHandler(name: name, promise: nil)
    }
}
