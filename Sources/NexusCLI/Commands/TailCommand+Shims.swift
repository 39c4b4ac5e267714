import NexusCore

// Old names that TailCommand.swift still uses, kept while another branch rewrites that
// file. Remove them once TailCommand calls the new names.

/// Outbox sending was `Delivery`, a word that also meant delivered receipts.
typealias Delivery = OutboxSending

/// Delivered receipts were sent by the CLI's `DeliveryReporter`; the core's
/// `ReceiptReporter` does it now.
typealias DeliveryReporter = ReceiptReporter

extension ReceiptReporter {
    convenience init(context: CommandContext, me: Int64) {
        self.init(api: try? context.api(), me: me)
    }
}
