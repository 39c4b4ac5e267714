#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file did not go up.
public enum UploadFailure: Error, Equatable {
    /// The local file is gone or not what was queued: its message must fail, not be sent wrong.
    case file(String)
    /// The server or the network: the same as for any request.
    case api(APIError)
}

extension NexusAPI {
    /// Bytes one upload request carries: what a kill or a dropped connection can cost. As
    /// many as nexusd takes in one: fewer requests, the same resumption.
    static let uploadChunkBytes = Limits.maxUploadChunkBytes

    /// Uploads `file` unless the server has it already, from where the server's last
    /// acknowledgement left off. The server checks the SHA-256 before it acknowledges the
    /// last chunk. `onProgress` gets (bytes the server has, size).
    public func upload(_ file: OutboxFile, onProgress: ((Int64, Int64) -> Void)? = nil) throws(UploadFailure) {
        var state: UploadState
        do { state = try call("POST", "/v1/uploads", body: UploadRequest(sha256: file.sha256, size: file.size)) } catch { throw .api(error) }
        if state.complete {
            onProgress?(state.size, state.size)
            return
        }
        let fd = open(file.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .file("The file \(file.path) is gone (\(String(cString: strerror(errno)).lowercased())); the message was not sent.")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, Int64(st.st_size) == file.size else {
            throw .file("The file \(file.path) changed after it was queued (\(file.size) bytes then, \(st.st_size) now); the message was not sent.")
        }
        var buffer = [UInt8](repeating: 0, count: Self.uploadChunkBytes)
        var busyWaits = 0
        while !state.complete {
            onProgress?(state.received, state.size)
            let offset = state.received
            let want = Int(min(Int64(Self.uploadChunkBytes), file.size - offset))
            if buffer.count != want { buffer = [UInt8](repeating: 0, count: want) }
            let got: Int
            do { got = try Self.readFully(fd, &buffer, at: offset) } catch { throw .file("The file \(file.path) can't be read: \(error.reason).") }
            guard got == want else {
                throw .file("The file \(file.path) changed after it was queued (it is shorter now); the message was not sent.")
            }
            do {
                let response = try raw(
                    "PATCH", "/v1/uploads/\(file.sha256)?offset=\(offset)", body: buffer, contentType: "application/octet-stream")
                state = try decode(response)
            } catch {
                var code = ""
                if case .server(_, let c, _, _) = error { code = c }
                switch (error.status, code) {
                case (409, "offset_mismatch"):
                    do { state = try call("GET", "/v1/uploads/\(file.sha256)") } catch { throw .api(error) }
                case (409, "upload_busy") where busyWaits < 30:
                    // A request of a killed nexusctl may still be finishing on the server.
                    busyWaits += 1
                    usleep(500_000)
                case (422, "hash_mismatch"):
                    throw .file("The file \(file.path) changed after it was queued (its SHA-256 no longer matches); the message was not sent.")
                case (404, _):
                    // Cleaned up meanwhile (older than a day): start it again.
                    do { state = try call("POST", "/v1/uploads", body: UploadRequest(sha256: file.sha256, size: file.size)) } catch { throw .api(error) }
                default:
                    throw .api(error)
                }
            }
        }
        onProgress?(state.size, state.size)
    }

    /// The server's state of the caller's upload of `sha256` (404 when there is none).
    func uploadState(sha256: String) throws(APIError) -> UploadState {
        try call("GET", "/v1/uploads/\(sha256)")
    }

    /// Reads until `buffer` is full or the file ends; returns the bytes read.
    static func readFully(_ fd: Int32, _ buffer: inout [UInt8], at offset: Int64) throws(StoreError) -> Int {
        var done = 0
        let count = buffer.count
        while done < count {
            let n = buffer.withUnsafeMutableBytes { raw in pread(fd, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError.errno("file", "can't read")
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Streams attachment `index` (0-based) of message `seq` to `onBody`, piece by piece.
    /// `onHead` learns the size (Content-Length) before the first byte.
    public func download(
        conversationId: Int64, seq: Int64, index: Int, onSize: (Int64?) throws(APIError) -> Void,
        onBody: (UnsafeRawBufferPointer) throws(APIError) -> Void
    ) throws(APIError) {
        var headers: [(String, String)] = []
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if !tls.allowPlainHTTP, token != nil, !address.isTLS, !address.isLoopback { throw .plainHTTPRefused("\(address)") }
        var failure: APIError?
        let response: HTTPResponse
        do throws(HTTPClientError) {
            response = try http.stream(
                "/v1/conversations/\(conversationId)/messages/\(seq)/attachments/\(index)", headers: headers,
                onHead: { head throws(HTTPClientError) in
                    do throws(APIError) { try onSize(head.header("Content-Length").flatMap { Int64($0) }) } catch {
                        failure = error
                        throw .malformedResponse("stopped")
                    }
                },
                onBody: { piece throws(HTTPClientError) in
                    do throws(APIError) { try onBody(piece) } catch {
                        failure = error
                        throw .malformedResponse("stopped")
                    }
                })
        } catch {
            if let failure { throw failure }
            throw Self.apiError(error, address: address)
        }
        _ = try check(response)
    }
}
