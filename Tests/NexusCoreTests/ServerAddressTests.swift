import Testing
@testable import NexusCore

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
        #expect(!a.isTLS)
    }

    @Test func httpsDefaultsToPort443AndMixesWithHTTP() throws {
        let list = try ServerAddress.list(parsing: "https://chat.example.com/nexus,http://127.0.0.1:8787,https://[::1]:8443")
        #expect(list.map(\.isTLS) == [true, false, true])
        #expect(list[0].port == 443 && list[0].basePath == "/nexus")
        #expect(list.map(\.description) == ["https://chat.example.com:443/nexus", "http://127.0.0.1:8787", "https://[::1]:8443"])
    }

    @Test func loopbackIsThisMachineOnly() throws {
        for url in ["http://127.0.0.1:1", "http://127.9.0.1", "http://localhost", "http://[::1]:2", "http://a.localhost"] {
            #expect(try ServerAddress(parsing: url).isLoopback, "\(url)")
        }
        for url in ["http://10.0.0.1", "http://nexus.invalid", "http://127.0.0.1.nip.io", "http://localhost.example.com", "http://[::2]"] {
            #expect(try !ServerAddress(parsing: url).isLoopback, "\(url)")
        }
    }

    @Test func rejects() {
        #expect(throws: ServerAddress.ParseError.unsupportedScheme("ftp://x")) { try ServerAddress(parsing: "ftp://x") }
        #expect(throws: ServerAddress.ParseError.invalid("http://:80")) { try ServerAddress(parsing: "http://:80") }
        #expect(throws: ServerAddress.ParseError.invalid("http://h:99999")) { try ServerAddress(parsing: "http://h:99999") }
    }
}
