import Foundation

/// The words for an error answer that is not nexusd's JSON: it came from something in front
/// of nexusd, most often a reverse proxy. Its HTML page printed whole on a terminal, or kept
/// as a queued message's error, said nothing useful; its status and title do.
enum ForeignError {
    static func message(status: Int, body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(1024), as: UTF8.self)
        var said: Substring = text[...]
        if let open = text.range(of: "<title>"), let close = text[open.upperBound...].range(of: "</title>") {
            said = text[open.upperBound..<close.lowerBound]
        } else if text.contains("<") {
            said = ""
        }
        var line = said.split(whereSeparator: \.isNewline).first.map { String($0.prefix(200)) } ?? ""
        if line.hasPrefix("\(status) ") { line.removeFirst("\(status) ".count) }  // nginx's "413 Request Entity Too Large"
        var message = "the server answered \(status)"
        if !line.isEmpty { message += " (\(line))" }
        guard !text.isEmpty else { return message }
        message += ", not in nexusd's words: from a proxy in front of it, most likely"
        if status == 413 {
            message += "; its request body limit must be at least 16 MiB, the size of an upload chunk"
                + " (nginx: client_max_body_size 16m; see docs/deploy.md)"
        }
        return message
    }
}
