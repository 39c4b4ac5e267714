import NexusCore
import Testing
@testable import NexusCLI

/// `chat`'s pure parts, without a terminal: keys from raw bytes, the line editor, rows cut
/// by display width, and the chat screen laid out from a model.
struct ChatLayoutTests {
    @Test func keysFromBytes() {
        var d = KeyDecoder()
        #expect(d.keys(Array("hé\r".utf8)) == [.text("hé"), .enter])
        #expect(d.keys([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x35, 0x7E, 0x7F, 0x17, 0x03]) == [.up, .pageUp, .backspace, .control("w"), .control("c")])
        // A character split across two reads waits for its rest; a lone ESC is Escape.
        let snow = Array("☃".utf8)
        #expect(d.keys(Array(snow.prefix(2))) == [])
        #expect(d.keys(Array(snow.suffix(1))) == [.text("☃")])
        #expect(d.keys([0x1B]) == [.escape])
    }

    /// A bracketed paste is one key however many reads it takes, its lines kept; Alt-Enter
    /// is a new line; the wheel comes as SGR mouse reports, and other clicks are skipped.
    @Test func pastesNewLinesAndTheWheel() {
        var d = KeyDecoder()
        let paste = Array("\u{1B}[200~line one\r\nline two\u{1B}[2".utf8)
        #expect(d.keys(paste) == [])
        #expect(d.keys(Array("01~x".utf8)) == [.paste("line one\r\nline two"), .text("x")])
        var e = LineEditor()
        _ = e.apply(.paste("a\r\nb\rc\u{1B}[2J\td"))
        _ = e.apply(.newline)
        #expect(e.text == "a\nb\nc[2J\td\n")
        #expect(e.visible(width: 80).text == "a↵b↵c[2J d↵")
        #expect(d.keys(Array("\u{1B}\r\u{1B}[<64;10;5M\u{1B}[<65;1;1M\u{1B}[<0;3;3M\u{1B}[<0;3;3m".utf8)) == [.newline, .wheelUp, .wheelDown])
    }

    /// n in the list and Ctrl-N in a chat: the next one below with unread messages, round to
    /// the top, never the one you are in.
    @Test func theNextUnreadIsBelowThenRoundToTheTop() {
        let list = [(1, 0), (2, 3), (3, 0), (4, 1)].map { id, unread in
            ConversationSummary(
                id: Int64(id), kind: .direct, name: nil, memberIds: [1, 2], lastSeq: 1, lastMessage: nil,
                createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0), unreadCount: unread, lastMessageReadBy: nil)
        }
        #expect(ConversationListView.nextUnread(in: list, after: nil) == 2)
        #expect(ConversationListView.nextUnread(in: list, after: 1) == 2)
        #expect(ConversationListView.nextUnread(in: list, after: 2) == 4)
        #expect(ConversationListView.nextUnread(in: list, after: 4) == 2, "round to the top")
        #expect(ConversationListView.nextUnread(in: list, after: 9) == 2, "one no longer listed: from the top")
        #expect(ConversationListView.nextUnread(in: Array(list.prefix(3)), after: 2) == nil, "only the one you are in")
        #expect(ConversationListView.nextUnread(in: [], after: nil) == nil)
    }

    @Test func editingMovesByCharacterAndDeletesWords() {
        var e = LineEditor()
        for k: Key in [.text("ramen 🍜 at"), .text(" 7"), .control("w")] { _ = e.apply(k) }
        #expect(e.text == "ramen 🍜 at ")
        // Again, from after a space: the space and the word before it, as a shell does.
        var twice = e
        _ = twice.apply(.control("w"))
        #expect(twice.text == "ramen 🍜 ")
        for k: Key in [.left, .left, .backspace, .home, .delete, .end, .text("\u{1B}[2J!")] { _ = e.apply(k) }
        #expect(e.text == "amen 🍜 t [2J!")
        #expect(e.visible(width: 80).cursorColumn == displayWidth(e.text))
        _ = e.apply(.control("u"))
        #expect(e.isEmpty && e.cursor == 0)
        // Wide characters take two columns, and the window follows the cursor.
        var wide = LineEditor()
        _ = wide.apply(.text("日本語のテキスト"))
        let shown = wide.visible(width: 6)
        #expect(displayWidth(shown.text) <= 6 && shown.cursorColumn <= 6)
    }

    @Test func rowsAreCutByDisplayWidthAndKeepOurColours() {
        let rows = ScreenText.wrap("日本語のテキストです", width: 7, indent: 2)
        #expect(rows.allSatisfy { displayWidth($0.rendered) <= 7 })
        #expect(rows.count == 5 && rows[1].rendered.hasPrefix("  "))
        let painted: TerminalText = .control("\u{1B}[1m") + "Alice" + .control("\u{1B}[0m") + " hello"
        #expect(ScreenText.clip(painted, width: 3).rendered == "\u{1B}[1mAli\u{1B}[0m")
    }

    @Test func othersTextIsEscapedAndMineIsSetApart() {
        let m = ChatModel(me: 1)
        let bob = User(id: 2, email: "bob@example.com", displayName: "Bob")
        m.openId = 9
        m.open = Conversation(id: 9, kind: .direct, name: nil, members: [User(id: 1, email: "a@example.com", displayName: "A"), bob], lastSeq: 2,
                              lastMessage: nil, createdAt: .now(), updatedAt: .now())
        m.learn(m.open!)
        m.messages = [
            Message(id: 1, conversationId: 9, seq: 1, senderId: 2, localId: "x", text: "\u{1B}]0;t\u{07}hi\nfake", sentAt: .now()),
            Message(id: 2, conversationId: 9, seq: 2, senderId: 1, localId: "y", text: "mine", sentAt: .now()),
        ]
        m.pending = [.init(localId: "z", text: "queued", queuedAt: .now())]
        let output = Output(terminal: CapturedTerminal(), json: false, quiet: false, color: false)
        let (rows, cursor) = ChatView().lines(m, editor: LineEditor(), rows: 12, columns: 60, output: output)
        let text = rows.map(\.rendered)
        #expect(text.contains { $0.hasSuffix("\\e]0;t\\ahi") })
        #expect(text.contains { $0.hasSuffix("│ fake") })
        #expect(text.contains { $0.hasPrefix(String(repeating: " ", count: 15) + "\(LocalTime.short(m.messages[1].sentAt)) ") && $0.hasSuffix("You: mine  ✓") })
        #expect(text.contains { $0.hasSuffix("You: queued  sending…") })
        #expect(!text.contains { $0.contains("\u{1B}") })
        #expect(rows.count == 12 && cursor.row == 11)
    }

    /// A footer drops from its end what the width can't hold, and keeps "? keys".
    @Test func theFooterFitsTheWidthAndKeepsTheWayToTheKeys() {
        let output = Output(terminal: CapturedTerminal(), json: false, quiet: false, color: false)
        let items = ["Enter send", "Esc list", "PgUp/PgDn scroll"]
        #expect(KeyHelp.footer(items, width: 80, output: output).rendered == "Enter send · Esc list · PgUp/PgDn scroll · ? keys")
        #expect(KeyHelp.footer(items, width: 40, output: output).rendered == "Enter send · Esc list · ? keys")
        #expect(KeyHelp.footer(items, width: 6, output: output).rendered == "? keys")
        #expect(KeyHelp.footer(items, width: 3, output: output).rendered == "? k")
        let keys = KeyHelp.lines(.chat, rows: 10, columns: 30, output: output).map(\.rendered)
        #expect(keys.count == 10 && keys.last == "Any key goes back" && keys.allSatisfy { displayWidth($0) <= 30 })
    }

    /// The picker's rows: others' names escaped, the marked ones ticked and in the title,
    /// every row within the width.
    @Test func thePickerEscapesNamesAndShowsWhoIsMarked() {
        let output = Output(terminal: CapturedTerminal(), json: false, quiet: false, color: false)
        let picker = ContactPicker()
        let bob = User(id: 2, email: "bob@example.com", displayName: "Bob")
        let evil = User(id: 3, email: "eve@example.com", displayName: "Eve\u{1B}[2J\nYou: fake")
        (picker.query, picker.answered, picker.found) = ("e", "e", [bob, evil])
        picker.toggle(evil)
        picker.selected = 1
        let (rows, cursor) = picker.lines(rows: 8, columns: 60, output: output)
        let text = rows.map(\.rendered)
        #expect(text[0] == "New conversation · with Eve\\e[2J\\nYou: fake")
        #expect(text[1] == "Search: e" && cursor?.row == 1 && cursor?.column == 9)
        #expect(text.contains { $0.hasPrefix("  [ ] Bob  bob@example.com") })
        #expect(text.contains { $0.hasPrefix("> [x] Eve\\e[2J\\nYou: fake  eve@example.com") })
        #expect(rows.count == 8 && text.allSatisfy { !$0.contains("\u{1B}") && displayWidth($0) <= 60 })
    }
}
