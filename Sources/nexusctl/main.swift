import NexusCLI
