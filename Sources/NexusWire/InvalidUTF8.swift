/// Text that came as bytes which are not valid UTF-8 (argv, stdin) is still sent, each bad
/// sequence as U+FFFD; this finds where, so the sender can be told which lines changed.
public enum InvalidUTF8 {
    /// The 1-based numbers of the lines (split at LF) that hold bytes that are not valid UTF-8.
    public static func lines(in bytes: some Collection<UInt8>) -> [Int] {
        // Plain ASCII, the common case, needs no decoding.
        guard bytes.contains(where: { $0 >= 0x80 }) else { return [] }
        var numbers: [Int] = []
        for (index, line) in bytes.split(separator: 10, omittingEmptySubsequences: false).enumerated()
        where line.contains(where: { $0 >= 0x80 }) && !isValid(line) {
            numbers.append(index + 1)
        }
        return numbers
    }

    public static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// The warning for `lines` of `source` ("stdin", "the text"), as stderr and JSON give it.
    public static func warning(_ source: String, lines: [Int]) -> String? {
        guard !lines.isEmpty else { return nil }
        let which = lines.count == 1 ? "line \(lines[0])" : "lines " + lines.map(String.init).joined(separator: ", ")
        return "\(source) \(which): bytes that are not valid UTF-8 were replaced with U+FFFD (\u{FFFD}) and sent so"
    }
}
