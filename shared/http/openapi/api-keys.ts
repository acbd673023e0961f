/** `api-keys` group: issue, list, rotate and revoke merchant API keys (dashboard token). */

import * as v from 'valibot';
import { AuditQuery, CreateApiKeyBody, RotateApiKeyBody } from '../../domain/api-keys.ts';
import { Timestamp } from './common.ts';
import type { Operations } from './operation.ts';

const Mode = v.picklist(['test', 'live']);

/** Issue and rotate: the only responses that carry the cleartext key. */
export const IssuedApiKey = v.strictObject({
  id: v.string(),
  apiKey: v.pipe(v.string(), v.regex(/^ak_(live|test)_[A-Za-z0-9_-]{32}$/)),
  fingerprint: v.string(),
  prefix: v.string(),
  label: v.string(),
  createdAt: Timestamp,
  mode: Mode,
});

export const ApiKeyListItem = v.strictObject({
  id: v.string(),
  prefix: v.string(),
  label: v.string(),
  createdAt: Timestamp,
  mode: Mode,
});

export const ApiKeyAuditEvent = v.strictObject({
  object: v.literal('audit_event'),
  id: v.string(),
  action: v.picklist(['api_key.issued', 'api_key.rotated', 'api_key.revoked']),
  actorUserId: v.string(),
  keyId: v.string(),
  fingerprint: v.string(),
  replacedKeyId: v.optional(v.string()),
  replacedFingerprint: v.optional(v.string()),
  createdAt: Timestamp,
});

const KEY_MANAGER_ONLY = { 403: ['API_KEY_ROLE_REQUIRED'] } as const;

export const apiKeyOperations: Operations<'api-keys'> = {
  createApiKey: {
    summary: 'Issue an API key',
    description:
      'OWNER or ADMIN. The cleartext `apiKey` is shown this once; `test: true` issues an `ak_test_` key.',
    body: CreateApiKeyBody,
    responses: { 201: { description: 'The new key, with its cleartext.', schema: IssuedApiKey } },
    errors: KEY_MANAGER_ONLY,
  },
  listApiKeys: {
    summary: 'List active API keys',
    description: 'Any member; newest first; never the cleartext.',
    responses: {
      200: {
        description: 'The active keys and whether the caller may manage them.',
        schema: v.strictObject({
          data: v.array(ApiKeyListItem),
          access: v.strictObject({ canManage: v.boolean() }),
        }),
      },
    },
  },
  listApiKeyAudit: {
    summary: 'Read the API key audit log',
    description:
      'OWNER or ADMIN: every issue, rotation and revocation, newest first. While `has_more` is true, pass `next_cursor` as `starting_after` for the next page.',
    query: AuditQuery,
    responses: {
      200: {
        description: 'Audit events.',
        schema: v.strictObject({
          object: v.literal('list'),
          data: v.array(ApiKeyAuditEvent),
          has_more: v.boolean(),
          next_cursor: v.nullable(v.string()),
        }),
      },
    },
    errors: KEY_MANAGER_ONLY,
  },
  rotateApiKey: {
    summary: 'Rotate an API key',
    description:
      'Revokes the key and issues a new one of the same mode in one step; the old key stops working at once. The label is kept unless a new one is sent.',
    body: RotateApiKeyBody,
    responses: { 201: { description: 'The new key, with its cleartext.', schema: IssuedApiKey } },
    errors: KEY_MANAGER_ONLY,
  },
  revokeApiKey: {
    summary: 'Revoke an API key',
    description: 'Permanent. An unknown, foreign or already revoked key is 404.',
    responses: {
      200: { description: 'Revoked.', schema: v.strictObject({ revoked: v.literal(true) }) },
    },
    errors: KEY_MANAGER_ONLY,
  },
};
