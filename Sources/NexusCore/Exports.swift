// The wire types, limits and rules nexusd shares: nexusctl's code reads them as the core's.
@_exported import NexusWire
