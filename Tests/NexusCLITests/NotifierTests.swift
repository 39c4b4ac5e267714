import NexusCore
import Testing

@testable import NexusCLI

/// `--notify`'s rules, in-process: never one's own messages, at most one notice per
/// conversation every 5 s with what came meanwhile counted, and words others wrote inert.
struct NotifierTests {
    static func message(_ seq: Int64, from sender: Int64 = 2, in conversation: Int64 = 1, text: String = "hello") -> Message {
        Message(id: seq, conversationId: conversation, seq: seq, senderId: sender, localId: "l\(seq)", text: text, sentAt: Timestamp(milliseconds: 0))
    }

    static let me = User(id: 1, email: "carol.d@example.com", displayName: "Carol Danvers")

    @Test func aBurstIsOneNoticeThenOneWithTheCount() {
        var shown: [DesktopNotice] = []
        let n = Notifier(hideText: false, me: Self.me) { shown.append($0) }
        let t0 = Timestamp(milliseconds: 1_000_000)
        n.take(Self.message(1), sender: "Alice", group: nil, now: t0)
        n.take(Self.message(2, from: 1), sender: "Me", group: nil, now: t0)  // my own: never
        n.take(Self.message(3, text: "second"), sender: "Alice", group: nil, now: Timestamp(milliseconds: t0.milliseconds + 1000))
        n.take(Self.message(4, text: "third\nmore"), sender: "Alice", group: nil, now: Timestamp(milliseconds: t0.milliseconds + 2000))
        n.take(Self.message(5, in: 2, text: "elsewhere"), sender: "Bob", group: "Ops", now: Timestamp(milliseconds: t0.milliseconds + 2000))
        #expect(shown == [DesktopNotice(title: "Alice", body: "hello"), DesktopNotice(title: "Bob in Ops", body: "elsewhere")])
        #expect(n.nextDue == Timestamp(milliseconds: t0.milliseconds + 5000))
        n.flush(now: Timestamp(milliseconds: t0.milliseconds + 4999))
        #expect(shown.count == 2)
        n.flush(now: Timestamp(milliseconds: t0.milliseconds + 5000))
        #expect(shown.last == DesktopNotice(title: "Alice", body: "third (+1 more)"))
        #expect(n.nextDue == nil)
    }

    @Test func privateNoticesNameTheSenderOnlyAndHostileTextIsInert() {
        var shown: [DesktopNotice] = []
        let quiet = Notifier(hideText: true, me: Self.me) { shown.append($0) }
        quiet.take(Self.message(1, text: "the password is hunter2"), sender: "Alice", group: nil)
        #expect(shown == [DesktopNotice(title: "Nexus", body: "New message from Alice")])
        quiet.take(Self.message(2, in: 2), sender: "Mallory\u{1B}]0;x\u{07}", group: nil)
        #expect(shown.last == DesktopNotice(title: "Nexus", body: "New message from Mallory\\e]0;x\\a"))

        let loud = Notifier(hideText: false, me: Self.me) { shown.append($0) }
        loud.take(Self.message(2, text: "\u{1B}]0;pwned\u{07}\u{202E}txt.exe"), sender: "Eve\u{1B}[2J", group: nil)
        let notice = shown.last!
        for text in [notice.title, notice.body] {
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" }, "\(text)")
        }
        #expect(notice.body.hasPrefix("\\e]0;pwned\\a"), "\(notice.body)")
    }

    /// A muted conversation notifies of nothing until its mute ends; one muted with
    /// `--except-mentions` still notifies of a message that names me.
    @Test func aMuteSilencesItsConversationUntilItEndsAndMentionsPierceWhenAsked() {
        var shown: [DesktopNotice] = []
        let n = Notifier(hideText: false, me: Self.me) { shown.append($0) }
        let t0 = Timestamp(milliseconds: 1_000_000)
        n.follow([
            Mute(conversationId: 1, until: Timestamp(milliseconds: t0.milliseconds + 60_000)),
            Mute(conversationId: 2, exceptMentions: true),
        ])
        n.take(Self.message(1, text: "quiet"), sender: "Alice", group: nil, now: t0)
        n.take(Self.message(2, in: 2, text: "no one named"), sender: "Bob", group: "Ops", now: t0)
        n.take(Self.message(3, in: 2, text: "mail@carol.dx is no mention"), sender: "Bob", group: "Ops", now: t0)
        #expect(shown.isEmpty)
        n.take(Self.message(4, in: 2, text: "ping @Carol, please"), sender: "Bob", group: "Ops", now: t0)
        #expect(shown == [DesktopNotice(title: "Bob in Ops", body: "ping @Carol, please")])
        n.take(Self.message(5, text: "back"), sender: "Alice", group: nil, now: Timestamp(milliseconds: t0.milliseconds + 60_000))
        #expect(shown.last == DesktopNotice(title: "Alice", body: "back"), "the mute ended at its time")
        #expect(Mentions.mention(of: Mentions.names(of: Self.me), in: "@carol.d: done"))
    }

    /// `--notify=mentions`: direct messages, and group messages that name me; nothing else.
    @Test func mentionsOnlyKeepsDirectMessagesAndMentions() {
        var shown: [DesktopNotice] = []
        let n = Notifier(hideText: false, onlyMentions: true, me: Self.me) { shown.append($0) }
        n.take(Self.message(1, in: 2, text: "lunch?"), sender: "Bob", group: "Ops")
        #expect(shown.isEmpty)
        n.take(Self.message(2, in: 3, text: "@carol.d the deploy is yours"), sender: "Bob", group: "Ops")
        n.take(Self.message(3, in: 1, text: "just us"), sender: "Alice", group: nil)
        #expect(shown.map(\.body) == ["@carol.d the deploy is yours", "just us"])
        #expect(Config.notifyWord("mentions") == "mentions")
    }

    @Test func autoPicksTheTerminalsOwnThenTheDesktopThenTheBell() {
        #expect(NotifyMethod.auto(environment: ["KITTY_WINDOW_ID": "1"], hasNotifySend: true) == .osc99)
        #expect(NotifyMethod.auto(environment: ["TERM_PROGRAM": "iTerm.app"], hasNotifySend: true) == .osc9)
        #expect(NotifyMethod.auto(environment: ["TERM": "foot"], hasNotifySend: true) == .osc777)
        #expect(NotifyMethod.auto(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"], hasNotifySend: true) == .dbus)
        #expect(NotifyMethod.auto(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"], hasNotifySend: false) == .bell)
        #expect(NotifyMethod.auto(environment: ["TERM": "xterm-256color"], hasNotifySend: true) == .bell)
    }
}

/// `notify =` and `notify-method =` in the config: the words `--notify` takes, checked with
/// the line named.
struct NotifyConfigTests {
    @Test func theConfigSetsTheNotificationsAndRefusesAnUnknownWord() throws {
        let config = try Config.parse("notify = yes\nnotify-method = bell\n", path: "c")
        #expect(config.notify == "on" && config.notifyMethod == "bell")
        #expect(try Config.parse("notify = Private\n", path: "c").notify == "private")
        #expect(throws: Config.ParseError.self) { try Config.parse("notify = loud\n", path: "c") }
        #expect(throws: Config.ParseError.self) { try Config.parse("notify-method = pager\n", path: "c") }
    }
}
