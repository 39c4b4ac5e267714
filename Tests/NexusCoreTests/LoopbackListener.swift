#if canImport(Glibc)
import Glibc
#endif
@testable import NexusCore

/// A listening socket on 127.0.0.1 and a port the system chose, for tests that play a
/// server at the socket level.
func loopbackListener(backlog: Int32 = 16) throws -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
    guard bound == 0, listen(fd, backlog) == 0 else {
        close(fd)
        throw HTTPClientError.unreachable("can't listen")
    }
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
    return (fd, UInt16(bigEndian: addr.sin_port))
}
