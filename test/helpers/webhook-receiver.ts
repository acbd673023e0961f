/** A real HTTP receiver on loopback for the webhook tests, with scripted answers. */

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';
import { eventually } from './eventually.ts';

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
  /** Send the status line and `body`, then never end the response. */
  stallBody?: boolean;
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
        const { status, headers, body, delayMs, stallBody } = this.answer(this.received.length, request);
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(status, headers);
          if (stallBody) res.write(body ?? '');
          else res.end(body ?? '');
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

  /** Waits until `count` requests (matching `filter`) have arrived, and returns them. */
  waitFor(
    count: number,
    timeoutMs = 15_000,
    filter: (r: Received) => boolean = () => true,
  ): Promise<Received[]> {
    return eventually(
      () => {
        const matching = this.received.filter(filter);
        if (matching.length < count)
          throw new Error(`Receiver got ${matching.length} of ${count} expected requests`);
        return matching;
      },
      { timeoutMs, intervalMs: 50, message: `${count} webhook requests` },
    );
  }
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
