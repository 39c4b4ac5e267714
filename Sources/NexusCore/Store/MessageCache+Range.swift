extension MessageCache {
    /// The segments that can hold seqs in `range`, found by their names: the last one that
    /// starts at or before the range (it may run into it) and those that start inside it.
    /// Segments written here never overlap, so no other can; one copied in by hand that
    /// does costs a gap, which the server fills, as a damaged line does.
    ///
    /// Why: a profile that sends into a busy group without reading it caches one segment a
    /// message (MessageCache+Append.swift), and reading every segment's first and last line
    /// for a page made `tail` and `history` slower with every send.
    func segments(_ conversationId: Int64, reaching range: ClosedRange<Int64>) throws(StoreError) -> [Segment] {
        let names = segmentNames(conversationId)
        let from = names.lastIndex { $0.start <= range.lowerBound } ?? names.startIndex
        return try segments(conversationId, named: names[from...].prefix { $0.start <= range.upperBound }.map(\.name))
    }

    /// The highest cached seq of a conversation, 0 when nothing is cached: the last line of
    /// the newest segment, or, when that file does not look whole, of every segment read.
    public func lastSeq(_ conversationId: Int64) throws(StoreError) -> Int64 {
        if let newest = segmentNames(conversationId).last {
            let read = try segments(conversationId, named: [newest.name])
            if read.count == 1, read[0].first == newest.start { return read[0].last }
        }
        return try segments(conversationId).last?.last ?? 0
    }
}
