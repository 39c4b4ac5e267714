import Testing
import HummingbirdTesting
@testable import NexusServer
