import { createApiHandler } from '#shared/http/api-handler.ts';
import { setSandboxAcquirer } from './set-sandbox-acquirer.ts';
import { simulateExpiry } from './simulate-expiry.ts';
import { simulatePayment } from './simulate-payment.ts';

export const handler = createApiHandler('sandbox', { simulatePayment, simulateExpiry, setSandboxAcquirer });
