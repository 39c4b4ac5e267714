extension String {
    /// The text a C call wrote into `buffer`, up to its terminating NUL. Swift 6.3 deprecates
    /// `String(cString:)` on an array, which cannot know the array ends in a NUL.
    public init(cBuffer buffer: [CChar]) {
        let end = buffer.firstIndex(of: 0) ?? buffer.endIndex
        self.init(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
