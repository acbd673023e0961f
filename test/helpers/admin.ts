/** `npm run admin -- …` against the test runtime, as an operator runs it. */

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { accountsCreatedHere } from './accounts.ts';
import { testPorts } from './local-env.ts';

const run = promisify(execFile);

/**
 * The CLI's JSON output; rejects (with `code` and `stderr`) when it refuses. Same ports and data
 * folder as the runtime (the acquirer secrets of `set-provider` live under it). An account
 * `create-account` made is registered in `accountsCreatedHere`, so the file's ledger invariant
 * checks it (e.g. `liveMerchantAt`'s live merchants).
 */
export async function admin(...args: string[]): Promise<any> {
  return adminWithEnv({ ...testPorts, TABLE_NAME: '', DATA_DIR: inject('dataDir') }, ...args);
}

/** `admin` with the environment an operator sets (e.g. `TABLE_NAME`, as against AWS). */
export async function adminWithEnv(environment: Record<string, string>, ...args: string[]): Promise<any> {
  const env = { ...process.env, ...environment };
  const { stdout } = await run(process.execPath, ['bin/admin.ts', ...args], { env });
  const output = JSON.parse(stdout);
  if (args[0] === 'create-account' && typeof output?.id === 'string') accountsCreatedHere.add(output.id);
  return output;
}

/** Exit code and stderr of a command the CLI refuses (fails the test if it succeeds). */
export async function adminRefused(...args: string[]): Promise<{ code: number; stderr: string }> {
  return refusal(() => admin(...args), args);
}

/** `adminRefused` with the environment an operator sets. */
export function adminRefusedWithEnv(
  environment: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stderr: string }> {
  return refusal(() => adminWithEnv(environment, ...args), args);
}

async function refusal(
  command: () => Promise<unknown>,
  args: string[],
): Promise<{ code: number; stderr: string }> {
  try {
    await command();
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    return { code, stderr };
  }
  throw new Error(`admin ${args.join(' ')} succeeded`);
}
