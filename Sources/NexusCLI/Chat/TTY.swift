import LibC
import NexusCore

/// The terminal as `chat` holds it: raw mode and the alternate screen, by termios and
/// xterm sequences alone (no terminfo), put back however the process ends: a normal
/// return, SIGINT/SIGTERM/SIGHUP (through TerminationGuard), or a crash signal.
/// What runs from a signal handler only calls write(2) and tcsetattr(3).
enum TTY {
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var active: sig_atomic_t = 0
    /// Written to by the SIGWINCH and SIGCONT handlers, read by the main loop's poll.
    nonisolated(unsafe) static var wakeRead: Int32 = -1
    nonisolated(unsafe) static var wakeWrite: Int32 = -1
    /// Set by SIGCONT: the process was stopped from outside, so raw mode must be set again.
    nonisolated(unsafe) static var continued: sig_atomic_t = 0

    /// The alternate screen, bracketed paste (a pasted block comes as one) and the mouse's
    /// wheel as SGR reports (Shift and drag still selects text in xterm-likes and tmux).
    private static let enterSequence = "\u{1B}[?1049h\u{1B}[?2004h\u{1B}[?1000h\u{1B}[?1006h\u{1B}[?25l\u{1B}[H\u{1B}[2J"
    /// Colours off, the cursor shown, mouse and paste modes off, the normal screen back.
    nonisolated(unsafe) private static let leaveSequence: UnsafeMutablePointer<CChar> = strdup(
        "\u{1B}[0m\u{1B}[?25h\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?2004l\u{1B}[?1049l")!

    /// Saves the terminal's settings, then switches to raw mode and the alternate screen.
    static func start() throws(CLIError) {
        guard tcgetattr(0, &saved) == 0 else { throw CLIError(.failure, "can't read the terminal's settings: \(String(cString: strerror(errno)))") }
        var fds: [Int32] = [-1, -1]
        if wakeRead < 0, pipe(&fds) == 0 {
            (wakeRead, wakeWrite) = (fds[0], fds[1])
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
        TerminationGuard.install()
        TerminationGuard.beforeEnd = { TTY.restore() }
        handle([SIGWINCH, SIGCONT]) { signal in
            if signal == SIGCONT { TTY.continued = 1 }
            TTY.wake()
        }
        handle([SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE], once: true) { signal in
            TTY.restore()
            raise(signal)
        }
        enter()
    }

    /// Raw mode and the alternate screen (again after a suspension).
    static func enter() {
        var raw = saved
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSAFLUSH, &raw)
        write(enterSequence)
        active = 1
    }

    /// The terminal as it was found. Async-signal-safe, and a no-op when not in raw mode.
    static func restore() {
        guard active != 0 else { return }
        active = 0
        _ = Glibc.write(1, leaveSequence, strlen(leaveSequence))
        tcsetattr(0, TCSAFLUSH, &saved)
    }

    /// Ctrl-Z: the terminal back to the shell, stopped until `fg`, then raw again.
    static func suspend() {
        restore()
        signal(SIGTSTP, SIG_DFL)
        // A mask inherited from the parent may hold it, and it would stay pending.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(SIGTSTP)
        continued = 0
        enter()
    }

    static func wake() {
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    /// Rows and columns of the terminal (24×80 when it won't say).
    static var size: (rows: Int, columns: Int) {
        var w = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &w) == 0, w.ws_col > 0, w.ws_row > 0 else { return (24, 80) }
        return (Int(w.ws_row), Int(w.ws_col))
    }

    static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(1, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 { if errno == EINTR || errno == EAGAIN { continue }; return }
                done += n
            }
        }
    }

    private static func handle(_ signals: [Int32], once: Bool = false, _ handler: @convention(c) (Int32) -> Void) {
        setSignalHandler(handler, for: signals, flags: SA_RESTART | (once ? Int32(truncatingIfNeeded: SA_RESETHAND) : 0))
    }
}
