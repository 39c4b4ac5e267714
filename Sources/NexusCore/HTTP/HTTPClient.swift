import COpenSSL
import LibC

/// A small HTTP/1.1 client over a socket, with keep-alive.
///
/// Foundation's URLSession on Linux costs about 16 ms and 15 MiB on its first request,
/// which is more than the whole budget of `nexusctl send`; speaking HTTP/1.1 over a
/// socket ourselves costs well under a millisecond. It speaks only what nexusd
/// answers: Content-Length and chunked bodies. Over https:// the same bytes go through
/// TLSConnection (the system's OpenSSL), on the same non-blocking socket and deadlines.
///
/// Every request has a deadline: a server that accepts the connection and then reads or
/// answers nothing (frozen, stopped) fails the request in bounded time instead of hanging
/// the command, and the flush lock it holds, for ever.
public final class HTTPClient {
    public let address: ServerAddress
    public let tls: TLSOptions
    var connectTimeoutMs: Int32 = 5_000
    /// How long a write may make no progress at all before the request fails.
    var writeStallMs: Int32 = 10_000
    /// Extra time a request gets for its body on top of its timeout: one millisecond for
    /// every `bodyBytesPerMs` bytes (16 KB/s), so a large batch on a slow link can finish.
    var bodyBytesPerMs = 16
    var fd: Int32 = -1
    var buffer: [UInt8] = []
    var scratch: [UInt8] = []
    var bufferStart = 0
    var requestsOnConnection = 0
    /// Set on an https:// connection once its handshake is made.
    var secure: TLSConnection?

    public init(address: ServerAddress, tls: TLSOptions = TLSOptions()) {
        self.address = address
        self.tls = tls
        // Over https://, OpenSSL's start-up runs beside the command's own work until the
        // first connection takes it (TLSConnection.makeContext): see nexus_openssl_prepare.
        if address.isTLS { nexus_openssl_prepare() }
    }

    deinit { close() }

    public func close() {
        secure?.shutdown()
        secure = nil
        if fd >= 0 {
            _ = systemClose(fd)
            fd = -1
        }
        buffer.removeAll(keepingCapacity: true)
        bufferStart = 0
        requestsOnConnection = 0
    }

    /// Sends one request and reads the answer. A request that fails on a reused
    /// keep-alive connection before any byte of the answer arrived is sent once more on
    /// a new connection: the server may have closed the idle connection. Every nexusd
    /// request is idempotent, so that is safe.
    public func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        contentType: String = "application/json", timeoutMs: Int32 = 30_000
    ) throws(HTTPClientError) -> HTTPResponse {
        // One deadline for the whole request, the resend on a new connection included.
        let deadline = monotonicMs() + Int64(timeoutMs) + Int64((body?.count ?? 0) / max(bodyBytesPerMs, 1))
        let reused = fd >= 0
        do {
            return try attempt(method, path, headers: headers, body: body, contentType: contentType, timeoutMs: timeoutMs, deadline: deadline)
        } catch .connectionLost(let why) where reused {
            _ = why
            close()
            return try attempt(method, path, headers: headers, body: body, contentType: contentType, timeoutMs: timeoutMs, deadline: deadline)
        }
    }

    private func attempt(
        _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?, contentType: String, timeoutMs: Int32,
        deadline: Int64
    ) throws(HTTPClientError) -> HTTPResponse {
        try sendHead(method, path, headers: headers, body: body, contentType: contentType, deadline: deadline)
        do {
            // The answer gets the request's timeout after the body is out, within the deadline.
            let answerBy = min(deadline, monotonicMs() + Int64(timeoutMs))
            try awaitAnswer(deadline: answerBy)
            let response = try readResponse(deadline: answerBy)
            secure?.saveSessionOnce()
            if response.header("Connection")?.lowercased() == "close" { close() }
            return response
        } catch {
            close()
            throw error
        }
    }

    /// Connects if need be, and writes the request: the head, then the body as it is (an
    /// upload's chunk is not copied behind the head).
    func sendHead(
        _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?, contentType: String, deadline: Int64
    ) throws(HTTPClientError) {
        if fd < 0 { try connect(deadline: deadline) }
        var head = "\(method) \(address.basePath)\(path) HTTP/1.1\r\nHost: \(address.host):\(address.port)\r\n"
        head += "User-Agent: nexusctl\r\nAccept: application/json\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body {
            head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        } else if method == "POST" || method == "PUT" || method == "PATCH" {
            head += "Content-Length: 0\r\n"
        }
        head += "\r\n"
        do {
            try writeAll(Array(head.utf8), deadline: deadline)
            if let body, !body.isEmpty { try writeAll(body, deadline: deadline) }
        } catch {
            close()
            throw error
        }
        requestsOnConnection += 1
    }

    /// Connects without blocking, and leaves the socket non-blocking: writes and reads wait
    /// in poll, with a deadline, and only when the socket is not ready.
    func connect(deadline: Int64) throws(HTTPClientError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(address.host, String(address.port), &hints, &result)
        guard rc == 0, let first = result else {
            throw .unreachable("can't resolve \(address.host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var lastError = "no address for \(address.host)"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let ai = cursor {
            cursor = ai.pointee.ai_next
            let s = socket(ai.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if s < 0 { continue }
            let flags = fcntl(s, F_GETFL, 0)
            _ = fcntl(s, F_SETFL, flags | O_NONBLOCK)
            var r = Glibc.connect(s, ai.pointee.ai_addr, ai.pointee.ai_addrlen)
            if r != 0 && errno == EINPROGRESS {
                var pfd = pollfd(fd: s, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&pfd, 1, Int32(max(0, min(Int64(connectTimeoutMs), deadline - monotonicMs()))))
                if ready == 1 {
                    var err: Int32 = 0
                    var len = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len)
                    if err == 0 { r = 0 } else { errno = err }
                } else if ready == 0 {
                    errno = ETIMEDOUT
                }
            }
            if r == 0 {
                var one: Int32 = 1
                setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                fd = s
                if address.isTLS {
                    do {
                        secure = try TLSConnection(fd: s, address: address, options: tls, deadline: deadline)
                    } catch {
                        close()
                        throw error
                    }
                }
                return
            }
            lastError = String(cString: strerror(errno))
            _ = systemClose(s)
        }
        throw .unreachable("can't reach the server at \(address) (\(lastError.lowercased()))")
    }

    /// Writes everything, waiting in poll only while the socket's buffer is full. Fails when
    /// the server takes nothing for `writeStallMs`, or the request's deadline passes.
    func writeAll(_ bytes: [UInt8], deadline: Int64) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let io = bytes.withUnsafeBytes { raw in write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            let events: Int16
            switch io {
            case .done(let n):
                offset += n
                continue
            case .endOfStream: throw .connectionLost("the server closed the connection")
            case .failed(let why): throw .connectionLost(why)
            case .wait(let wanted): events = wanted
            }
            let left = deadline - monotonicMs()
            if left <= 0 { throw .timedOut }
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&pfd, 1, Int32(min(left, Int64(writeStallMs))))
            if ready < 0 && errno != EINTR { throw .connectionLost(String(cString: strerror(errno))) }
            if ready == 0 { throw .timedOut }
        }
    }

    /// Waits for the first byte of the answer. The request may still sit in the kernel's
    /// buffers: if the server takes none of it for `writeStallMs`, it is frozen, and the
    /// request fails then rather than at the deadline. Costs nothing when the answer comes
    /// within the first slice of the wait.
    func awaitAnswer(deadline: Int64) throws(HTTPClientError) {
        guard bufferStart == buffer.count, secure?.pending != true else { return }
        var unsent = Int32.max
        while true {
            let left = deadline - monotonicMs()
            if left <= 0 { throw .timedOut }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(left, Int64(max(writeStallMs / 2, 1)))))
            if ready > 0 { return }
            if ready < 0 {
                if errno == EINTR { continue }
                throw .connectionLost(String(cString: strerror(errno)))
            }
            guard let queued = unsentBytes() else { continue }
            if queued > 0 && queued >= unsent { throw .timedOut }
            unsent = queued
        }
    }

    /// Bytes written that the server has not taken yet, where the system tells.
    private func unsentBytes() -> Int32? {
        #if canImport(Glibc)
        var queued: Int32 = 0
        return ioctl(fd, UInt(TIOCOUTQ), &queued) == 0 ? queued : nil
        #else
        return nil
        #endif
    }

    /// Reads more bytes into the buffer; false at end of stream. Tries the (non-blocking)
    /// socket first and waits in poll only when it has nothing yet.
    func fill(deadline: Int64) throws(HTTPClientError) -> Bool {
        if bufferStart > 65536 && bufferStart * 2 > buffer.count {
            buffer.removeFirst(bufferStart)
            bufferStart = 0
        }
        // One scratch array for the client's life: a fresh 64 KiB, zeroed, for every read
        // cost more than the few hundred bytes most reads bring. (A large body skips the
        // buffer: readBody.)
        if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: 65536) }
        while true {
            switch scratch.withUnsafeMutableBytes({ read($0) }) {
            case .done(let n):
                buffer.append(contentsOf: scratch[0..<n])
                return true
            case .endOfStream: return false
            case .failed(let why): throw .connectionLost(why)
            case .wait(let events): try wait(for: events, deadline: deadline)
            }
        }
    }

    /// Waits in poll until the socket is ready for `events`, within the deadline.
    func wait(for events: Int16, deadline: Int64) throws(HTTPClientError) {
        let left = deadline - monotonicMs()
        if left <= 0 { throw .timedOut }
        var pfd = pollfd(fd: fd, events: events, revents: 0)
        let ready = poll(&pfd, 1, Int32(min(left, Int64(Int32.max))))
        if ready < 0 && errno != EINTR { throw .connectionLost(String(cString: strerror(errno))) }
        if ready == 0 { throw .timedOut }
    }

    /// One non-blocking write, through TLS on an https:// connection.
    private func write(_ raw: UnsafeRawBufferPointer) -> SocketIO {
        if let secure { return secure.write(raw) }
        while true {
            let n = send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .done(n) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wait(Int16(POLLOUT)) }
            return .failed(String(cString: strerror(errno)))
        }
    }

    /// One non-blocking read, through TLS on an https:// connection.
    func read(_ raw: UnsafeMutableRawBufferPointer) -> SocketIO {
        if let secure { return secure.read(raw) }
        while true {
            let n = recv(fd, raw.baseAddress, raw.count, 0)
            if n > 0 { return .done(n) }
            if n == 0 { return .endOfStream }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wait(Int16(POLLIN)) }
            return .failed(String(cString: strerror(errno)))
        }
    }
}
