/// The words for an error answer that is not nexusd's JSON: it came from something in front
/// of nexusd, most often a reverse proxy. Its HTML page printed whole on a terminal, or kept
/// as a queued message's error, said nothing useful; its status and title do.
///
/// Bytes, not Foundation's string search: the core loads FoundationEssentials only, and
/// Foundation with its ICU data cost every nexusctl process 6.5 MiB.
enum ForeignError {
    static func message(status: Int, body: [UInt8]) -> String {
        let head = body.prefix(1024)
        var said = head[head.startIndex..<head.startIndex]
        if let open = range(of: "<title>", in: head), let close = range(of: "</title>", in: head[open.upperBound...]) {
            said = head[open.upperBound..<close.lowerBound]
        } else if !head.contains(UInt8(ascii: "<")) {
            said = head
        }
        let firstLine = said.split(whereSeparator: { $0 == 10 || $0 == 13 }).first ?? []
        var line = String(decoding: firstLine.prefix(200), as: UTF8.self)
        if line.hasPrefix("\(status) ") { line.removeFirst("\(status) ".count) }  // nginx's "413 Request Entity Too Large"
        var message = "the server answered \(status)"
        if !line.isEmpty { message += " (\(line))" }
        guard !body.isEmpty else { return message }
        message += ", not in nexusd's words: from a proxy in front of it, most likely"
        if status == 413 {
            let mib = NexusAPI.uploadChunkBytes >> 20
            message += "; its request body limit must be at least \(mib) MiB, the size of an upload chunk"
                + " (nginx: client_max_body_size \(mib)m; see docs/deploy.md)"
        }
        return message
    }

    private static func range(of pattern: String, in bytes: ArraySlice<UInt8>) -> Range<Int>? {
        let p = Array(pattern.utf8)
        guard bytes.count >= p.count else { return nil }
        for start in bytes.startIndex...(bytes.endIndex - p.count) where bytes[start..<start + p.count].elementsEqual(p) {
            return start..<start + p.count
        }
        return nil
    }
}
