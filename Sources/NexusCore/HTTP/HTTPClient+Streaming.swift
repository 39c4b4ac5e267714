/// Downloads: an answer's body handed on in pieces as it arrives, so a file of any size
/// passes through a buffer of 64 KiB.
extension HTTPClient {
    /// Sends a GET and passes a 2xx answer's body to `onBody` piece by piece; `onHead`
    /// sees the status and headers first. Any other answer comes back whole (an error is
    /// small), its body in the response. `timeoutMs` bounds each wait for bytes, not the
    /// whole transfer.
    public func stream(
        _ path: String, headers: [(String, String)] = [], timeoutMs: Int32 = 30_000,
        onHead: (HTTPResponse) throws(HTTPClientError) -> Void,
        onBody: (UnsafeRawBufferPointer) throws(HTTPClientError) -> Void
    ) throws(HTTPClientError) -> HTTPResponse {
        let reused = fd >= 0
        do {
            try sendHead("GET", path, headers: headers, body: nil, contentType: "", deadline: monotonicMs() + Int64(timeoutMs))
            try awaitAnswer(deadline: monotonicMs() + Int64(timeoutMs))
        } catch .connectionLost where reused {
            close()
            try sendHead("GET", path, headers: headers, body: nil, contentType: "", deadline: monotonicMs() + Int64(timeoutMs))
            try awaitAnswer(deadline: monotonicMs() + Int64(timeoutMs))
        }
        do throws(HTTPClientError) {
            let deadline = { monotonicMs() + Int64(timeoutMs) }
            let statusLine = try readLine(deadline: deadline())
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
                throw HTTPClientError.malformedResponse("bad status line")
            }
            var headers: [(String, String)] = []
            while true {
                let line = try readLine(deadline: deadline())
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":") else { throw HTTPClientError.malformedResponse("bad header line") }
                headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces()))
            }
            var response = HTTPResponse(status: status, headers: headers, body: [])
            guard (200..<300).contains(status) else {
                if let length = response.header("Content-Length").flatMap({ Int($0) }), length >= 0, length <= 1 << 20 {
                    response.body = try readBody(length, deadline: deadline())
                } else {
                    close()
                }
                return response
            }
            try onHead(response)
            if let te = response.header("Transfer-Encoding"), te.lowercased().contains("chunked") {
                while true {
                    let sizeLine = try readLine(deadline: deadline())
                    let hex = sizeLine.split(separator: ";").first.map(String.init)?.trimmingSpaces() ?? ""
                    guard let size = Int(hex, radix: 16) else { throw HTTPClientError.malformedResponse("bad chunk size") }
                    if size == 0 {
                        while try !readLine(deadline: deadline()).isEmpty {}
                        break
                    }
                    try pass(size, deadline: deadline, onBody)
                    _ = try readLine(deadline: deadline())
                }
            } else if let lengthText = response.header("Content-Length") {
                guard let length = Int(lengthText), length >= 0 else { throw HTTPClientError.malformedResponse("bad Content-Length") }
                try pass(length, deadline: deadline, onBody)
            } else {
                throw HTTPClientError.malformedResponse("a download needs Content-Length or chunked encoding")
            }
            if bufferStart == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                bufferStart = 0
            }
            return response
        } catch {
            close()
            throw error
        }
    }

    /// Hands `count` body bytes to `onBody` as they come.
    private func pass(
        _ count: Int, deadline: () -> Int64, _ onBody: (UnsafeRawBufferPointer) throws(HTTPClientError) -> Void
    ) throws(HTTPClientError) {
        var left = count
        while left > 0 {
            if bufferStart == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                bufferStart = 0
                guard try fill(deadline: deadline()) else { throw .connectionLost("the download was cut short") }
            }
            let n = min(left, buffer.count - bufferStart)
            let start = bufferStart
            bufferStart += n
            left -= n
            var failure: HTTPClientError?
            buffer.withUnsafeBytes { raw in
                do throws(HTTPClientError) {
                    try onBody(UnsafeRawBufferPointer(rebasing: raw[start..<(start + n)]))
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
    }
}
