import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves once something accepts TCP connections on host:port. */
export async function waitForPort(host: string, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host, port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(100);
  }
  throw new Error(`Nothing listening on ${host}:${port} after ${timeoutMs} ms`);
}

/**
 * Resolves when the port is free, so a restart does not race the previous process; otherwise
 * the error names the environment variable (`variable`) that chooses another port.
 */
export async function assertPortFree(
  host: string,
  port: number,
  what: string,
  variable: string,
): Promise<void> {
  const inUse = await new Promise<boolean>((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
  if (inUse)
    throw new Error(
      `Port ${port} (${what}) is already in use: stop the other process or set ${variable} to another port.`,
    );
}
