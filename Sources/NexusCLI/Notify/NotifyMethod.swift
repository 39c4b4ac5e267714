/// How a notification reaches the person: the terminal's own notification sequence
/// (it travels over ssh with the text), the desktop's notification service on D-Bus, or
/// the bell. `auto` picks the first the environment shows it has.
enum NotifyMethod: String, CaseIterable, Sendable {
    /// OSC 777 (foot, WezTerm, urxvt with its extension, VTE terminals that carry it).
    case osc777
    /// OSC 9 (iTerm2, WezTerm, ConEmu, Windows Terminal).
    case osc9
    /// OSC 99 (kitty's protocol: title and body apart).
    case osc99
    /// `notify-send`, to the session bus's org.freedesktop.Notifications.
    case dbus
    /// BEL: every terminal has one; tmux and screen flag the window.
    case bell

    /// The method for this environment, when none was asked for: a terminal known to show
    /// its own notifications first, as that reaches the screen the person is looking at
    /// even over ssh; else the desktop's service when a session bus is there; else the bell.
    static func auto(environment: [String: String], hasNotifySend: Bool) -> NotifyMethod {
        let program = environment["TERM_PROGRAM"] ?? ""
        let term = environment["TERM"] ?? ""
        if environment["KITTY_WINDOW_ID"] != nil || term == "xterm-kitty" { return .osc99 }
        if program == "iTerm.app" || environment["WT_SESSION"] != nil || environment["ConEmuPID"] != nil { return .osc9 }
        if program == "WezTerm" || term.hasPrefix("foot") || term.hasPrefix("rxvt-unicode") { return .osc777 }
        if environment["DBUS_SESSION_BUS_ADDRESS"] != nil, hasNotifySend { return .dbus }
        return .bell
    }
}
