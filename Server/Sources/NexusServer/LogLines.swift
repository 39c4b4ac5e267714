import Logging

/// nexusd's log handler: swift-log's StreamLogHandler, with its metadata made into text
/// only when a line is written. StreamLogHandler formats all of its metadata each time one
/// key is set, and Hummingbird sets a request id on every request's logger: about 2 % of
/// nexusd's CPU on single sends, for lines that, at the default level, are
/// never written. The lines themselves are StreamLogHandler's, unchanged.
public struct LogLines: LogHandler {
    private var lines: StreamLogHandler
    public var metadata: Logger.Metadata = [:]

    public init(_ lines: StreamLogHandler) {
        self.lines = lines
    }

    /// nexusd's: standard error, with LoggingSystem's metadata provider.
    public static func standardError(label: String) -> LogLines {
        LogLines(StreamLogHandler.standardError(label: label))
    }

    public var logLevel: Logger.Level {
        get { lines.logLevel }
        set { lines.logLevel = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { lines.metadataProvider }
        set { lines.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The line's own metadata wins over the logger's, as in StreamLogHandler.
    public func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty { event.metadata = metadata.merging(event.metadata ?? [:]) { $1 } }
        lines.log(event: event)
    }
}
