extension Array {
    /// Runs of at most `size` elements, for statements with a bounded number of parameters
    /// and for payloads with a bounded size.
    func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
