/**
 * The acquirer (receiving PSP) behind Pix charges, as the central bank's API Pix models it:
 * `PUT /cob/{txid}` creates an immediate charge idempotently, and a devolution is addressed by
 * the end-to-end id of the Pix being returned. The sandbox implements it without a bank; the
 * live acquirer adapter implements the same interface.
 */

export interface CreateCobInput {
  txid: string;
  amount: number;
  expiresIn: number;
  payerDocument?: string;
  payerName?: string;
  description?: string;
}

export interface CreatedCob {
  /** The acquirer's id for the charge (API Pix: the txid itself). */
  providerChargeId: string;
  txid: string;
}

export interface DevolutionInput {
  endToEndId: string;
  /** Our id for the return, unique per devolution (API Pix `{id}`), so retries are idempotent. */
  returnId: string;
  amount: number;
}

export interface PixProvider {
  readonly name: string;
  createCob(input: CreateCobInput): Promise<CreatedCob>;
  requestDevolution(input: DevolutionInput): Promise<void>;
}

/** The acquirer could not be reached or answered 5xx: nothing was created; retry later. */
export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
}

/** The acquirer refused the charge (no QR produced): the charge fails. */
export class ProviderRejectedError extends Error {
  override readonly name = 'ProviderRejectedError';
  readonly providerErrorCode: string;
  constructor(message: string, providerErrorCode: string) {
    super(message);
    this.providerErrorCode = providerErrorCode;
  }
}
