import { describe, expect, it } from 'vitest';
import { loginMembership, type Membership } from '../../shared/domain/auth.ts';

const member = (accountId: string): Membership => ({
  accountId,
  userId: 'usr_1',
  role: 'OWNER',
  createdAt: '2026-11-24T00:00:00.000Z',
});
const one = [member('acc_a')];
const two = [member('acc_a'), member('acc_b')];

describe('loginMembership: which account a login opens a session for', () => {
  it.each([
    ['the only account, none named', one, undefined, 'acc_a'],
    ['the only account, an empty name read as none', one, '', 'acc_a'],
    ['the account named, of one', one, 'acc_a', 'acc_a'],
    ['the account named, of several', two, 'acc_b', 'acc_b'],
    ['nothing for an account the user is not in', two, 'acc_c', undefined],
    ['nothing for a user in no account', [], undefined, undefined],
    ['nothing for a user in no account, one named', [], 'acc_a', undefined],
  ])('%s', (_, memberships, accountId, expected) => {
    const chosen = loginMembership(memberships, accountId);
    expect(chosen === 'ambiguous' ? chosen : chosen?.accountId).toBe(expected);
  });

  it('is ambiguous when the user is in several accounts and names none', () => {
    expect(loginMembership(two, undefined)).toBe('ambiguous');
    expect(loginMembership(two, '')).toBe('ambiguous');
  });
});
