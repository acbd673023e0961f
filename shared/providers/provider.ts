/**
 * The acquirer (receiving PSP) behind Pix charges, as the central bank's API Pix models it:
 * `PUT /cob/{txid}` creates an immediate charge idempotently, and a devolution is addressed by
 * the end-to-end id of the Pix being returned. The sandbox implements it without a bank; the
 * live acquirer adapter implements the same interface.
 */

import type { InfractionReport } from '../domain/med-cases.ts';

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
  /** A live PSP's BR Code (`pixCopiaECola`); the sandbox builds its own. */
  pixCopiaECola?: string;
  /** A live PSP's payload location (no scheme); the sandbox signs its own. */
  location?: string;
  /**
   * When the acquirer's cob expires (API Pix `calendario.criacao` + `expiracao`): a create retried
   * with its key gets the cob the first attempt made, whose clock started then.
   */
  expiresAt?: string;
}

export interface DevolutionInput {
  endToEndId: string;
  /** Our id for the return, unique per devolution (API Pix `{id}`), so retries are idempotent. */
  returnId: string;
  amount: number;
}

/** API Pix `cob.status`. */
export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';

/** A charge as the acquirer holds it (API Pix `GET /cob/{txid}`): its status and the JSON as received. */
export interface CobSnapshot {
  status: CobStatus;
  raw: Record<string, unknown>;
}

/** API Pix `devolucao.status`. */
export type DevolutionStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';

export interface DevolutionState {
  status: DevolutionStatus;
  /** The acquirer's reason when `NAO_REALIZADO`. */
  reason?: string;
}

/** A Pix received, as the acquirer reports it (API Pix `Pix`). */
export interface ReceivedPix {
  endToEndId: string;
  /** Absent for a Pix sent to the key without a charge. */
  txid?: string;
  /** Centavos. */
  amount: number;
  /** ISO 8601 (`horario`). */
  receivedAt: string;
  /** The payer's free text (`infoPagador`). */
  payerMessage?: string;
  devolutions: ReceivedPixDevolution[];
}

interface ReceivedPixDevolution extends DevolutionState {
  returnId: string;
  amount: number;
}

/**
 * `GET /pix` filters: received between `from` and `to`; `payerDocument` (CPF by its 11
 * characters, else CNPJ) asks the PSP which Pix that payer sent, the standard's only way to learn
 * the payer.
 */
export interface ReceivedPixQuery {
  from: Date;
  to: Date;
  payerDocument?: string;
  txid?: string;
}

/** The MED port's report (DICT `ExtendedInfractionReport`): the domain's, since its record keeps it. */
export type { InfractionReport };

/** A Pix-out (cashout refund). Not part of API Pix: an acquirer offers it through its own payout API. */
interface PayoutInput {
  /** Our id for the payout, so retries are idempotent. */
  payoutId: string;
  amount: number;
  /** The Pix key to pay (`destinationKey`), or the payer's CPF/CNPJ used as a key. */
  pixKey: string;
}

interface PayoutPort {
  requestPayout(input: PayoutInput): Promise<void>;
  getPayout(payoutId: string): Promise<DevolutionState>;
}

export interface PixProvider {
  readonly name: string;
  createCob(input: CreateCobInput): Promise<CreatedCob>;
  /** API Pix `GET /cob/{txid}`, read live (never cached). */
  getCob(txid: string): Promise<CobSnapshot>;
  /** API Pix `PATCH /cob/{txid}` with status `REMOVIDA_PELO_USUARIO_RECEBEDOR`; idempotent. */
  cancelCob(txid: string): Promise<void>;
  /** API Pix `PUT /pix/{e2eid}/devolucao/{id}`; idempotent per `returnId`. */
  requestDevolution(input: DevolutionInput): Promise<void>;
  /** API Pix `GET /pix/{e2eid}/devolucao/{id}`. */
  getDevolution(input: Pick<DevolutionInput, 'endToEndId' | 'returnId'>): Promise<DevolutionState>;
  /** Pix-out for `cashout` refunds; absent when the acquirer offers none (`REFUND_NOT_SUPPORTED`). */
  readonly payouts?: PayoutPort;
  /** API Pix `GET /pix/{e2eid}`: a live acquirer's callback is read back here before it is trusted. */
  getPix?(endToEndId: string): Promise<ReceivedPix>;
  /** API Pix `GET /pix` over a period, every page (reconciliation, the payer lock). */
  listPix?(query: ReceivedPixQuery): Promise<ReceivedPix[]>;
  /**
   * The MED port: the infraction reports changed within a period. Not part of API Pix: each PSP
   * offers its own way (the local PSP: `GET /infracoes`, DICT's report shape); absent when none.
   */
  listInfractions?(query: { from: Date; to: Date }): Promise<InfractionReport[]>;
  /** API Pix `PUT /webhook/{chave}`: where the acquirer posts `{webhookUrl}/pix`. */
  registerWebhook?(webhookUrl: string): Promise<void>;
}

/** The acquirer could not be reached or answered 5xx: nothing was created; retry later. */
export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
  /** How long the acquirer asked to be left alone (HTTP `Retry-After`), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: ErrorOptions & { retryAfterMs?: number | undefined } = {}) {
    super(message, options);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * The acquirer did not do what was asked and said nothing about the request itself: unreachable,
 * or refusing our credentials or a request of ours. For the merchant a 503 (README: until
 * `set-provider` renews the credentials), never their mistake nor a 500.
 */
export const acquirerNotServing = (error: unknown): boolean =>
  error instanceof ProviderUnavailableError || error instanceof ProviderRequestError;

/** The acquirer's `Retry-After` of an outage, in whole seconds, when it gave one. */
export const acquirerRetryAfterSeconds = (error: unknown): number | undefined =>
  error instanceof ProviderUnavailableError && error.retryAfterMs !== undefined
    ? Math.ceil(error.retryAfterMs / 1000)
    : undefined;

/** The acquirer answered a refusal; `providerErrorCode` names it (API Pix: the problem's type). */
export abstract class ProviderRefusal extends Error {
  readonly providerErrorCode: string;
  /** The properties the refusal names (API Pix `violacoes[].propriedade`), when it names any. */
  readonly properties: readonly string[];
  constructor(message: string, providerErrorCode: string, properties: readonly string[] = []) {
    super(message);
    this.providerErrorCode = providerErrorCode;
    this.properties = properties;
  }
}

/** The acquirer refused the charge (no QR produced): the charge fails. */
export class ProviderRejectedError extends ProviderRefusal {
  override readonly name = 'ProviderRejectedError';
}

/** The acquirer has no such charge, Pix or devolution (404). */
export class ProviderNotFoundError extends ProviderRefusal {
  override readonly name = 'ProviderNotFoundError';
}

/** The acquirer refused a devolution (over the Pix's amount, too late, unknown Pix): the refund fails. */
export class DevolutionRefusedError extends ProviderRefusal {
  override readonly name = 'DevolutionRefusedError';
}

/**
 * The acquirer does not offer this query (`GET /pix` filtered by payer, answered 403): what the
 * query would have told is unknown, and nothing failed (no acquirer-error alarm).
 */
export class ProviderQueryNotOfferedError extends ProviderRefusal {
  override readonly name = 'ProviderQueryNotOfferedError';
}

/**
 * The acquirer refused a request that is neither a charge nor a devolution (credentials, scopes,
 * a malformed query): a configuration or programming error, never retried.
 */
export class ProviderRequestError extends ProviderRefusal {
  override readonly name = 'ProviderRequestError';
}
