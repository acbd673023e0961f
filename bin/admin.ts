/**
 * `npm run admin -- <command> [options]`: accounts, users and memberships, for operators.
 * Against the local runtime by default (start it first); against AWS when TABLE_NAME is set
 * (with the usual AWS credentials and region), e.g. TABLE_NAME=<stack output> npm run admin -- …
 */

import { randomBytes } from 'node:crypto';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { localEnvironment, localSettings } from '../infra/local/settings.ts';

const usage = `Usage: npm run admin -- <command> [options]
  create-account --name <name> [--rate-limit <requests per minute>] [--city <city>] [--mcc <4 digits>]
                 [--hold-days <days>] [--max-pending <live charges>] [--document <CNPJ or CPF>]
                 [--contact-email <e-mail>]   (MED notices are e-mailed there)
                 [--wallet-shards <1–64, default 4>]
  set-contact-email --account <acct_…> (--email <e-mail> | --clear)
  set-wallet-shards --account <acct_…> --wallet-shards <1–64>   (docs/scale.md sizes it)
  create-user    --email <email> [--password <password>]   (a random password is printed when omitted)
  add-member     --account <acct_…> --email <email> --role <OWNER|ADMIN|DEVELOPER|VIEWER>
                 Adds the user to the account, or changes the role of a member (printed as previousRole).
  issue-key      --account <acct_…> [--mode test|live] [--label <label>]
  set-provider   --account <acct_…> --base-url <API Pix base URL> --token-url <OAuth token URL>
                 --client-id <id> (--client-secret-file <file> | --client-secret=<secret>)
                 --cert <PEM file> --key <PEM file>
                 [--ca <PEM file>] --pix-key <the merchant's Pix key> [--scopes "<scopes>"]
                 [--api-url <this API's public URL>]   (default PUBLIC_BASE_URL)
                 Stores the credentials as the account's acquirer secret, registers the callback
                 at the PSP (PUT /webhook/{chave}) and prints the callback URL.
  med-review     list | apply <med_…> | reject <med_…>
                 MED cases waiting for operations: a decision of a case opened for review, or a
                 reported amount other than the charge's. apply: the decision takes effect (or the
                 reported amount is held); reject: the decision is dropped (or the report dismissed).`;

// Help wherever it is asked for (`create-account --help` too), before anything is parsed or read.
const argv = process.argv.slice(2);
if (argv[0] === 'help' || argv.some((arg) => arg === '--help' || arg === '-h')) {
  console.log(usage);
  process.exit(0);
}

const { positionals, values } = parseArguments({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    'rate-limit': { type: 'string' },
    city: { type: 'string' },
    mcc: { type: 'string' },
    'hold-days': { type: 'string' },
    'max-pending': { type: 'string' },
    'wallet-shards': { type: 'string' },
    document: { type: 'string' },
    'contact-email': { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    account: { type: 'string' },
    role: { type: 'string' },
    mode: { type: 'string' },
    label: { type: 'string' },
    'base-url': { type: 'string' },
    'token-url': { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    'client-secret-file': { type: 'string' },
    cert: { type: 'string' },
    key: { type: 'string' },
    ca: { type: 'string' },
    'pix-key': { type: 'string' },
    scopes: { type: 'string' },
    'api-url': { type: 'string' },
    clear: { type: 'boolean' },
  },
});

/** parseArgs, with a refusal (an unknown option, a value starting with '-') answered like any other. */
function parseArguments<const T extends ParseArgsConfig>(config: T) {
  try {
    return parseArgs(config);
  } catch (error) {
    return fail((error as Error).message);
  }
}

function fail(message: string): never {
  console.error(`${message}\n\n${usage}`);
  process.exit(2);
}

/** The options that take a value (not the `--clear` flag). */
type StringOption = Exclude<keyof typeof values, 'clear'>;

const need = (name: StringOption): string => values[name] ?? fail(`Missing --${name}`);

function positiveInteger(name: StringOption, zeroAllowed = false): number {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < (zeroAllowed ? 0 : 1))
    fail(`--${name} must be a ${zeroAllowed ? 'non-negative' : 'positive'} integer`);
  return value;
}

if (!process.env.TABLE_NAME) {
  // Same endpoints and table the local runtime uses; the JWT secret is not needed here.
  for (const [name, value] of Object.entries(localEnvironment(localSettings(), 'unused'))) {
    if (!process.env[name]) process.env[name] = value;
  }
}

const { hashPassword } = await import('../shared/auth/password.ts');
const { createAccount, getAccount, setContactEmail, setWalletShards } = await import(
  '../shared/store/accounts.ts'
);
const { isValidShardCount, MAX_WALLET_SHARDS } = await import('../shared/domain/shards.ts');

function walletShards(): number {
  const value = Number(values['wallet-shards']);
  if (!isValidShardCount(value)) fail(`--wallet-shards must be an integer from 1 to ${MAX_WALLET_SHARDS}`);
  return value;
}
const { issueApiKey } = await import('../shared/services/issue-api-key.ts');
const { createUser, EmailTakenError, findUserByEmail, putMembership } = await import(
  '../shared/store/users.ts'
);
const { roles } = await import('../shared/domain/auth.ts');
const { classifyTaxId, normalizeTaxId } = await import('../shared/domain/tax-id.ts');
const { contactEmailSchema } = await import('../shared/domain/account-settings.ts');
const { safeParse } = await import('valibot');

/** A valid contact e-mail, trimmed; exits with the usage otherwise. */
function contactEmail(option: 'contact-email' | 'email'): string {
  const parsed = safeParse(contactEmailSchema, need(option));
  return parsed.success ? parsed.output : fail(`--${option} must be an e-mail address`);
}

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

switch (positionals[0]) {
  case 'create-account': {
    const settings = {
      ...(values.city !== undefined && { merchantCity: values.city }),
      ...(values.mcc !== undefined && {
        mcc: /^\d{4}$/.test(values.mcc) ? values.mcc : fail('--mcc must be 4 digits'),
      }),
      ...(values['hold-days'] !== undefined && { settlementHoldDays: positiveInteger('hold-days', true) }),
      ...(values['max-pending'] !== undefined && {
        velocity: { accountMaxPending: positiveInteger('max-pending') },
      }),
      ...(values['wallet-shards'] !== undefined && { walletShards: walletShards() }),
      // Printed on payment receipts ("Não informado" without it).
      ...(values.document !== undefined && {
        merchantDocument:
          classifyTaxId(values.document) === undefined
            ? fail('--document must be a valid CNPJ or CPF')
            : normalizeTaxId(values.document),
      }),
      ...(values['contact-email'] !== undefined && { contactEmail: contactEmail('contact-email') }),
    };
    const rateLimit = values['rate-limit'] === undefined ? undefined : positiveInteger('rate-limit');
    print(
      await createAccount({
        name: need('name'),
        settings,
        ...(rateLimit !== undefined && { rateLimitPerMinute: rateLimit }),
      }),
    );
    break;
  }
  case 'set-wallet-shards': {
    // Safe at any time: reads sum every shard item that exists, and debits drain retired ones.
    const accountId = need('account');
    const shards = values['wallet-shards'] === undefined ? fail('Missing --wallet-shards') : walletShards();
    if (!(await getAccount(accountId))) fail(`No account ${accountId}`);
    await setWalletShards(accountId, shards);
    print({ id: accountId, walletShards: shards });
    break;
  }
  case 'create-user': {
    const password = values.password ?? randomBytes(12).toString('base64url');
    if (password.length < 8) fail('--password must have at least 8 characters');
    const user = await createUser(need('email'), await hashPassword(password)).catch((error: unknown) =>
      error instanceof EmailTakenError ? fail(error.message) : Promise.reject(error),
    );
    print({ id: user.id, email: user.email, ...(values.password === undefined && { password }) });
    break;
  }
  case 'add-member': {
    const role = need('role').toUpperCase();
    if (!(roles as readonly string[]).includes(role)) fail(`--role must be one of ${roles.join(', ')}`);
    const accountId = need('account');
    if (!(await getAccount(accountId))) fail(`No account ${accountId}`);
    const user = (await findUserByEmail(need('email'))) ?? fail(`No user with e-mail ${values.email}`);
    const membership = await putMembership(accountId, user.id, role as (typeof roles)[number]);
    // The same command changes an existing member's role: say so, on stderr (stdout stays JSON).
    if (membership.previousRole !== undefined && membership.previousRole !== membership.role)
      console.error(`${values.email} was ${membership.previousRole} on ${accountId}: now ${membership.role}`);
    print(membership);
    break;
  }
  case 'issue-key': {
    const accountId = need('account');
    if (!(await getAccount(accountId))) fail(`No account ${accountId}`);
    const mode = values.mode ?? 'test';
    if (mode !== 'test' && mode !== 'live') fail('--mode must be test or live');
    const issued = await issueApiKey({
      accountId,
      mode,
      label: values.label ?? '',
      actorUserId: 'admin-cli',
    });
    print({ id: issued.record.id, apiKey: issued.apiKey, mode, fingerprint: issued.record.fingerprint });
    break;
  }
  case 'set-provider': {
    const { readFileSync } = await import('node:fs');
    const { parseInput } = await import('../shared/domain/validation.ts');
    const { setProviderSchema } = await import('../shared/domain/acquirer.ts');
    const { setProvider } = await import('../shared/services/set-provider.ts');
    const pem = (name: 'cert' | 'key' | 'ca') => {
      try {
        return readFileSync(need(name), 'utf8');
      } catch {
        return fail(`Cannot read --${name} ${values[name]}`);
      }
    };
    // From a file, the secret stays out of the process list and the shell's history.
    const clientSecret = () => {
      const file = values['client-secret-file'];
      if (file !== undefined && values['client-secret'] !== undefined)
        return fail('Give --client-secret-file or --client-secret, not both');
      if (file === undefined) return need('client-secret');
      try {
        return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
      } catch {
        return fail(`Cannot read --client-secret-file ${file}`);
      }
    };
    try {
      const input = parseInput(
        setProviderSchema,
        {
          baseUrl: need('base-url'),
          tokenUrl: need('token-url'),
          clientId: need('client-id'),
          clientSecret: clientSecret(),
          pixKey: need('pix-key'),
          ...(values.scopes !== undefined && { scopes: values.scopes }),
        },
        'body',
      );
      const apiBaseUrl = values['api-url'] ?? process.env.PUBLIC_BASE_URL ?? fail('Missing --api-url');
      const { callbackUrl } = await setProvider({
        ...input,
        accountId: need('account'),
        cert: pem('cert'),
        key: pem('key'),
        ...(values.ca !== undefined && { ca: pem('ca') }),
        apiBaseUrl,
      });
      // The secret and the key are never printed.
      print({ account: values.account, acquirer: 'api-pix', baseUrl: input.baseUrl, callbackUrl });
    } catch (error) {
      const param = (error as { param?: string }).param;
      fail(`${error instanceof Error ? error.message : String(error)}${param ? ` (${param})` : ''}`);
    }
    break;
  }
  case 'med-review': {
    const { casesAwaitingReview } = await import('../shared/store/med-cases.ts');
    const waiting = await casesAwaitingReview(new Date());
    const action = positionals[1];
    if (action === 'list') {
      print(
        waiting.map((c) => ({
          id: c.id,
          account: c.accountId,
          mode: c.mode,
          charge_id: `ch_${c.chargeId}`,
          status: c.status,
          amount: c.amount,
          review: c.pendingReview,
        })),
      );
      break;
    }
    if (action !== 'apply' && action !== 'reject')
      fail('med-review takes list, apply <med_…> or reject <med_…>');
    const caseId = positionals[2] ?? fail(`med-review ${action} needs the case's id (med_…)`);
    const medCase = waiting.find((c) => c.id === caseId) ?? fail(`No MED case ${caseId} waits for review`);
    const scope = { accountId: medCase.accountId, mode: medCase.mode };
    const { serializeMedCase } = await import('../shared/domain/med-cases.ts');
    const change =
      action === 'apply'
        ? (await import('../shared/services/apply-med-review.ts')).applyMedReview
        : (await import('../shared/services/reject-med-review.ts')).rejectMedReview;
    try {
      print(serializeMedCase(await change(scope, medCase.id)));
    } catch (error) {
      // A refused change (the case moved since): the operator reads why; nothing was written.
      fail(error instanceof Error ? error.message : String(error));
    }
    break;
  }
  case 'set-contact-email': {
    const accountId = need('account');
    if (values.clear && values.email !== undefined) fail('Give --email or --clear, not both');
    // --clear: MED notices stop (each one then logs that it was not e-mailed).
    const email = values.clear ? undefined : contactEmail('email');
    if (!(await setContactEmail(accountId, email))) fail(`No account ${accountId}`);
    print({ id: accountId, contactEmail: email ?? null });
    break;
  }
  default:
    fail(positionals[0] ? `Unknown command ${positionals[0]}` : 'No command given');
}
