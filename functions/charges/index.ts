import { createApiHandler } from '#shared/http/api-handler.ts';
import { createCharge, createPixCharge } from './create-charge.ts';
import { getCharge } from './get-charge.ts';
import { listCharges } from './list-charges.ts';

export const handler = createApiHandler('charges', { createCharge, createPixCharge, getCharge, listCharges });
