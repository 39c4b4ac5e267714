import Hummingbird
import NIOCore

/// What a program built on this application adds to it: `nexusd-bench`'s trivial routes
/// (BenchRoutes). nexusd itself adds nothing, so nothing of the bench is in the product.
package protocol ServerExtension: Sendable {
    /// Called once, after the error middleware, before the API's routes.
    func addRoutes(to router: Router<AppRequestContext>)
    /// Handlers put in front of each connection's HTTP/1 pipeline, made anew for each one.
    func channelHandlers() -> [any RemovableChannelHandler]
}
