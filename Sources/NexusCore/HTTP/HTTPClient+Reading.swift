/// Reading an answer: lines, exact lengths, and the whole response (Content-Length or
/// chunked), from the client's buffer, filled as the deadline allows.
extension HTTPClient {
    /// Why a connection ended before the first byte of any answer on it.
    public static let closedUnanswered = "the server closed the connection without answering"

    func readLine(deadline: Int64, limit: Int = 16384) throws(HTTPClientError) -> String {
        var scanFrom = bufferStart
        while true {
            if let nl = buffer[scanFrom...].firstIndex(of: 10) {
                var end = nl
                if end > bufferStart && buffer[end - 1] == 13 { end -= 1 }
                let line = String(decoding: buffer[bufferStart..<end], as: UTF8.self)
                bufferStart = nl + 1
                return line
            }
            scanFrom = buffer.count
            if buffer.count - bufferStart > limit { throw .malformedResponse("header line too long") }
            guard try fill(deadline: deadline) else {
                throw .connectionLost(buffer.isEmpty ? Self.closedUnanswered : "the server closed the connection")
            }
        }
    }

    /// The most bytes of a stated length taken at their word: room for them is made before
    /// they come. A larger length (a broken or hostile server) grows as the bytes arrive.
    static let believedBodyBytes = 64 << 20

    func readExactly(_ count: Int, deadline: Int64) throws(HTTPClientError) -> ArraySlice<UInt8> {
        // Room for all of it at once: a body of megabytes grown 64 KiB at a time was copied a
        // dozen times.
        if buffer.count - bufferStart < count { buffer.reserveCapacity(bufferStart + min(count, Self.believedBodyBytes)) }
        while buffer.count - bufferStart < count {
            guard try fill(deadline: deadline) else { throw .connectionLost("the answer was cut short") }
        }
        let slice = buffer[bufferStart..<(bufferStart + count)]
        bufferStart += count
        return slice
    }

    /// A body of `length` bytes, read from the socket straight into an array of its own: a
    /// body of megabytes (the conversation list) was read into the buffer, then copied out.
    /// A length past `believedBodyBytes` grows as it comes, in the buffer.
    func readBody(_ length: Int, deadline: Int64) throws(HTTPClientError) -> [UInt8] {
        guard length <= Self.believedBodyBytes else { return Array(try readExactly(length, deadline: deadline)) }
        let buffered = min(length, buffer.count - bufferStart)
        var failure: HTTPClientError?
        let body = [UInt8](unsafeUninitializedCapacity: length) { raw, count in
            _ = raw.initialize(from: buffer[bufferStart..<(bufferStart + buffered)])
            count = buffered
            while count < length && failure == nil {
                switch read(UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: raw[count..<length]))) {
                case .done(let n): count += n
                case .endOfStream: failure = .connectionLost("the answer was cut short")
                case .failed(let why): failure = .connectionLost(why)
                case .wait(let events):
                    do throws(HTTPClientError) { try wait(for: events, deadline: deadline) } catch { failure = error }
                }
            }
        }
        bufferStart += buffered
        if let failure { throw failure }
        return body
    }

    func readResponse(deadline: Int64) throws(HTTPClientError) -> HTTPResponse {
        var response = try readHead { deadline }
        if response.isChunked {
            try readChunks { deadline } chunk: { size throws(HTTPClientError) in response.body += try readExactly(size, deadline: deadline) }
        } else if let length = try response.contentLength() {
            response.body = try readBody(length, deadline: deadline)
        } else if response.status != 204 && response.status != 304 && !(100..<200).contains(response.status) {
            while try fill(deadline: deadline) {}
            response.body = Array(buffer[bufferStart...])
            bufferStart = buffer.count
            close()
        }
        forgetReadBytes()
        return response
    }

    /// An answer's status line and headers; its body is still to read. `deadline` is asked
    /// before each line.
    func readHead(deadline: () -> Int64) throws(HTTPClientError) -> HTTPResponse {
        let statusLine = try readLine(deadline: deadline())
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw .malformedResponse("bad status line")
        }
        var headers: [(String, String)] = []
        while true {
            let line = try readLine(deadline: deadline())
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw .malformedResponse("bad header line") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces()))
        }
        return HTTPResponse(status: status, headers: headers, body: [])
    }

    /// A chunked body: `chunk` reads each chunk's bytes, given their count; then the last
    /// chunk and the trailers are read past.
    func readChunks(deadline: () -> Int64, chunk: (Int) throws(HTTPClientError) -> Void) throws(HTTPClientError) {
        while true {
            let sizeLine = try readLine(deadline: deadline())
            let hex = sizeLine.split(separator: ";").first.map(String.init)?.trimmingSpaces() ?? ""
            guard let size = Int(hex, radix: 16) else { throw .malformedResponse("bad chunk size") }
            if size == 0 {
                while try !readLine(deadline: deadline()).isEmpty {}
                return
            }
            try chunk(size)
            _ = try readLine(deadline: deadline())
        }
    }

    /// Empties the buffer once everything in it was read, so it does not grow.
    func forgetReadBytes() {
        if bufferStart == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            bufferStart = 0
        }
    }
}
