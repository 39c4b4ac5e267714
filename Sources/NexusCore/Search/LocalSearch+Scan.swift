import LibC

// `search --offline` reads every cached line: a million of them took 260–300 ms on one
// core (the scale target: at most 300 ms). The files are cut in two halves of bytes,
// read beside each other; a line belongs to the half it starts in.

/// Bytes `from..<to` of a file; `to` is .max for the rest of it, however long it grew.
struct FilePart: Equatable {
    var path: String
    var from = 0
    var to = Int.max
}

extension LocalSearch {
    /// Caches smaller than this are read on one thread: a thread costs more than it saves.
    static let halvesFromBytes = 4 << 20

    /// The files as one share, or as two of about equal bytes when they hold at least
    /// `minimum` (the file that crosses the middle is cut there).
    static func halves(of files: [(path: String, size: Int)], from minimum: Int) -> [[FilePart]] {
        let total = files.reduce(0) { $0 + $1.size }
        guard total >= minimum else { return [files.map { FilePart(path: $0.path) }] }
        var shares: [[FilePart]] = [[], []]
        var before = 0
        let middle = total / 2
        for file in files {
            if before + file.size <= middle {
                shares[0].append(FilePart(path: file.path))
            } else if before >= middle {
                shares[1].append(FilePart(path: file.path))
            } else {
                shares[0].append(FilePart(path: file.path, to: middle - before))
                shares[1].append(FilePart(path: file.path, from: middle - before))
            }
            before += file.size
        }
        return shares
    }

    /// Calls `body` with each complete line of the file that starts at or after `from` and
    /// before `to`, reading 1 MiB at a time into one buffer (grown only for a longer line),
    /// lines found with memchr.
    static func lines(of path: String, from: Int = 0, to end: Int = .max, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(StoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return }  // gone since it was listed (a prune): nothing to find
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var filled = 0
        // From the byte before `from`: the line that ends there, or the tail of one that began
        // before it, is the other half's (an empty line when `from` starts one).
        var offset = max(from - 1, 0)
        var skipping = from > 0
        while true {
            if filled == buffer.count { buffer += repeatElement(0, count: buffer.count) }
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(offset + filled)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError(path: path, reason: "can't read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
            var done = false
            let consumed = buffer.withUnsafeBufferPointer { all -> Int in
                let base = all.baseAddress!
                var start = 0
                while start < filled, let nl = memchr(base + start, 10, filled - start) {
                    if offset + start >= end {
                        done = true
                        break
                    }
                    let stop = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(nl))
                    if skipping { skipping = false } else { body(UnsafeBufferPointer(start: base + start, count: stop - start)) }
                    start = stop + 1
                }
                return start
            }
            if done { return }
            if consumed > 0 {
                buffer.withUnsafeMutableBytes { _ = memmove($0.baseAddress!, $0.baseAddress! + consumed, filled - consumed) }
                filled -= consumed
                offset += consumed
            }
        }
        // A torn last line without its newline is not a message yet.
    }
}
