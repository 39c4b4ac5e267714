/// Downloads: an answer's body handed on in pieces as it arrives, so a file of any size
/// passes through a buffer of 64 KiB.
extension HTTPClient {
    /// Sends a GET and passes a 2xx answer's body to `onBody` piece by piece; `onHead`
    /// sees the status and headers first. Any other answer comes back whole (an error is
    /// small), its body in the response. `timeoutMs` bounds each wait for bytes, not the
    /// whole transfer.
    func stream(
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
            var response = try readHead(deadline: deadline)
            guard (200..<300).contains(response.status) else {
                if let length = response.header("Content-Length").flatMap({ Int($0) }), length >= 0, length <= 1 << 20 {
                    response.body = try readBody(length, deadline: deadline())
                } else {
                    close()
                }
                return response
            }
            try onHead(response)
            if response.isChunked {
                try readChunks(deadline: deadline) { size throws(HTTPClientError) in try pass(size, deadline: deadline, onBody) }
            } else if let length = try response.contentLength() {
                try pass(length, deadline: deadline, onBody)
            } else {
                throw HTTPClientError.malformedResponse("a download needs Content-Length or chunked encoding")
            }
            forgetReadBytes()
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
                forgetReadBytes()
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
