import NexusCore
