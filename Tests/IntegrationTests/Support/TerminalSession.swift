import Foundation

/// nexusctl on a real terminal of a given size: a tmux server of its own (its own socket,
/// no config), so a test reads the screen, and what scrolled off it, as a person sees them.
/// When the command ends the pane says "[exit N]" and stays, so its last screen can be read.
final class TerminalSession {
    private let socket: String
    var socketPath: String { socket }
    private let user: User
    private let server: Process

    convenience init(_ user: User, _ args: [String], width: Int = 100, height: Int = 30) throws {
        // The shell outlives a Ctrl-C to say how the command ended (a caught signal is the
        // default again in the command, so it still gets the Ctrl-C).
        let shell = "trap : INT; " + Self.command(args) + "; echo \"[exit $?]\"; exec sleep 3600"
        try self.init(user, shell: shell, width: width, height: height)
    }

    /// nexusctl with `args`, quoted for the shell.
    static func command(_ args: [String]) -> String { ([Binaries.nexusctl] + args).map(Self.quoted).joined(separator: " ") }

    /// `shell` run by sh in the pane (it should end by sleeping, so the pane stays).
    init(_ user: User, shell: String, width: Int = 100, height: Int = 30) throws {
        self.user = user
        socket = try makeTempDir("tty") + "/tmux"
        // A server in the foreground, a child like nexusd: one a client started would keep
        // the client's descriptors, and so the client would never be seen to end.
        server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["tmux", "-S", socket, "-f", "/dev/null", "-D"]
        server.environment = user.environment
        try launch(server) {
            server.standardOutput = FileHandle.nullDevice
            server.standardError = FileHandle.nullDevice
        }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        try tmux(["new-session", "-d", "-x", "\(width)", "-y", "\(height)", "sh -c \(Self.quoted(shell))"])
    }

    /// The screen as it is now, one string a row, trailing spaces dropped.
    var screen: [String] { (try? tmux(["capture-pane", "-p"]))?.lines ?? [] }

    /// Every row written so far: the scrollback, then the screen.
    var everything: [String] { (try? tmux(["capture-pane", "-p", "-S", "-"]))?.lines ?? [] }

    /// Waits (looking every 50 ms) until `condition` holds for the screen; false on timeout.
    func wait(timeout: Double = 15, until condition: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(screen) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition(screen)
    }

    /// Waits until the command has ended; its exit code, nil on timeout.
    func exitCode(timeout: Double = 15) -> Int32? {
        var code: Int32?
        _ = wait(timeout: timeout) { rows in
            // After the "^C" a terminal echoes, if any.
            code = rows.lazy.compactMap { row in row.range(of: "[exit ").flatMap { Int32(row[$0.upperBound...].dropLast()) } }.first
            return code != nil
        }
        return code
    }

    /// Ctrl-C, as a person at the terminal ends a `tail -f`.
    func interrupt() { _ = try? tmux(["send-keys", "C-c"]) }

    /// Keys as tmux names them ("Enter", "PageUp", "C-c"), or text typed as it is with `literal`.
    func send(_ keys: String..., literal: Bool = false) {
        _ = try? tmux(["send-keys"] + (literal ? ["-l"] : []) + keys)
    }

    /// The terminal's new size, as when a person resizes the window (SIGWINCH to the command).
    func resize(width: Int, height: Int) {
        _ = try? tmux(["resize-window", "-x", "\(width)", "-y", "\(height)"])
    }

    /// The pane's shell, and the command it is running now (its child), if any.
    var shellPid: Int32? { (try? tmux(["display-message", "-p", "#{pane_pid}"])).flatMap { Int32($0.out.trimmingCharacters(in: .whitespacesAndNewlines)) } }

    var childPid: Int32? {
        guard let shell = shellPid, let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8) else { return nil }
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }

    func close() {
        guard !closed else { return }
        closed = true
        // kill-server alone left servers running after the tests, each with its pane's
        // nexusctl polling on: the pane's processes and the server go by signal as well.
        let pane = shellPid
        _ = try? tmux(["kill-server"])
        if let pane { kill(-pane, SIGKILL); kill(pane, SIGKILL) }
        if server.isRunning { kill(server.processIdentifier, SIGKILL) }
        _ = ends(server, within: 10)
    }

    private var closed = false

    deinit { close() }

    @discardableResult
    private func tmux(_ args: [String]) throws -> Result {
        let r = try runTool("tmux", ["-S", socket] + args)
        guard r.code == 0 else { throw HarnessError("tmux \(args.first ?? "") failed: \(r.err)") }
        return r
    }

    static func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

extension TerminalSession {
    /// Pastes `text` as a terminal does: bracketed (ESC [200~ … ESC [201~) when the program
    /// asked for it, as a person's paste comes.
    func paste(_ text: String) throws {
        _ = try runTool("tmux", ["-S", socketPath, "set-buffer", "--", text])
        _ = try runTool("tmux", ["-S", socketPath, "paste-buffer", "-p", "-d"])
    }

    /// Copies every byte the pane's programs write to its terminal into `path`, escape
    /// sequences and all (capture-pane shows the screen they leave, not the sequences).
    func record(to path: String) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        _ = try runTool("tmux", ["-S", socketPath, "pipe-pane", "-O", "cat >> " + Self.quoted(path)])
    }
}
