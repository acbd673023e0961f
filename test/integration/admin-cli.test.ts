import { describe, expect, it } from 'vitest';
import { getAccount } from '../../shared/store/accounts.ts';
import { admin, adminRefused } from '../helpers/admin.ts';
import { emailsTo, newContactEmail } from '../helpers/email.ts';
import { eventually } from '../helpers/eventually.ts';
import { api, expectError } from '../helpers/http.ts';
import { openMed, paidCharge } from '../helpers/med.ts';
import { runtimeLogRecords } from '../helpers/runtime-log.ts';

describe('admin CLI', () => {
  it('creates an account, a user and a membership that can log in and manage keys', async () => {
    const account = await admin('create-account', '--name', 'Acme CLI');
    expect(account.id).toMatch(/^acct_/);
    const email = `cli-${Date.now()}@example.com`;
    await admin('create-user', '--email', email, '--password', 'long-enough-password');
    const membership = await admin(
      'add-member',
      '--account',
      account.id,
      '--email',
      email,
      '--role',
      'admin',
    );
    expect(membership).toMatchObject({ accountId: account.id, role: 'ADMIN' });

    const login = await api('/v1/auth/login', { body: { email, password: 'long-enough-password' } });
    expect(login.body).toMatchObject({ account_id: account.id, role: 'ADMIN' });
    expect((await api('/v1/api-keys', { token: login.body.token, body: { test: true } })).status).toBe(201);

    // The same command changes the member's role, says which it replaced, and keeps the membership's date.
    const changed = await admin('add-member', '--account', account.id, '--email', email, '--role', 'viewer');
    expect(changed).toEqual({ ...membership, role: 'VIEWER', previousRole: 'ADMIN' });
    const relogin = await api('/v1/auth/login', { body: { email, password: 'long-enough-password' } });
    expect(relogin.body).toMatchObject({ account_id: account.id, role: 'VIEWER' });
  });

  it('sets an account’s wallet shards at creation and later, refusing counts outside 1–64', async () => {
    const account = await admin('create-account', '--name', 'Acme Shards', '--wallet-shards', '8');
    expect(account.settings.walletShards).toBe(8);
    expect(await admin('set-wallet-shards', '--account', account.id, '--wallet-shards', '16')).toEqual({
      id: account.id,
      walletShards: 16,
    });
    expect((await getAccount(account.id))?.settings.walletShards).toBe(16);
    for (const bad of ['0', '65', '2.5'])
      await expect(
        admin('set-wallet-shards', '--account', account.id, '--wallet-shards', bad),
      ).rejects.toMatchObject({ code: 2 });
    expect((await getAccount(account.id))?.settings.walletShards).toBe(16);
  });

  it('refuses unknown roles and missing users with exit code 2, writing nothing', async () => {
    const account = await admin('create-account', '--name', 'Acme CLI 2');
    await expect(
      admin('add-member', '--account', account.id, '--email', 'nobody@example.com', '--role', 'ADMIN'),
    ).rejects.toMatchObject({ code: 2 });
    await expect(
      admin('add-member', '--account', account.id, '--email', 'x@example.com', '--role', 'ROOT'),
    ).rejects.toMatchObject({ code: 2 });
    expectError(
      await api('/v1/auth/login', { body: { email: 'nobody@example.com', password: 'whatever' } }),
      401,
      'authentication_error',
      'unauthorized',
    );
  });

  it('refuses a second user with the same e-mail, and a med-review step without its case, with one line and exit code 2', async () => {
    const email = `taken-${Date.now()}@example.com`;
    await admin('create-user', '--email', email);
    const taken = await adminRefused('create-user', '--email', email.toUpperCase());
    expect(taken.code).toBe(2);
    expect(taken.stderr.split('\n')[0]).toBe(`A user with e-mail ${email} already exists`);
    const noCase = await adminRefused('med-review', 'apply');
    expect(noCase.code).toBe(2);
    expect(noCase.stderr.split('\n')[0]).toBe("med-review apply needs the case's id (med_…)");
  });

  it('sets the contact e-mail on create-account and with set-contact-email, where MED notices then go', async () => {
    const first = newContactEmail();
    const account = await admin('create-account', '--name', 'Acme Mail', '--contact-email', ` ${first} `);
    expect(account.settings.contactEmail).toBe(first);

    const second = newContactEmail();
    expect(await admin('set-contact-email', '--account', account.id, '--email', second)).toEqual({
      id: account.id,
      contactEmail: second,
    });
    expect((await getAccount(account.id))?.settings.contactEmail).toBe(second);

    const { apiKey } = await admin('issue-key', '--account', account.id, '--mode', 'test');
    const medCase = (await openMed(apiKey, await paidCharge(apiKey))).body;
    const [email] = await eventually(async () => {
      const received = await emailsTo(second);
      expect(received).toHaveLength(1);
      return received;
    });
    expect(email?.body.text).toContain(`Caso: ${medCase.id}`);
    expect(await emailsTo(first)).toEqual([]);

    // --clear removes it: the next case's notice is not e-mailed, and the outbox says so.
    expect(await admin('set-contact-email', '--account', account.id, '--clear')).toEqual({
      id: account.id,
      contactEmail: null,
    });
    expect((await getAccount(account.id))?.settings.contactEmail).toBeUndefined();
    const unsent = (await openMed(apiKey, await paidCharge(apiKey))).body;
    await eventually(() =>
      expect(
        runtimeLogRecords().some(
          (r) =>
            r.message === 'med notice not e-mailed: the account has no contact e-mail' &&
            r.caseId === unsent.id,
        ),
      ).toBe(true),
    );
    expect(await emailsTo(second)).toHaveLength(1);
    const both = await adminRefused(
      'set-contact-email',
      '--account',
      account.id,
      '--clear',
      '--email',
      second,
    );
    expect([both.code, both.stderr.split('\n')[0]]).toEqual([2, 'Give --email or --clear, not both']);
  });

  it('refuses a malformed contact e-mail and an unknown account with exit code 2, writing nothing', async () => {
    const account = await admin('create-account', '--name', 'Acme Mail 2', '--contact-email', 'ops@acme.com');
    await expect(
      admin('set-contact-email', '--account', account.id, '--email', 'not an address'),
    ).rejects.toMatchObject({ code: 2 });
    await expect(admin('set-contact-email', '--account', account.id)).rejects.toMatchObject({ code: 2 });
    await expect(
      admin('set-contact-email', '--account', 'acct_000000000000000000000000', '--email', 'ops@acme.com'),
    ).rejects.toMatchObject({ code: 2 });
    expect((await getAccount(account.id))?.settings.contactEmail).toBe('ops@acme.com');
    expect(await getAccount('acct_000000000000000000000000')).toBeUndefined();

    await expect(
      admin('create-account', '--name', 'Acme Mail 3', '--contact-email', 'ops@'),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--contact-email must be an e-mail address'),
    });
  });
});
