import { newIdempotencyKey, type RequestOptions } from '../http.ts';
import type {
  Charge,
  ChargePage,
  CreateChargeParams,
  CreatePixChargeParams,
  ListChargesParams,
} from '../types.ts';
import { followCursor } from './pagination.ts';
import { Resource } from './resource.ts';

/** `/v1/charges` (and `/v1/pix/charges`): Pix charges in the public format (`ch_` ids, lower-case statuses). */
export class Charges extends Resource {
  /** `POST /v1/charges`, with an `Idempotency-Key` (generated unless `options.idempotencyKey`). */
  create(params: CreateChargeParams, options: RequestOptions = {}): Promise<Charge> {
    // `?? 'pix'`: a `payment_method: undefined` the caller spreads in keeps the default.
    return this.createAt(
      '/v1/charges',
      { ...params, payment_method: params.payment_method ?? 'pix' },
      options,
    );
  }

  /**
   * `POST /v1/pix/charges`: the same charge through the Pix-only route (no `payment_method` in
   * the body), with an `Idempotency-Key` like `create`.
   */
  createPix(params: CreatePixChargeParams, options: RequestOptions = {}): Promise<Charge> {
    return this.createAt('/v1/pix/charges', params, options);
  }

  /** A create with its Idempotency-Key (the caller's, or a new one sent on every retry). */
  private createAt(path: string, body: object, options: RequestOptions): Promise<Charge> {
    return this.http.request(
      {
        method: 'POST',
        path,
        auth: 'apikey',
        body,
        idempotencyKeyHeader: options.idempotencyKey ?? newIdempotencyKey(),
      },
      options,
    );
  }

  /** Accepts `ch_<id>` or the raw id. */
  retrieve(id: string, options?: RequestOptions): Promise<Charge> {
    return this.http.request(
      { method: 'GET', path: `/v1/charges/${encodeURIComponent(id)}`, auth: 'apikey' },
      options,
    );
  }

  /** One page, newest first; pass `next_cursor` as `starting_after` for the next. */
  list(params: ListChargesParams = {}, options?: RequestOptions): Promise<ChargePage> {
    return this.http.request(
      { method: 'GET', path: '/v1/charges', auth: 'apikey', query: { ...params } },
      options,
    );
  }

  /** Every matching charge, newest first, fetching pages as the loop goes. */
  listAll(
    params: Omit<ListChargesParams, 'starting_after'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<Charge> {
    return followCursor((starting_after) =>
      this.list({ ...params, ...(starting_after && { starting_after }) }, options),
    );
  }
}
