/**
 * The merchant's side of the webhook bench: a node http server on 127.0.0.1 that answers 200
 * at once, checks every `X-Acme-Signature` with its own few-line HMAC (not the service's code)
 * and notes when each charge's delivery arrived. `hold()` keeps the answers back (the
 * dispatchers wait on them, so the delivery queue fills up); `release()` answers them.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** What a receiver would accept: a signature time no further than this from its own clock. */
const TOLERANCE_SECONDS = 300;

export interface Arrival {
  chargeId: string;
  deliveryId: string;
  eventType: string;
  /** The event's `created_at` (ms since the epoch). */
  eventAt: number;
  /** When the whole signed request had been read (ms since the epoch, this process's clock). */
  arrivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  /** The endpoint's secret, once it is registered. */
  setSecret(secret: string): void;
  /** The first delivery of each charge, by charge id. */
  arrivals: Map<string, Arrival>;
  counts: { requests: number; duplicates: number; badSignatures: number; malformed: number };
  hold(): void;
  /** Answers the held requests; returns how many there were. */
  release(): number;
  /** Resolves with how many of `chargeIds` arrived, as soon as all did or after `timeoutMs`. */
  waitFor(chargeIds: readonly string[], timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

/** `t=<unix>,v1=<hex>` → HMAC-SHA256(secret, "<t>.<raw body>") in hex, within the tolerance. */
export function validSignature(header: string, rawBody: Buffer, secret: string, nowMs: number): boolean {
  const fields = new Map(
    header.split(',').map((part) => [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)]),
  );
  const t = fields.get('t') ?? '';
  const given = Buffer.from(fields.get('v1') ?? '', 'hex');
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return (
    /^\d+$/.test(t) &&
    Math.abs(nowMs / 1000 - Number(t)) <= TOLERANCE_SECONDS &&
    given.length === expected.length &&
    timingSafeEqual(given, expected)
  );
}

export async function startReceiver(): Promise<WebhookReceiver> {
  let secret = '';
  let held: ServerResponse[] | undefined;
  const arrivals = new Map<string, Arrival>();
  const counts = { requests: 0, duplicates: 0, badSignatures: 0, malformed: 0 };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrivedAt = Date.now();
      counts.requests++;
      const raw = Buffer.concat(chunks);
      if (!validSignature(String(req.headers['x-acme-signature'] ?? ''), raw, secret, arrivedAt))
        counts.badSignatures++;
      try {
        const event = JSON.parse(raw.toString('utf8')) as {
          created_at: string;
          data: { object: { id: string } };
        };
        const chargeId = event.data.object.id;
        if (arrivals.has(chargeId)) counts.duplicates++;
        else
          arrivals.set(chargeId, {
            chargeId,
            deliveryId: String(req.headers['x-acme-delivery-id'] ?? ''),
            eventType: String(req.headers['x-acme-event-type'] ?? ''),
            eventAt: Date.parse(event.created_at),
            arrivedAt,
          });
      } catch {
        counts.malformed++;
      }
      if (held) held.push(res);
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hook`,
    setSecret: (value) => {
      secret = value;
    },
    arrivals,
    counts,
    hold: () => {
      held ??= [];
    },
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const res of waiting) res.writeHead(200).end();
      return waiting.length;
    },
    waitFor: async (chargeIds, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      const arrived = () => chargeIds.filter((id) => arrivals.has(id)).length;
      while (arrived() < chargeIds.length && Date.now() < deadline) await sleep(20);
      return arrived();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
