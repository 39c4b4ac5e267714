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
        if let open = head.firstRange(of: "<title>".utf8), let close = head[open.upperBound...].firstRange(of: "</title>".utf8) {
            said = head[open.upperBound..<close.lowerBound]
        } else if !head.contains(UInt8(ascii: "<")) {
            said = head
        }
        let firstLine = said.split(whereSeparator: { $0 == 10 || $0 == 13 }).first ?? []
        var line = String(decoding: firstLine.prefix(200), as: UTF8.self)
        let statusWord = "\(status) "
        if line.hasPrefix(statusWord) { line.removeFirst(statusWord.count) }  // nginx's "413 Request Entity Too Large"
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
}
