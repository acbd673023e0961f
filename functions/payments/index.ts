import { createApiHandler } from '#shared/http/api-handler.ts';
import { createPayment } from './create-payment.ts';
import { getPayment } from './get-payment.ts';

export const handler = createApiHandler('payments', { createPayment, getPayment });
