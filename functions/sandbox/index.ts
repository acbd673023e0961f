import { createApiHandler } from '#shared/http/api-handler.ts';
import { setSandboxAcquirer } from './set-sandbox-acquirer.ts';
import { simulateExpiry } from './simulate-expiry.ts';
import { simulateMedDecision, simulateMedEvidenceRequest, simulateMedOpening } from './simulate-med.ts';
import { simulatePayment } from './simulate-payment.ts';
import { simulateRefundConfirmation, simulateRefundFailure } from './simulate-refund-outcome.ts';

export const handler = createApiHandler('sandbox', {
  simulatePayment,
  simulateExpiry,
  setSandboxAcquirer,
  simulateRefundFailure,
  simulateRefundConfirmation,
  simulateMedOpening,
  simulateMedEvidenceRequest,
  simulateMedDecision,
});
