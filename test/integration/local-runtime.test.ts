/**
 * `npm start` itself: a second runtime on its own ports, with a data folder, stopped with
 * Ctrl-C (SIGINT) and started again.
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { ownRuntimePorts } from '../helpers/own-runtime.ts';
import { Receiver } from '../helpers/webhook-receiver.ts';

const receiver = new Receiver();
afterAll(() => receiver.stop());

const ports = ownRuntimePorts(350);

/** Everything each runtime started printed, in the order started. */
const outputs: string[] = [];

function start(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/local.ts'], {
    // Debug: the stream poller names the records of each batch it hands the outbox.
    env: { ...process.env, ...ports, DATA_DIR: dataDir, LOG_LEVEL: 'debug' },
    stdio: 'pipe',
  });
  const run = outputs.push('') - 1;
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`not ready in 45 s:\n${output}`)), 45_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      outputs[run] = output;
      if (output.includes('Pix service ready on')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      outputs[run] = output;
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
}

const stopWithCtrlC = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGINT');
  });

const listening = (port: string) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** The batches of stream records the runtime of that run handed the outbox (the poller's debug lines). */
const handledBatches = (run: number): string[][] =>
  (outputs[run] ?? '').split('\n').flatMap((line) => {
    try {
      const record = JSON.parse(line) as { message?: string; sequenceNumbers?: string[] };
      return record.message === 'stream batch' ? [record.sequenceNumbers ?? []] : [];
    } catch {
      return [];
    }
  });

const balance = (apikey: string) =>
  fetch(`http://127.0.0.1:${ports.PORT}/v1/wallets/balance`, { headers: { apikey } });

describe('local runtime', () => {
  it('keeps its data across a Ctrl-C and a restart, and stops every process', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pix-restart-'));
    const first = await start(dataDir);
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'));
    expect(demo).toEqual({
      account_id: expect.stringMatching(/^acct_/),
      email: 'demo@example.com',
      password: expect.any(String),
      test_api_key: expect.stringMatching(/^ak_test_/),
      live_api_key: expect.stringMatching(/^ak_live_/),
      base_url: `http://127.0.0.1:${ports.PORT}`,
    });
    expect((await balance(demo.test_api_key)).status).toBe(200);

    // Two deliveries waiting an hour for their next attempt (the receiver asked for it): one to
    // an endpoint, one to a payment's webhookUrl override.
    const asked = new Set<unknown>();
    receiver.answer = (_n, request) => {
      const type = request.headers['x-acme-event-type'];
      if (asked.has(type)) return { status: 200 };
      asked.add(type);
      return { status: 429, headers: { 'retry-after': '3600' } };
    };
    const url = await receiver.start();
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${ports.PORT}${path}`, {
        method: 'POST',
        headers: { apikey: demo.test_api_key, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    expect((await post('/v1/webhooks/endpoints', { url, events: ['charge.created'] })).status).toBe(201);
    expect((await post('/v1/webhooks/override-secret/rotate', {})).status).toBe(200);
    const payment = {
      amount: 100,
      paymentMethods: ['PIX'],
      idempotencyKey: 'restart-test-1',
      webhookUrl: url,
    };
    expect((await post('/v1/payments', payment)).status).toBe(201);
    await receiver.waitFor(2);

    expect(await stopWithCtrlC(first)).toBe(0);
    for (const port of Object.values(ports)) expect(await listening(port)).toBe(false);

    const second = await start(dataDir);
    try {
      expect(JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')).account_id).toBe(demo.account_id);
      expect((await balance(demo.test_api_key)).status).toBe(200);
      // The webhooks waiting for their retry when the runtime stopped are delivered after the restart.
      await receiver.waitFor(4);
      // The receiver answers before the dispatcher records the attempt: wait for the records.
      await eventually(async () => {
        const deliveries = await fetch(`http://127.0.0.1:${ports.PORT}/v1/webhooks/deliveries`, {
          headers: { apikey: demo.test_api_key },
        });
        const { data } = (await deliveries.json()) as { data: { eventType: string }[] };
        expect(data.map((d) => d.eventType).sort()).toEqual(['charge.created', 'payment.created']);
        for (const delivery of data) expect(delivery).toMatchObject({ status: 'DELIVERED', attempts: 2 });
      });
      // Those DELIVERED writes reach the outbox through the stream: wait for the second run to hand
      // it a batch before stopping it (the poller may not have read them yet).
      await eventually(() => expect(handledBatches(1).flat().length).toBeGreaterThan(0), {
        message: 'the second run handed the outbox a stream batch',
      });
    } finally {
      await stopWithCtrlC(second);
    }
    // The stream read on from where the first run stopped (its positions are in the data folder):
    // the second run handed the outbox its own changes (the redeliveries) and none of the first's,
    // but for the batch the first may have been stopped in the middle of (handled again, as Lambda would).
    const handledBefore = new Set(handledBatches(0).slice(0, -1).flat());
    expect(handledBefore.size).toBeGreaterThan(0);
    const handledAfter = handledBatches(1).flat();
    expect(handledAfter.length).toBeGreaterThan(0);
    expect(handledAfter.filter((sequenceNumber) => handledBefore.has(sequenceNumber))).toEqual([]);
    expect(existsSync(join(dataDir, 'stream-positions.json'))).toBe(true);
  }, 120_000); // two starts; a loaded machine has needed more than 20 s for one

  it('exits with one clear line when Java is missing', () => {
    const result = spawnSync(process.execPath, ['bin/local.ts', '--in-memory'], {
      env: { ...process.env, ...ports, PATH: '/nonexistent' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toMatch(/^DynamoDB Local needs Java 17 or newer \(found none\): install it/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
