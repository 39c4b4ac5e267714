import NexusCore

/// What each key does on the list and in a conversation; `?` lists them (KeyHelp).
extension ChatLoop {
    func listKey(_ key: Key) {
        let count = model.locked { list.rows($0).count }
        switch key {
        case .up, .wheelUp: list.selected = max(0, list.selected - 1)
        case .down, .wheelDown: list.selected = min(max(0, count - 1), list.selected + 1)
        case .enter:
            guard let id = model.locked({ m in list.rows(m).dropFirst(list.selected).first?.id }) else { return }
            open(id)
        case .escape: list.filter = nil
        case .backspace: if var f = list.filter { f = String(f.dropLast()); list.filter = f; list.selected = 0 }
        case .text(let s) where list.filter != nil: list.filter! += s; list.selected = 0
        case .text("/"): list.filter = ""; list.selected = 0
        case .text("?"): showingKeys = true
        case .text("c"), .text("+"): startPicking()
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

    func chatKey(_ key: Key) {
        let (rows, columns) = TTY.size
        if chat.selected != nil, key != .wheelUp, key != .wheelDown { return selectKey(key) }
        switch key {
        case .escape where editing != nil: stopEditing()
        case .enter where editing != nil: saveEdit(editing!)
        case .escape where lineAction != nil:
            lineAction = nil
            editor.clear()
        case .enter where lineAction != nil:
            if case .react(let seq) = lineAction! { react(to: seq) } else { send() }
        case .up where editor.isEmpty && editing == nil: startEditing()
        case .tab where editing == nil && lineAction == nil: startSelecting()
        case .control("p"): recallOlder()
        case .down where recalled != nil: recallNewer()
        case .wheelUp:
            let hidden = model.locked { chat.hiddenAbove($0, rows: rows, columns: columns, output: output) }
            chat.scroll += min(3, hidden)
            if hidden <= 3 { worker.older() }
        case .wheelDown: chat.scroll = max(0, chat.scroll - 3)
        case .escape:
            screen = .list
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
        case .text("?") where editor.isEmpty: showingKeys = true
        case .control("r"):
            let failed = model.locked { m in m.pending.filter { $0.failure != nil && !$0.localId.isEmpty }.map(\.localId) }
            if failed.isEmpty { chat.notice = output.paint("Nothing here failed: there is nothing to retry.", .dim) } else { worker.retry(failed) }
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
    func typed() {
        let now = Timestamp.now().milliseconds
        guard now - lastTyping >= 2000, let id = model.locked({ $0.openId }) else { return }
        lastTyping = now
        worker.typing(id)
    }

    /// Through the outbox, as `send`: on disk first, on screen at once as "sending…",
    /// then delivered by the worker.
    func send() {
        let text = editor.text
        guard !text.trimmingSpaces().isEmpty, let id = model.locked({ $0.openId }) else { return }
        if let problem = Limits.problem(withText: text) {
            chat.notice = output.paint(TerminalText("Not sent: \(problem). It is still on the line, to shorten."), .yellow)
            return
        }
        var replyTo: Int64?
        if case .reply(let seq) = lineAction { replyTo = seq }
        let queued: [OutboxEntry]
        do {
            queued = try worker.sending.outbox.enqueue([(id, nil, text)], replyTo: replyTo)
        } catch {
            model.change { m in m.pending.append(.init(localId: "", text: text, queuedAt: .now(), failure: "not queued: \(error)")) }
            return
        }
        editor.clear()
        lineAction = nil
        if sentLines.last != text { sentLines.append(text) }
        recalled = nil
        lastTyping = 0
        chat.scroll = 0
        model.change { m in
            for e in queued { m.pending.append(.init(localId: e.localId, text: e.text, queuedAt: e.queuedAt, failure: nil, replyTo: replyTo)) }
        }
        worker.deliver(queued)
    }
}
