import LibC
import NexusCore

/// `chat`'s main thread: keys in, frames out. It waits in poll(2) on the terminal and on
/// the wake-up pipe (a change from the feed or the worker, SIGWINCH, SIGCONT), and only
/// then draws, so an idle chat costs nothing.
final class ChatLoop: @unchecked Sendable {
    let model: ChatModel
    let worker: ChatWorker
    let output: Output
    private var list = ConversationListView()
    private var chat = ChatView()
    private var editor = LineEditor()
    private var decoder = KeyDecoder()
    private var inChat = false
    private var lastTyping: Int64 = 0
    /// A lasting feed error (a revoked token), from the feed's thread, under the model's lock.
    private var failure: FeedError?
    private var quit = false

    init(model: ChatModel, worker: ChatWorker, output: Output) {
        self.model = model
        self.worker = worker
        self.output = output
    }

    func fatal(_ error: FeedError) { model.change { _ in failure = error } }

    func open(_ id: Int64) {
        model.locked { m in
            m.openId = id
            m.open = nil
            m.messages = []
            m.pending = []
            m.hasMore = true
        }
        inChat = true
        chat.scroll = 0
        editor.clear()
        worker.open(id)
    }

    /// Runs until the person quits; the feed's lasting error, if that ended it.
    func run() -> FeedError? {
        draw()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !quit {
            var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0), pollfd(fd: TTY.wakeRead, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 2, timeout())
            if n < 0 && errno != EINTR { break }
            if fds[1].revents != 0 { while read(TTY.wakeRead, &buffer, buffer.count) > 0 {} }
            if fds[0].revents & Int16(POLLIN) != 0 {
                let got = read(0, &buffer, buffer.count)
                if got == 0 { break }
                if got > 0 { for key in decoder.keys(Array(buffer[0..<got])) where !quit { handle(key) } }
            } else if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 {
                break
            }
            if TTY.continued != 0 { TTY.continued = 0; TTY.enter() }
            if let failure = model.locked({ _ in self.failure }) { model.locked { $0.stopping = true }; return failure }
            if !quit { draw() }
        }
        model.locked { $0.stopping = true }
        return nil
    }

    /// Until someone's typing runs out (it must leave the screen then), else a minute for
    /// the times ("5m") to move on.
    private func timeout() -> Int32 {
        let now = Timestamp.now().milliseconds
        guard let expiry = model.locked({ $0.typing.active.map(\.until.milliseconds).filter { $0 > now }.min() }) else { return 60_000 }
        return Int32(max(10, min(60_000, expiry - now + 20)))
    }

    private func handle(_ key: Key) {
        if key == .control("c") { quit = true; return }
        if key == .control("z") { TTY.suspend(); return }
        if key == .control("l") { TTY.write("\u{1B}[2J"); return }
        chat.notice = nil
        inChat ? chatKey(key) : listKey(key)
    }

    private func listKey(_ key: Key) {
        let count = model.locked { list.rows($0).count }
        switch key {
        case .up: list.selected = max(0, list.selected - 1)
        case .down: list.selected = min(max(0, count - 1), list.selected + 1)
        case .enter:
            guard let id = model.locked({ m in list.rows(m).dropFirst(list.selected).first?.id }) else { return }
            open(id)
        case .escape: list.filter = nil
        case .backspace: if var f = list.filter { f = String(f.dropLast()); list.filter = f; list.selected = 0 }
        case .text(let s) where list.filter != nil: list.filter! += s; list.selected = 0
        case .text("/"): list.filter = ""; list.selected = 0
        case .text("n"):
            let rows = model.locked { list.rows($0) }
            let current = rows.dropFirst(list.selected).first?.id
            if let next = ConversationListView.nextUnread(in: rows, after: current), let i = rows.firstIndex(where: { $0.id == next }) {
                list.selected = i
            }
        case .text("q"), .control("d"): quit = true
        case .text("k"): list.selected = max(0, list.selected - 1)
        case .text("j"): list.selected = min(max(0, count - 1), list.selected + 1)
        default: break
        }
    }

    private func chatKey(_ key: Key) {
        let (rows, columns) = TTY.size
        switch key {
        case .escape:
            inChat = false
            model.locked { $0.openId = nil; $0.open = nil }
            worker.refreshList()
        case .enter: send()
        case .pageUp:
            let hidden = model.locked { chat.hiddenAbove($0, rows: rows, columns: columns, output: output) }
            let step = max(1, rows - 6)
            chat.scroll += min(step, hidden)
            if hidden <= step { worker.older() }
        case .pageDown: chat.scroll = max(0, chat.scroll - max(1, rows - 6))
        case .control("d") where editor.isEmpty: quit = true
        case .control("n"):
            let (rows, current) = model.locked { ($0.list, $0.openId) }
            if let next = ConversationListView.nextUnread(in: rows, after: current) { open(next) }
        default:
            let before = editor.text
            guard editor.apply(key), editor.text != before, !editor.isEmpty else { return }
            typed()
        }
    }

    /// Tells the others I am typing, at most once every 2 s.
    private func typed() {
        let now = Timestamp.now().milliseconds
        guard now - lastTyping >= 2000, let id = model.locked({ $0.openId }) else { return }
        lastTyping = now
        worker.typing(id)
    }

    /// Through the outbox, as `send`: on disk first, on screen at once as "sending…",
    /// then delivered by the worker.
    private func send() {
        let text = editor.text
        guard !text.trimmingSpaces().isEmpty, let id = model.locked({ $0.openId }) else { return }
        if let problem = Limits.problem(withText: text) {
            chat.notice = output.paint(TerminalText("Not sent: \(problem). It is still on the line, to shorten."), .yellow)
            return
        }
        let queued: [OutboxEntry]
        do {
            queued = try worker.sending.outbox.enqueue([(id, nil, text)])
        } catch {
            model.change { m in m.pending.append(.init(localId: "", text: text, queuedAt: .now(), failure: "not queued: \(error)")) }
            return
        }
        editor.clear()
        lastTyping = 0
        chat.scroll = 0
        model.change { m in
            for e in queued { m.pending.append(.init(localId: e.localId, text: e.text, queuedAt: e.queuedAt, failure: nil)) }
        }
        worker.deliver(queued)
    }

    private func draw() {
        let (rows, columns) = TTY.size
        let frame: [TerminalText], cursor: (row: Int, column: Int)?
        if inChat {
            let laid = model.locked { chat.lines($0, editor: editor, rows: rows, columns: columns, output: output) }
            (frame, cursor) = (laid.rows, laid.cursor)
        } else {
            frame = model.locked { m in
                list.selected = min(list.selected, max(0, list.rows(m).count - 1))
                return list.lines(m, rows: rows, columns: columns, output: output)
            }
            cursor = nil
        }
        var out = "\u{1B}[?25l\u{1B}[H"
        for (i, row) in frame.prefix(rows).enumerated() {
            out += ScreenText.clip(row, width: columns).rendered + "\u{1B}[0m\u{1B}[K" + (i < min(rows, frame.count) - 1 ? "\r\n" : "")
        }
        out += "\u{1B}[J"
        if let cursor { out += "\u{1B}[\(cursor.row + 1);\(cursor.column + 1)H\u{1B}[?25h" }
        TTY.write(out)
    }
}
