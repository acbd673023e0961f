/**
 * The failed-login limit when the table fails mid-login: an attempt that ended in an error before
 * its password was checked is no failed login, so a user whose logins failed that way (and who
 * retried) is not locked out once the table answers again.
 *
 * Why a server of its own: the fault is injected in the DynamoDB client of this process (the
 * user's read fails, the counters' writes do not), so this file serves the very handlers the
 * runtime serves (`createApiServer`, infra/local/http-server.ts) in its own process, against
 * the suite's DynamoDB; the login after the fault goes to the suite's runtime.
 */

import { describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';
import { db } from '../../shared/store/client.ts';
import { userKey } from '../../shared/store/keys.ts';
import { newMember } from '../helpers/accounts.ts';
import { api } from '../helpers/http.ts';
import { inProcessApi } from '../helpers/in-process-api.ts';
import { testLoginWindow } from '../helpers/local-env.ts';

const FAULT = 'failUserReads';
/** The user items whose reads fail (their `pk`). */
const failing = new Set<string>();

const saved = process.env.LOGIN_FAILURE_WINDOW_SECONDS;
const inProcess = inProcessApi({
  before: () => {
    // The runtime's window, so both servers count in windows of one length.
    process.env.LOGIN_FAILURE_WINDOW_SECONDS = testLoginWindow.LOGIN_FAILURE_WINDOW_SECONDS;
    db.middlewareStack.add(
      (next, context) => async (args) => {
        const input = JSON.stringify(args.input);
        if (
          /^Get(Item)?Command$/.test(context.commandName ?? '') &&
          [...failing].some((pk) => input.includes(pk))
        )
          throw new Error('Injected: the user read failed');
        return next(args);
      },
      { step: 'initialize', name: FAULT },
    );
  },
  after: () => {
    db.middlewareStack.remove(FAULT);
    if (saved === undefined) delete process.env.LOGIN_FAILURE_WINDOW_SECONDS;
    else process.env.LOGIN_FAILURE_WINDOW_SECONDS = saved;
  },
});

describe('POST /v1/auth/login while the user cannot be read', () => {
  it('counts no failed login: once the table answers, the right password logs in', async () => {
    const member = await newMember('OWNER');
    const from = '127.0.7.1';
    const login = (onBaseUrl?: string) =>
      api('/v1/auth/login', {
        body: { email: member.email, password: member.password },
        localAddress: from,
        ...(onBaseUrl && { baseUrl: onBaseUrl }),
      });

    failing.add(userKey(member.email).pk);
    // More tries than the limit allows failures: each an error, none a wrong password.
    for (let n = 0; n <= config.loginFailureLimit; n++)
      expect((await login(inProcess.baseUrl())).status).toBe(500);
    failing.delete(userKey(member.email).pk);

    const reply = await login();
    expect(reply.status).toBe(200);
    expect(reply.body.account_id).toBe(member.accountId);
  });
});
