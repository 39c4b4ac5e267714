import Foundation
import NIOCore
import NIOPosix

/// The address --listen names is another program's (another nexusd, most often).
struct AddressInUse: Error, CustomStringConvertible {
    var host: String
    var port: Int

    var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "nexusd: \(shown):\(port) is already in use (is another nexusd running?)"
    }
}

extension Nexusd {
    /// Binds the address once and lets it go, as the server will bind it (SO_REUSEADDR), so
    /// that a taken port stops nexusd before it opens and migrates the database and starts
    /// the services that a failed bind would then cancel, each with a line of its own.
    static func checkAddressFree(host: String, port: Int) async throws {
        guard port != 0 else { return }
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port).get()
            try await channel.close()
        } catch {
            if isAddressInUse(error) { throw AddressInUse(host: host, port: port) }
            // Anything else (a name that does not resolve, a port below 1024) is the server's to report.
        }
    }

    static func isAddressInUse(_ error: any Error) -> Bool {
        (error as? IOError)?.errnoCode == EADDRINUSE
    }
}
