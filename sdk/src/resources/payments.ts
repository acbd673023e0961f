import { type HttpClient, newIdempotencyKey, type RequestOptions } from '../http.ts';
import type {
  CreatePaymentParams,
  CreateRefundParams,
  ListPaymentsParams,
  Payment,
  PaymentCreated,
  PaymentMetrics,
  PaymentMetricsParams,
  PaymentPage,
  PaymentReceipt,
  PaymentStats,
  PaymentStatsParams,
  ProviderStatus,
  Refund,
  RefundList,
  ResendWebhookResult,
} from '../types.ts';
import { Resource, unseen } from './resource.ts';

/**
 * The service reads at most this deep into a payment list: `page × limit` above it is refused
 * (400, `param: page`). Narrow `startDate`/`endDate` or filter by `status` to reach further back.
 */
const MAX_DEPTH = 1000;

/**
 * The body's `idempotencyKey` of a payment or refund: the caller's (in `params`, `options`, or an
 * `Idempotency-Key` in `options.headers`: the service refuses a header that differs from the
 * body's key), else a new one.
 */
const bodyKey = (params: { idempotencyKey?: string | undefined }, options: RequestOptions): string =>
  params.idempotencyKey ??
  options.idempotencyKey ??
  new Headers(options.headers).get('idempotency-key') ??
  newIdempotencyKey();

const paymentPath = (id: string, suffix = '') => `/v1/payments/${encodeURIComponent(id)}${suffix}`;

/** `/v1/payments/{id}/refund(s)`. The service's refund key travels in the body (`idempotencyKey`). */
export class Refunds extends Resource {
  /** A refund of a settled payment (full when `amount` is omitted); `idempotencyKey` generated unless given. */
  create(paymentId: string, params: CreateRefundParams = {}, options: RequestOptions = {}): Promise<Refund> {
    const idempotencyKey = bodyKey(params, options);
    return this.http.request(
      {
        method: 'POST',
        path: paymentPath(paymentId, '/refund'),
        auth: 'apikey',
        body: { ...params, idempotencyKey },
        repeatable: true,
      },
      options,
    );
  }

  /** Every refund of the payment, newest first (automatic returns included). */
  list(paymentId: string, options?: RequestOptions): Promise<RefundList> {
    return this.http.request(
      { method: 'GET', path: paymentPath(paymentId, '/refunds'), auth: 'apikey' },
      options,
    );
  }
}

/**
 * `/v1/payments`: the transaction-format view of the same charges. Ids are the charge's raw id;
 * `ch_<id>` is accepted too.
 */
export class Payments extends Resource {
  readonly refunds: Refunds;

  constructor(http: HttpClient) {
    super(http);
    this.refunds = new Refunds(http);
  }

  /** `idempotencyKey` generated unless given (in `params` or `options`). */
  create(params: CreatePaymentParams, options: RequestOptions = {}): Promise<PaymentCreated> {
    const idempotencyKey = bodyKey(params, options);
    return this.http.request(
      {
        method: 'POST',
        path: '/v1/payments',
        auth: 'apikey',
        body: { ...params, idempotencyKey },
        repeatable: true,
      },
      options,
    );
  }

  retrieve(id: string, options?: RequestOptions): Promise<Payment> {
    return this.http.request({ method: 'GET', path: paymentPath(id), auth: 'apikey' }, options);
  }

  list(params: ListPaymentsParams = {}, options?: RequestOptions): Promise<PaymentPage> {
    return this.http.request(
      { method: 'GET', path: '/v1/payments', auth: 'apikey', query: { ...params } },
      options,
    );
  }

  /**
   * Every matching payment the service lets a list reach, page after page: it stops before a
   * page that would end beyond the first 1000 (`page × limit` ≤ 1000; with a `limit` that does
   * not divide 1000, the last partial stretch is left out). Compare with the page's `total`, and
   * narrow `startDate`/`endDate` (or `status`) to go further back. Pages are by position, newest
   * first: a payment created meanwhile shifts the later pages, so each payment is yielded once
   * (never twice), and one created during the walk may be missed; fix `endDate` for a stable report.
   */
  async *listAll(
    params: Omit<ListPaymentsParams, 'page'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<Payment> {
    const yielded = new Set<string>();
    for (let page = 1; ; page++) {
      const current = await this.list({ ...params, page }, options);
      yield* unseen(current.data, yielded);
      // A short page is the end; `total` follows the list within seconds, so it may still lag.
      if (current.data.length < current.limit) return;
      if ((page + 1) * current.limit > MAX_DEPTH) return;
    }
  }

  /** Counts and volumes over `days` business days (America/Sao_Paulo). */
  stats(params: PaymentStatsParams = {}, options?: RequestOptions): Promise<PaymentStats> {
    return this.http.request(
      { method: 'GET', path: '/v1/payments/stats', auth: 'apikey', query: { ...params } },
      options,
    );
  }

  metrics(params: PaymentMetricsParams = {}, options?: RequestOptions): Promise<PaymentMetrics> {
    return this.http.request(
      { method: 'GET', path: '/v1/payments/metrics', auth: 'apikey', query: { ...params } },
      options,
    );
  }

  cancel(id: string, options?: RequestOptions): Promise<Payment> {
    return this.http.request({ method: 'POST', path: paymentPath(id, '/cancel'), auth: 'apikey' }, options);
  }

  resendWebhook(id: string, options?: RequestOptions): Promise<ResendWebhookResult> {
    return this.http.request(
      { method: 'POST', path: paymentPath(id, '/resend-webhook'), auth: 'apikey' },
      options,
    );
  }

  providerStatus(id: string, options?: RequestOptions): Promise<ProviderStatus> {
    return this.http.request(
      { method: 'GET', path: paymentPath(id, '/provider-status'), auth: 'apikey' },
      options,
    );
  }

  /** The PDF receipt of a settled payment, base64-encoded. */
  receipt(id: string, options?: RequestOptions): Promise<PaymentReceipt> {
    return this.http.request({ method: 'GET', path: paymentPath(id, '/receipt'), auth: 'apikey' }, options);
  }
}
