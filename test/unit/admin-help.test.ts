import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('npm run admin -- … --help', () => {
  it.each([
    ['--help'],
    ['help'],
    ['create-account', '--help'],
    ['set-provider', '--account', 'acct_1', '-h'],
  ])('prints the usage and exits 0 for %s', async (...args) => {
    // No runtime, no AWS: help is answered before anything is parsed or read.
    const { stdout } = await run(process.execPath, ['bin/admin.ts', ...args]);
    expect(stdout).toMatch(/^Usage: npm run admin -- <command> \[options\]/);
    expect(stdout).toContain('create-account --name <name>');
  });
});
