import LibC

extension HTTPClient {
    /// Sends one request whose body of `length` bytes `fill` gives piece by piece, and reads
    /// the answer: a body of any size costs one piece of memory. `fill(at, buffer)` puts the
    /// body's bytes from `at` on into `buffer` (as many as fit, or as are left) and returns
    /// how many, or nil to give up (the connection is then closed, the body unfinished).
    /// Sent once more on a new connection when a reused keep-alive connection turns out
    /// closed, as `request` does; `fill` then starts again from 0.
    public func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], length: Int, contentType: String,
        timeoutMs: Int32 = 30_000, pieceBytes: Int = 1 << 20, fill: (Int, inout [UInt8]) -> Int?
    ) throws(HTTPClientError) -> HTTPResponse {
        let deadline = monotonicMs() + Int64(timeoutMs) + Int64(length / max(bodyBytesPerMs, 1))
        let reused = fd >= 0
        var piece = [UInt8](repeating: 0, count: min(pieceBytes, length))
        do {
            return try streamedAttempt(method, path, headers, length, contentType, timeoutMs, deadline, &piece, fill)
        } catch .connectionLost(let why) where reused {
            _ = why
            close()
            return try streamedAttempt(method, path, headers, length, contentType, timeoutMs, deadline, &piece, fill)
        }
    }

    private func streamedAttempt(
        _ method: String, _ path: String, _ headers: [(String, String)], _ length: Int, _ contentType: String, _ timeoutMs: Int32,
        _ deadline: Int64, _ piece: inout [UInt8], _ fill: (Int, inout [UInt8]) -> Int?
    ) throws(HTTPClientError) -> HTTPResponse {
        try sendHead(method, path, headers: headers, body: nil, contentType: contentType, deadline: deadline, streamedLength: length)
        do throws(HTTPClientError) {
            var sent = 0
            while sent < length {
                if piece.count > length - sent { piece = [UInt8](repeating: 0, count: length - sent) }
                guard let n = fill(sent, &piece), n > 0 else { throw .connectionLost("the request's body could not be read") }
                if n < piece.count { piece.removeLast(piece.count - n) }
                try writeAll(piece, deadline: deadline)
                sent += n
            }
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
}
