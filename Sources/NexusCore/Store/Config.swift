/// The user's settings file, `$XDG_CONFIG_HOME/nexus/config` (or `~/.config/nexus/config`):
///
///     # lines of key = value; '#' starts a comment
///     profile = work
///     server = https://chat.example.com
///     cacert = /etc/nexus/ca.pem
///     allow-plain-http = no
///     mark-read = yes
///     queue-limit = 10000
///     retry-limit = 24h
///     notify = private            # tail -f notifies, without the text (yes, private, no)
///     notify-method = auto        # auto, osc777, osc9, osc99, dbus, bell
///
///     [profile work]              # what follows applies to profile 'work' only
///     cacert = /etc/nexus/work-ca.pem
///
/// Flags override the environment, which overrides this file.
public struct Config: Sendable, Equatable {
    /// The profile used when neither --profile nor $NEXUS_PROFILE names one.
    public var profile: String?
    /// The server for a profile that has none yet (register, login).
    public var server: String?
    /// CA certificates to trust for https:// instead of the system's (like --cacert).
    public var cacert: String?
    /// Lets secrets go over plain http:// to a host that is not loopback.
    public var allowPlainHTTP = false
    /// Reading commands (`tail`, `history`) mark what they print as read, as opening a chat
    /// does in the product documents (like their --read).
    public var markRead = false
    /// The most messages (queued or failed) a profile's outbox takes ("Offline queue is full").
    public var queueLimit = Outbox.defaultLimit
    /// How long a message is tried, from its first failed try, before it fails with
    /// "Retry limit exceeded".
    public var retryLimitSeconds = Sending.defaultRetryLimitSeconds
    /// `tail -f` notifies of each message from someone else (like its --notify): "on",
    /// "private" (without the text) or "off".
    public var notify: String?
    /// How it notifies (like --notify-method).
    public var notifyMethod: String?
    public static let notifyWords = ["on", "private", "mentions", "off"]

    /// `word` as one of `notifyWords` (yes and true are "on", no and false "off"), or nil.
    public static func notifyWord(_ word: String) -> String? {
        let w = word.lowercased()
        let named = ["yes": "on", "true": "on", "no": "off", "false": "off"][w] ?? w
        return notifyWords.contains(named) ? named : nil
    }
    public static let notifyMethods = ["auto", "osc777", "osc9", "osc99", "dbus", "bell"]

    /// Settings of one profile, from its `[profile NAME]` section.
    public struct ProfileSettings: Sendable, Equatable {
        public var server: String?
        public var cacert: String?
    }

    public var profiles: [String: ProfileSettings] = [:]

    public static let keys = ["profile", "server", "cacert", "allow-plain-http", "mark-read", "queue-limit", "retry-limit", "notify", "notify-method"]
    static let profileKeys = ["server", "cacert"]

    /// The CA file for `profile`: its section's, else the file's own.
    public func cacert(profile: String) -> String? { profiles[profile]?.cacert ?? cacert }

    /// The server for `profile` when it has none yet: its section's, else the file's own.
    public func server(profile: String) -> String? { profiles[profile]?.server ?? server }

    public init(profile: String? = nil, server: String? = nil) {
        self.profile = profile
        self.server = server
    }

    public static func path(environment: [String: String]) -> String {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/nexus/config" }
        return (environment["HOME"] ?? ".") + "/.config/nexus/config"
    }

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var path: String
        public var line: Int
        public var reason: String
        public var description: String { "\(path):\(line): \(reason)" }
    }

    /// The file's settings; an absent file is an empty config.
    public static func load(environment: [String: String]) throws(ParseError) -> Config {
        let path = path(environment: environment)
        guard let bytes = try? FileSystem.readFile(path) else { return Config() }
        return try parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    public static func parse(_ text: String, path: String) throws(ParseError) -> Config {
        var config = Config()
        var section: String?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?.trimmingSpaces() ?? ""
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                let words = line.dropFirst().split(separator: " ", omittingEmptySubsequences: true)
                guard line.hasSuffix("]"), words.count == 2, words[0] == "profile", let name = words.last?.dropLast(), !name.isEmpty else {
                    throw ParseError(path: path, line: index + 1, reason: "expected a section such as '[profile work]', got '\(line)'")
                }
                section = String(name)
                if config.profiles[String(name)] == nil { config.profiles[String(name)] = ProfileSettings() }
                continue
            }
            guard let eq = line.firstIndex(of: "=") else {
                throw ParseError(path: path, line: index + 1, reason: "expected 'key = value', got '\(line)'")
            }
            let key = line[..<eq].trimmingSpaces()
            let value = line[line.index(after: eq)...].trimmingSpaces()
            guard !value.isEmpty else { throw ParseError(path: path, line: index + 1, reason: "'\(key)' has no value") }
            if let section {
                switch key {
                case "server": config.profiles[section]?.server = value
                case "cacert": config.profiles[section]?.cacert = value
                default:
                    throw ParseError(
                        path: path, line: index + 1,
                        reason: "'\(key)' can't be set for one profile; in a [profile] section: \(profileKeys.joined(separator: ", "))")
                }
                continue
            }
            switch key {
            case "profile": config.profile = value
            case "server": config.server = value
            case "cacert": config.cacert = value
            case "queue-limit":
                guard let n = Int(value), n > 0 else {
                    throw ParseError(path: path, line: index + 1, reason: "'queue-limit' takes a number of messages above 0, got '\(value)'")
                }
                config.queueLimit = n
            case "retry-limit":
                // A year at most, so the milliseconds can't overflow.
                guard let seconds = TokenNames.seconds(value), seconds <= 366 * 86_400 else {
                    throw ParseError(path: path, line: index + 1, reason: "'retry-limit' takes a time such as 24h, 90m, 7d or 3600s, got '\(value)'")
                }
                config.retryLimitSeconds = seconds
            case "notify":
                guard let word = notifyWord(value) else {
                    throw ParseError(path: path, line: index + 1, reason: "'notify' takes yes, private, mentions or no, got '\(value)'")
                }
                config.notify = word
            case "notify-method":
                guard notifyMethods.contains(value) else {
                    throw ParseError(path: path, line: index + 1, reason: "'notify-method' takes one of \(notifyMethods.joined(separator: ", ")), got '\(value)'")
                }
                config.notifyMethod = value
            case "allow-plain-http", "mark-read":
                let on: Bool
                switch value.lowercased() {
                case "yes", "true", "1": on = true
                case "no", "false", "0": on = false
                default: throw ParseError(path: path, line: index + 1, reason: "'\(key)' takes yes or no, got '\(value)'")
                }
                if key == "mark-read" { config.markRead = on } else { config.allowPlainHTTP = on }
            default:
                throw ParseError(path: path, line: index + 1, reason: "unknown setting '\(key)'; known: \(keys.joined(separator: ", "))")
            }
        }
        return config
    }
}
