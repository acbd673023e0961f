/**
 * The sandbox acquirer for `ak_test_` keys: never reaches a bank. Creation is deterministic in
 * the txid (like `PUT /cob/{txid}`, a retry is the same charge), and two documented triggers
 * simulate failures:
 * - amount 1313 (R$ 13,13): the acquirer refuses the charge → the charge is `failed`;
 * - `POST /v1/sandbox/acquirer {"status":"down"}`: the acquirer is unavailable → 503;
 * - `POST /v1/sandbox/acquirer {"payouts":"unsupported"}`: no Pix-out → cashout refunds 422.
 *
 * It keeps no state of its own: what its bank holds for a txid (the charge and its refunds) is
 * read from the service's records by the caller, and handed in as `readCob` (an adapter reads
 * no store); `GET /cob/{txid}` answers it in the API Pix shape (`sandbox-cob.ts`).
 */

import { log } from '../log.ts';
import {
  type CreateCobInput,
  type CreatedCob,
  type PixProvider,
  ProviderRejectedError,
  ProviderUnavailableError,
} from './provider.ts';
import { type SandboxCobRecord, sandboxCob } from './sandbox-cob.ts';

export const SANDBOX_REFUSED_AMOUNT = 1313;

/** The records behind a txid, or `undefined` when the sandbox never issued it. */
export type SandboxCobReader = (txid: string) => Promise<SandboxCobRecord | undefined>;

interface SandboxOptions {
  acquirerDown: boolean;
  /** `false`: no Pix-out (cashout refunds answer `REFUND_NOT_SUPPORTED`). */
  payouts?: boolean;
  /** Needed by `getCob` only. */
  readCob?: SandboxCobReader;
}

export function sandboxProvider(options: SandboxOptions): PixProvider {
  return {
    name: 'sandbox',
    async createCob(input: CreateCobInput): Promise<CreatedCob> {
      // One line per call: the tests count acquirer calls per txid from the log.
      log.info('provider.createCob', { provider: 'sandbox', txid: input.txid });
      if (options.acquirerDown) throw new ProviderUnavailableError('Sandbox acquirer is down');
      if (input.amount === SANDBOX_REFUSED_AMOUNT) {
        throw new ProviderRejectedError(
          'Sandbox acquirer refused the charge (amount 1313)',
          'sandbox_refused',
        );
      }
      return { providerChargeId: input.txid, txid: input.txid };
    },
    async getCob(txid) {
      log.info('provider.getCob', { provider: 'sandbox', txid });
      if (options.acquirerDown) throw new ProviderUnavailableError('Sandbox acquirer is down');
      if (!options.readCob) throw new Error('The sandbox acquirer was given no records to read cobs from');
      const record = await options.readCob(txid);
      // API Pix answers 404: for a txid the service itself stored, that is a bug, not a client error.
      if (!record) throw new Error(`The sandbox acquirer has no cob ${txid}`);
      return sandboxCob(record);
    },
    async cancelCob(txid) {
      log.info('provider.cancelCob', { provider: 'sandbox', txid });
      if (options.acquirerDown) throw new ProviderUnavailableError('Sandbox acquirer is down');
    },
    async requestDevolution(input) {
      log.info('provider.requestDevolution', {
        provider: 'sandbox',
        endToEndId: input.endToEndId,
        returnId: input.returnId,
      });
    },
    // A sandbox bank returns every Pix it is asked to: when the service asks is what paces a
    // sandbox refund (`/v1/sandbox/refunds/{id}/fail` is how a test makes one fail). While the
    // acquirer is down nobody can ask, so a devolution stays in progress until a test ends it.
    async getDevolution() {
      if (options.acquirerDown) throw new ProviderUnavailableError('Sandbox acquirer is down');
      return { status: 'DEVOLVIDO' };
    },
    ...(options.payouts !== false && {
      payouts: {
        async requestPayout(input) {
          log.info('provider.requestPayout', { provider: 'sandbox', payoutId: input.payoutId });
          if (options.acquirerDown) throw new ProviderUnavailableError('Sandbox acquirer is down');
        },
        async getPayout() {
          if (options.acquirerDown) throw new ProviderUnavailableError('Sandbox acquirer is down');
          return { status: 'DEVOLVIDO' as const };
        },
      },
    }),
  };
}
