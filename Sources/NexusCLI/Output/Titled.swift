/// A conversation (or list entry) as nexusctl prints it in JSON: the wire fields plus its title.
struct Titled<Base: Encodable>: Encodable {
    var base: Base
    var title: String

    private enum Keys: String, CodingKey { case title }

    func encode(to encoder: any Encoder) throws {
        try base.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(title, forKey: .title)
    }
}
