import NexusCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line on stderr that redraws itself: "name [######    ] 60% 180 MiB/300 MiB". Only
/// for a person at a terminal; redrawn at most ten times a second.
final class ProgressBar {
    private let terminal: any Terminal
    private let label: String
    private var lastDraw: Int64 = 0
    private var drawn = false

    init(_ terminal: any Terminal, label: String) {
        self.terminal = terminal
        self.label = label
    }

    /// A bar when stderr is a terminal and the command is not quiet; nil otherwise.
    static func make(_ context: CommandContext, label: String) -> ProgressBar? {
        guard context.terminal.errorIsTerminal, !context.output.quiet else { return nil }
        return ProgressBar(context.terminal, label: label)
    }

    func update(_ done: Int64, of total: Int64) {
        let now = Self.nowMs()
        guard done >= total || now - lastDraw >= 100 else { return }
        lastDraw = now
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let percent = Int(fraction * 100)
        terminal.writeErr("\r\(label) [\(bar)] \(percent)% \(LocalFile.humanSize(done))/\(LocalFile.humanSize(total))\u{1B}[K")
        drawn = true
    }

    /// Ends the line, if one was drawn.
    func finish() {
        if drawn { terminal.writeErr("\n") }
        drawn = false
    }

    private static func nowMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
