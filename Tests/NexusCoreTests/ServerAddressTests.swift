import Testing
import NexusCore

struct ServerAddressTests {
    @Test(arguments: [
        ("http://127.0.0.1:8787", "127.0.0.1", UInt16(8787), ""),
        ("127.0.0.1:9", "127.0.0.1", UInt16(9), ""),
        ("http://example.com", "example.com", UInt16(80), ""),
        ("http://example.com:81/nexus/", "example.com", UInt16(81), "/nexus"),
        ("http://[::1]:8787", "::1", UInt16(8787), ""),
    ])
    func parses(_ url: String, _ host: String, _ port: UInt16, _ base: String) throws {
        let a = try ServerAddress(parsing: url)
        #expect(a.host == host)
        #expect(a.port == port)
        #expect(a.basePath == base)
    }

    @Test func rejects() {
        #expect(throws: ServerAddress.ParseError.unsupportedScheme("https://x")) { try ServerAddress(parsing: "https://x") }
        #expect(throws: ServerAddress.ParseError.invalid("http://:80")) { try ServerAddress(parsing: "http://:80") }
        #expect(throws: ServerAddress.ParseError.invalid("http://h:99999")) { try ServerAddress(parsing: "http://h:99999") }
    }
}
