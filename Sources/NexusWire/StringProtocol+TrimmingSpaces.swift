/// Spaces and tabs off both ends: what HTTP header values and the config file's lines
/// allow around a value (not newlines, which neither may hold).
extension StringProtocol {
    public func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
