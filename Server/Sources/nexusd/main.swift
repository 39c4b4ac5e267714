import NexusdCommand

await Nexusd.start()
