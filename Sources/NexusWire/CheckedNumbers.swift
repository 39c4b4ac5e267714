/// Whole numbers that come from outside (a request, a page token, a command line) are
/// read into the range their use allows, and sums on them saturate: a value near
/// Int64.max must be refused or clamped, never trap (a trap stops the whole process).
public enum CheckedNumbers {
    /// Plain decimal digits, an optional leading '-', inside `range`; nil for anything else.
    public static func parse(_ text: some StringProtocol, in range: ClosedRange<Int64>) -> Int64? {
        guard let value = Int64(text), range.contains(value) else { return nil }
        return value
    }

    /// The words for a number outside its range, naming the field.
    public static func problem(_ field: String, _ range: ClosedRange<Int64>) -> String {
        "\(field) must be a whole number from \(range.lowerBound) to \(range.upperBound)"
    }
}

extension FixedWidthInteger {
    /// `self + other`, held at `.max` or `.min` where it would overflow.
    public func saturatingAdd(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
