import LibC

/// Where a notice is shown. The terminal's sequences and the bell go to the controlling
/// terminal (/dev/tty), so they reach it while stdout is a pipe into jq; `notify-send` runs
/// without waiting, so a slow or absent notification service never holds up the tail.
final class NotifySink {
    let method: NotifyMethod
    private let tty: Int32
    private var children: [pid_t] = []

    init?(method: NotifyMethod) {
        self.method = method
        if method == .dbus {
            tty = -1
        } else {
            tty = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC)
            if tty < 0 { return nil }
        }
    }

    deinit { if tty >= 0 { close(tty) } }

    func show(_ notice: DesktopNotice) {
        reap()
        switch method {
        case .osc777: write("\u{1B}]777;notify;\(Self.field(notice.title));\(notice.body)\u{1B}\\")
        case .osc9: write("\u{1B}]9;\(notice.title): \(notice.body)\u{1B}\\")
        case .osc99:
            write("\u{1B}]99;i=nexus:d=0:p=title;\(notice.title)\u{1B}\\")
            write("\u{1B}]99;i=nexus:d=1:p=body;\(notice.body)\u{1B}\\")
        case .bell: write("\u{07}")
        case .dbus: spawn(["notify-send", "--app-name=nexusctl", "--", notice.title, notice.body])
        }
    }

    /// A field that another follows: its `;` would end it early.
    private static func field(_ text: String) -> String { String(text.map { $0 == ";" ? "," : $0 }) }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { LibC.write(tty, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return }
            done += n
        }
    }

    private func spawn(_ argv: [String]) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        var cArgs = argv.map { strdup($0) }
        defer { for a in cArgs { free(a) } }
        cArgs.append(nil)
        var pid: pid_t = 0
        if posix_spawnp(&pid, argv[0], &actions, nil, cArgs, environ) == 0 { children.append(pid) }
    }

    /// Collects the `notify-send`s that ended, so none stays a zombie.
    private func reap() {
        children.removeAll { pid in
            var status: Int32 = 0
            return waitpid(pid, &status, WNOHANG) != 0
        }
    }

    /// Whether `notify-send` is on PATH.
    static func hasNotifySend(path: String?) -> Bool {
        (path ?? "/usr/bin:/bin").split(separator: ":").contains { access("\($0)/notify-send", X_OK) == 0 }
    }
}
