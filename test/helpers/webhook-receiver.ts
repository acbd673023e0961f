/** A real HTTP receiver on loopback for the webhook tests, with scripted answers. */

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer this late (to provoke the dispatcher's timeout). */
  delayMs?: number;
}

export class Receiver {
  readonly received: Received[] = [];
  /** Decides each answer; `n` counts requests from 1. */
  answer: (n: number, request: Received) => Answer = () => ({ status: 200, body: 'ok' });
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = {
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.received.push(request);
        const { status, headers, body, delayMs } = this.answer(this.received.length, request);
        const send = () => {
          if (!res.destroyed) res.writeHead(status, headers).end(body ?? '');
        };
        if (delayMs) setTimeout(send, delayMs).unref();
        else send();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Requests carrying this delivery id. */
  forDelivery(id: string): Received[] {
    return this.received.filter((r) => r.headers['x-acme-delivery-id'] === id);
  }

  async waitFor(
    count: number,
    timeoutMs = 15_000,
    filter: (r: Received) => boolean = () => true,
  ): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const matching = this.received.filter(filter);
      if (matching.length >= count) return matching;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`Receiver got ${this.received.filter(filter).length} of ${count} expected requests`);
  }
}

/** Polls until `probe` returns a value (or fails the test). */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

/**
 * Receivers for one test file: `start()` gives a running one and its URL; every receiver is
 * stopped after the file (the helper registers the `afterAll`).
 */
export function receiverPool(): { start: () => Promise<{ receiver: Receiver; url: string }> } {
  const started: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(started.map((r) => r.stop()));
  });
  return {
    async start() {
      const receiver = new Receiver();
      started.push(receiver);
      return { receiver, url: await receiver.start() };
    },
  };
}
