import LibC

/// Where a command's input and output go. The real process uses `SystemTerminal`;
/// tests use `CapturedTerminal` and run commands in-process.
public protocol Terminal: AnyObject {
    func writeOut(_ text: String)
    func writeErr(_ text: String)
    /// All of standard input.
    func readAllInput() -> [UInt8]
    /// One line of standard input without its newline; nil at end of input.
    func readInputLine() -> String?
    /// Asks for a secret on the controlling terminal without echoing it; nil when there is no terminal.
    func readSecret(prompt: String) -> String?
    var inputIsTerminal: Bool { get }
    var outputIsTerminal: Bool { get }
    var errorIsTerminal: Bool { get }
    /// The width of the terminal stdout goes to; nil when it is no terminal.
    var columns: Int? { get }
}

public final class SystemTerminal: Terminal {
    public init() {}

    public func writeOut(_ text: String) { Self.write(1, text) }
    public func writeErr(_ text: String) { Self.write(2, text) }

    private static func write(_ fd: Int32, _ text: String) {
        // The string's own bytes: a list of ten thousand rows is half a megabyte, not copied.
        var text = text
        text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    // A closed pipe (`nexusctl tail -f | head`): stop quietly, as cat does.
                    if errno == EPIPE { exit(0) }
                    // Any other failure (a full disk, an I/O error) loses the command's report, so
                    // a script must not read success: say so, and exit with the documented code.
                    // What the command did (a message sent or queued) stays done.
                    if fd == 1 {
                        let why = String(cString: strerror(errno))
                        write(2, "error: could not write to standard output: \(why)\n"
                            + "hint: what the command did is done (a message sent or queued stays so); only its output was lost.\n")
                        exit(ExitCode.output.rawValue)
                    }
                    return
                }
                done += n
            }
        }
    }

    public func readAllInput() -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            result += chunk[0..<n]
        }
        return result
    }

    private var pending: [UInt8] = []
    private var inputEnded = false

    public func readInputLine() -> String? {
        while true {
            if let nl = pending.firstIndex(of: 10) {
                var line = Array(pending[..<nl])
                pending.removeSubrange(...nl)
                if line.last == 13 { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            if inputEnded {
                if pending.isEmpty { return nil }
                defer { pending.removeAll() }
                return String(decoding: pending, as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { inputEnded = true } else { pending += chunk[0..<n] }
        }
    }

    public func readSecret(prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        _ = Glibc.write(fd, prompt, prompt.utf8.count)
        tcsetattr(fd, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(fd, TCSAFLUSH, &saved)
            _ = Glibc.write(fd, "\n", 1)
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
            if byte == 10 || byte == 13 { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    public var inputIsTerminal: Bool { isatty(0) == 1 }
    public var outputIsTerminal: Bool { isatty(1) == 1 }
    public var errorIsTerminal: Bool { isatty(2) == 1 }

    public var columns: Int? {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

/// Captures output and serves canned input, for in-process tests.
public final class CapturedTerminal: Terminal {
    public var out = ""
    public var err = ""
    public var input: [UInt8]
    public var secret: String?
    public var inputIsTerminal = false
    public var outputIsTerminal = false
    public var errorIsTerminal = false
    public var columns: Int?

    public init(input: String = "", secret: String? = nil) {
        self.input = Array(input.utf8)
        self.secret = secret
    }

    public func writeOut(_ text: String) { out += text }
    public func writeErr(_ text: String) { err += text }
    public func readAllInput() -> [UInt8] {
        defer { input.removeAll() }
        return input
    }
    public func readInputLine() -> String? {
        guard !input.isEmpty else { return nil }
        let nl = input.firstIndex(of: 10) ?? input.count
        let line = String(decoding: input[..<nl], as: UTF8.self)
        input.removeSubrange(..<min(nl + 1, input.count))
        return line
    }
    public func readSecret(prompt: String) -> String? { secret }
}
