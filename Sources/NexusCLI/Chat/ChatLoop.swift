import LibC
import NexusCore

/// `chat`'s main thread: keys in, frames out. It waits in poll(2) on the terminal and on
/// the wake-up pipe (a change from the feed or the worker, SIGWINCH, SIGCONT), and only
/// then draws, so an idle chat costs nothing.
final class ChatLoop: @unchecked Sendable {
    let model: ChatModel
    let worker: ChatWorker
    let output: Output
    var list = ConversationListView()
    var chat = ChatView()
    var editor = LineEditor()
    private var decoder = KeyDecoder()
    var screen = ChatScreen.list
    /// `?` was pressed: the keys of `screen` are shown until the next key.
    var showingKeys = false
    var lastTyping: Int64 = 0
    /// The message the line edits, after ↑ on an empty line.
    var editing: MessageReference?
    /// A reply or a reaction the line is for (ChatLoop+Select).
    var lineAction: LineAction?
    /// What I sent in this chat, oldest first, for Ctrl-P; the line recalled, and the one
    /// being written before it.
    var sentLines: [String] = []
    var recalled: Int?
    var draft = ""
    /// The new-conversation screen's state, shared with the worker under the model's lock.
    var picker: ContactPicker?
    /// A lasting feed error (a revoked token), from the feed's thread, under the model's lock.
    private var failure: FeedError?
    var quit = false

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
        screen = .chat
        chat.scroll = 0
        editor.clear()
        editing = nil
        lineAction = nil
        chat.selected = nil
        recalled = nil
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
            openPicked()
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
        model.locked { $0.notice = nil }
        if showingKeys { showingKeys = false; return }
        switch screen {
        case .list: listKey(key)
        case .chat: chatKey(key)
        case .picker: pickerKey(key)
        }
    }

    private func draw() {
        let (rows, columns) = TTY.size
        let frame: [TerminalText], cursor: (row: Int, column: Int)?
        if showingKeys {
            (frame, cursor) = (KeyHelp.lines(screen, rows: rows, columns: columns, output: output), nil)
        } else if screen == .picker, let picker {
            (frame, cursor) = model.locked { _ in picker.lines(rows: rows, columns: columns, output: output) }
        } else if screen == .chat {
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
