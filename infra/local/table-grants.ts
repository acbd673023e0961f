/**
 * The stack's table grants, enforced by the local runtime: each Lambda's handler runs in its
 * grant scope, and a DynamoDB call its tier (`tableAccessOf`, shared/resources.ts) does not allow
 * fails as IAM would refuse it deployed (`AccessDeniedException`), so every integration test
 * also proves that the grants cover the code it drives. DynamoDB only; the stack's tests check
 * the queue, bucket, SES and secret grants against the code's needs.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import {
  prefixedWrites,
  table,
  tableAccessOf,
  tableAccessTiers,
  tierKeyPatterns,
} from '../../shared/resources.ts';

type GrantedFunction = keyof typeof tableAccessOf;

const grantScope = new AsyncLocalStorage<GrantedFunction>();

/** `handler`, its calls authorised as `name`'s. */
export const withTableGrants =
  <A extends unknown[], R>(name: GrantedFunction, handler: (...args: A) => Promise<R>) =>
  (...args: A): Promise<R> =>
    grantScope.run(name, () => handler(...args));

type Key = Record<string, unknown> | undefined;
/** The parts of a DynamoDB call's input that decide its grant. */
interface CallInput {
  IndexName?: string;
  Key?: Key;
  Item?: Key;
  RequestItems?: Record<string, { Keys?: Key[] }>;
  TransactItems?: Record<string, { Key?: Key; Item?: Key }>[];
}
interface Needed {
  action: string;
  index?: string;
  key?: Key;
}

/** The item actions (IAM `dynamodb:<action>`) a call needs, as IAM authorises them. */
function actionsNeeded(commandName: string, input: CallInput): Needed[] {
  const command = commandName.replace(/Command$/, '');
  switch (command) {
    case 'Query':
    case 'Scan':
      return [{ action: command, ...(input.IndexName && { index: input.IndexName }) }];
    case 'TransactWriteItems':
      // Authorised item by item, as the single-item action of each.
      return (input.TransactItems ?? []).map((item) => {
        const [kind, body] = Object.entries(item)[0] as [string, { Key?: Key; Item?: Key }];
        const action =
          { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem' }[kind] ?? 'ConditionCheckItem';
        return { action, key: body.Key ?? body.Item };
      });
    case 'TransactGetItems':
      return (input.TransactItems ?? []).map((item) => ({ action: 'GetItem', key: item.Get?.Key }));
    case 'BatchGetItem': {
      // IAM's LeadingKeys of a batch are every key it asks for.
      const keys = Object.values(input.RequestItems ?? {}).flatMap(({ Keys = [] }) => Keys);
      return keys.length === 0 ? [{ action: command }] : keys.map((key) => ({ action: command, key }));
    }
    default:
      return [{ action: command, key: input.Key ?? input.Item }];
  }
}

const partitionKeyOf = (key: Key): string | undefined => {
  const value = key?.[table.partitionKey] as string | { S?: string } | undefined;
  return typeof value === 'string' ? value : value?.S;
};

const compiled = new Map<string, RegExp>();
/** Whether partition key `pk` matches an IAM `StringLike` pattern (`?` one character, `*` any run). */
function keyMatches(pk: string, pattern: string): boolean {
  let regex = compiled.get(pattern);
  if (!regex) {
    const source = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.');
    regex = new RegExp(`^${source}$`, 's');
    compiled.set(pattern, regex);
  }
  return regex.test(pk);
}

/** Why `name` may not send this call, or `undefined` when its grants allow it. */
export function refusal(name: GrantedFunction, commandName: string, input: CallInput): string | undefined {
  const access = tableAccessOf[name];
  for (const { action, index, key } of actionsNeeded(commandName, input)) {
    if (access !== 'none') {
      const tier = tableAccessTiers[access];
      const patterns = tierKeyPatterns[name];
      const pk = partitionKeyOf(key);
      const allowed =
        (tier.actions as readonly string[]).includes(action) &&
        (index === undefined || tier.indexes) &&
        (patterns === undefined || (pk !== undefined && patterns.some((pattern) => keyMatches(pk, pattern))));
      if (allowed) continue;
    }
    // The conditional grant: some writes, on some partition-key prefixes only (IAM `dynamodb:LeadingKeys`).
    const pk = partitionKeyOf(key);
    const granted = (prefixedWrites[name] ?? []).some(
      (writes) =>
        writes.actions.some((allowed) => allowed === action) &&
        pk !== undefined &&
        writes.prefixes.some((prefix) => pk.startsWith(prefix)),
    );
    if (granted) continue;
    const resource = index === undefined ? `table/${table.partitionKey}` : `table/index/${index}`;
    return `${name} is not authorized to perform: dynamodb:${action} on resource: ${resource} (tier ${access}, shared/resources.ts)`;
  }
  return undefined;
}

/** Puts the check in front of every call of the service's DynamoDB client (once per process). */
let installed: Promise<void> | undefined;
export function enforceTableGrants(): Promise<void> {
  installed ??= (async () => {
    const { db } = await import('../../shared/store/client.ts');
    db.middlewareStack.add(
      (next, context) => async (args) => {
        const name = grantScope.getStore();
        const denied = name && refusal(name, context.commandName ?? '', args.input as CallInput);
        if (denied) {
          console.error(JSON.stringify({ level: 'error', message: 'table grant refused', reason: denied }));
          throw Object.assign(new Error(denied), { name: 'AccessDeniedException', $fault: 'client' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'localTableGrants' },
    );
  })();
  return installed;
}
