/**
 * The subscribable events (`GET /v1/webhooks/event-catalog`): the canonical families and the
 * legacy transaction family, flagged `legacy: true` (deprecated, still delivered).
 */

interface CatalogEntry {
  event: string;
  description: string;
  legacy?: true;
}

export const eventCatalog: readonly CatalogEntry[] = [
  { event: 'charge.created', description: 'A charge was created and awaits payment.' },
  { event: 'charge.paid', description: 'A charge was paid and settled.' },
  { event: 'charge.failed', description: 'A charge failed or was cancelled.' },
  { event: 'charge.expired', description: 'A charge expired unpaid.' },
  { event: 'payout.created', description: 'A payout was created.' },
  { event: 'payout.paid', description: 'A payout was paid.' },
  { event: 'payout.failed', description: 'A payout failed.' },
  { event: 'med_case.created', description: 'A MED (Pix dispute) case was opened against a paid charge.' },
  { event: 'med_case.updated', description: 'A MED case changed status or evidence was requested.' },
  { event: 'med.resolved', description: 'The final destination of the money of a MED case.' },
  { event: 'payment.created', description: 'Transaction created (legacy).', legacy: true },
  { event: 'payment.completed', description: 'Transaction reached PAID or APPROVED (legacy).', legacy: true },
  {
    event: 'payment.failed',
    description: 'Transaction refused, cancelled, expired or disputed (legacy).',
    legacy: true,
  },
  { event: 'payment.expired', description: 'Transaction expired (legacy).', legacy: true },
  { event: 'payment.refunded', description: 'A refund of the transaction advanced (legacy).', legacy: true },
  {
    event: 'payment.status_changed',
    description: 'Any transaction status change (legacy alias).',
    legacy: true,
  },
  { event: 'withdrawal.created', description: 'Withdrawal created (legacy).', legacy: true },
  { event: 'withdrawal.completed', description: 'Withdrawal completed (legacy).', legacy: true },
  { event: 'withdrawal.failed', description: 'Withdrawal failed (legacy).', legacy: true },
  {
    event: 'withdrawal.status_changed',
    description: 'Any withdrawal status change (legacy alias).',
    legacy: true,
  },
];

export const eventNames: ReadonlySet<string> = new Set(eventCatalog.map((e) => e.event));

/** Legacy families are signed `sha256=<hex>` over the body; the rest `t=<unix>,v1=<hex>`. */
export const usesLegacySignature = (eventType: string): boolean =>
  eventType.startsWith('payment.') || eventType.startsWith('withdrawal.');
