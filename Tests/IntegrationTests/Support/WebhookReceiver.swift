import Foundation

/// A receiver for outgoing webhooks, as a service of the user's would be: a small Python
/// http.server that checks each request's HMAC-SHA256 the way docs/webhooks.md tells
/// receivers to, answers 500 to its first `failFirst` requests, and appends one JSON line
/// per request to a log that outlives the process (so a killed receiver's requests count).
final class WebhookReceiver {
    static let script = #"""
        import hashlib, hmac, json, sys, threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        port, secret_file, fail_first, log_path = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
        lock = threading.Lock()
        seen = [0]

        class Receiver(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args): pass
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    seen[0] += 1
                    failing = seen[0] <= fail_first
                    secret = open(secret_file, "rb").read().strip()
                    expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
                    valid = hmac.compare_digest(expected, self.headers.get("X-Nexus-Signature-256", ""))
                    event = json.loads(body)
                    message = event.get("message") or {}
                    record = {"delivery": self.headers.get("X-Nexus-Delivery"), "event": self.headers.get("X-Nexus-Event"),
                              "valid": valid, "status": 500 if failing else 200, "messageId": message.get("id"),
                              "bodyDelivery": event.get("deliveryId"), "text": message.get("text"),
                              "change": (event.get("change") or {}).get("kind"), "emoji": (event.get("change") or {}).get("emoji"),
                              "actor": (event.get("actor") or {}).get("email"),
                              "membership": (message.get("membership") or {}).get("kind"), "seq": message.get("seq")}
                    with open(log_path, "a") as log:
                        log.write(json.dumps(record) + "\n")
                self.send_response(500 if failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        server = ThreadingHTTPServer(("127.0.0.1", port), Receiver)
        print("listening", server.server_address[1], flush=True)
        server.serve_forever()
        """#

    struct Request: Decodable {
        var delivery: String?
        var event: String?
        var valid: Bool
        var status: Int
        var messageId: Int64?
        var bodyDelivery: String?
        var text: String?
        /// For a change: its kind, its emoji, and who made it.
        var change: String?
        var emoji: String?
        var actor: String?
        /// For a membership line: what changed.
        var membership: String?
        var seq: Int64?
    }

    let directory: String
    var secretFile: String { directory + "/secret" }
    var logFile: String { directory + "/requests.jsonl" }
    private(set) var port = 0
    private var process: Process?
    var url: String { "http://127.0.0.1:\(port)/nexus" }

    init(failFirst: Int) throws {
        directory = try makeTempDir("receiver")
        try Self.script.write(toFile: directory + "/receiver.py", atomically: true, encoding: .utf8)
        try "".write(toFile: secretFile, atomically: true, encoding: .utf8)
        try start(failFirst: failFirst)
    }

    /// Starts (again), on the same port once it has one.
    func start(failFirst: Int = 0) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", directory + "/receiver.py", String(port), secretFile, String(failFirst), logFile]
        let lines = LineCollector()
        try launch(p, out: lines, err: nil)
        guard let listening = lines.value(after: "listening "), let port = Int(listening) else {
            p.terminate()
            throw HarnessError("the webhook receiver did not start")
        }
        self.port = port
        process = p
    }

    func kill9() {
        guard let p = process, p.isRunning else { return }
        Foundation.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }

    var requests: [Request] {
        let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }

    /// Requests answered 200.
    var delivered: [Request] { requests.filter { $0.status == 200 } }

    func wait(timeout: Double, until condition: ([Request]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(requests) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition(requests)
    }

    deinit { kill9() }
}

/// curl, as a shell without nexusctl would post.
struct CurlResult {
    var status: Int
    var headers: [String: String]
    var body: String
}

func curl(_ url: String, _ arguments: [String]) throws -> CurlResult {
    let r = try runTool("curl", ["-s", "-i", "--max-time", "10"] + arguments + [url])
    guard r.code == 0 else { throw HarnessError("curl failed (\(r.code)): \(r.err)") }
    let parts = r.out.components(separatedBy: "\r\n\r\n")
    let head = parts[0].components(separatedBy: "\r\n")
    let status = Int(head[0].split(separator: " ")[1]) ?? 0
    var headers: [String: String] = [:]
    for line in head.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return CurlResult(status: status, headers: headers, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
}
