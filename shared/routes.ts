/**
 * The route manifest: every public route, the Lambda group that serves it and how it is
 * authenticated. Pure data so that `cdk synth` (API routes), each group's dispatcher and the
 * local HTTP server all read the same list: a route exists in exactly one place.
 */

export type Group =
  | 'auth'
  | 'api-keys'
  | 'charges'
  | 'wallets'
  | 'payments'
  | 'webhooks'
  | 'med'
  | 'checkout'
  | 'provider-callbacks'
  | 'sandbox'
  | 'docs';

/** `none`: public; `jwt`: dashboard token (`Authorization: Bearer`); `apikey`: merchant key. */
export type AuthKind = 'none' | 'jwt' | 'apikey';

type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteDefinition {
  readonly id: string;
  readonly group: Group;
  readonly method: HttpMethod;
  /** API Gateway path syntax: `{name}` is a path parameter. */
  readonly path: string;
  readonly auth: AuthKind;
  /**
   * The route reads a JSON object body, `required` or `optional`. The edge answers 400 for any
   * other JSON (an array, a string, a number, null) and, when `required`, for no body at all.
   */
  readonly body?: 'required' | 'optional';
  /**
   * The route reads a query string (its schema: the route's OpenAPI operation). On an
   * authenticated route without it, the edge answers 400 naming any query parameter, and a body
   * other than `{}` on a route without `body`: never silently ignored.
   */
  readonly query?: true;
}

export const routes = [
  { id: 'login', group: 'auth', method: 'POST', path: '/v1/auth/login', auth: 'none', body: 'required' },
  { id: 'logout', group: 'auth', method: 'POST', path: '/v1/auth/logout', auth: 'jwt' },

  {
    id: 'createApiKey',
    group: 'api-keys',
    method: 'POST',
    path: '/v1/api-keys',
    auth: 'jwt',
    body: 'optional',
  },
  { id: 'listApiKeys', group: 'api-keys', method: 'GET', path: '/v1/api-keys', auth: 'jwt' },
  {
    id: 'listApiKeyAudit',
    group: 'api-keys',
    method: 'GET',
    path: '/v1/api-keys/audit-log',
    auth: 'jwt',
    query: true,
  },
  {
    id: 'rotateApiKey',
    group: 'api-keys',
    method: 'POST',
    path: '/v1/api-keys/{id}/rotate',
    auth: 'jwt',
    body: 'optional',
  },
  { id: 'revokeApiKey', group: 'api-keys', method: 'DELETE', path: '/v1/api-keys/{id}', auth: 'jwt' },

  {
    id: 'createCharge',
    group: 'charges',
    method: 'POST',
    path: '/v1/charges',
    auth: 'apikey',
    body: 'required',
  },
  {
    id: 'createPixCharge',
    group: 'charges',
    method: 'POST',
    path: '/v1/pix/charges',
    auth: 'apikey',
    body: 'required',
  },
  { id: 'listCharges', group: 'charges', method: 'GET', path: '/v1/charges', auth: 'apikey', query: true },
  { id: 'getCharge', group: 'charges', method: 'GET', path: '/v1/charges/{id}', auth: 'apikey' },

  // The transaction-format view of the same charges (Part 2).
  {
    id: 'createPayment',
    group: 'payments',
    method: 'POST',
    path: '/v1/payments',
    auth: 'apikey',
    body: 'required',
  },
  { id: 'listPayments', group: 'payments', method: 'GET', path: '/v1/payments', auth: 'apikey', query: true },
  // Literal paths win over `/v1/payments/{id}` (matchRoute prefers more literal segments; API Gateway too).
  {
    id: 'getPaymentStats',
    group: 'payments',
    method: 'GET',
    path: '/v1/payments/stats',
    auth: 'apikey',
    query: true,
  },
  {
    id: 'getPaymentMetrics',
    group: 'payments',
    method: 'GET',
    path: '/v1/payments/metrics',
    auth: 'apikey',
    query: true,
  },
  { id: 'getPayment', group: 'payments', method: 'GET', path: '/v1/payments/{id}', auth: 'apikey' },
  {
    id: 'cancelPayment',
    group: 'payments',
    method: 'POST',
    path: '/v1/payments/{id}/cancel',
    auth: 'apikey',
  },
  {
    id: 'refundPayment',
    group: 'payments',
    method: 'POST',
    path: '/v1/payments/{id}/refund',
    auth: 'apikey',
    body: 'required',
  },
  { id: 'listRefunds', group: 'payments', method: 'GET', path: '/v1/payments/{id}/refunds', auth: 'apikey' },
  {
    id: 'resendPaymentWebhook',
    group: 'payments',
    method: 'POST',
    path: '/v1/payments/{id}/resend-webhook',
    auth: 'apikey',
  },
  {
    id: 'getPaymentProviderStatus',
    group: 'payments',
    method: 'GET',
    path: '/v1/payments/{id}/provider-status',
    auth: 'apikey',
  },
  {
    id: 'getPaymentReceipt',
    group: 'payments',
    method: 'GET',
    path: '/v1/payments/{id}/receipt',
    auth: 'apikey',
  },

  {
    id: 'getWalletBalance',
    group: 'wallets',
    method: 'GET',
    path: '/v1/wallets/balance',
    auth: 'apikey',
    query: true,
  },
  { id: 'listWallets', group: 'wallets', method: 'GET', path: '/v1/wallets', auth: 'apikey' },

  {
    id: 'createWebhookEndpoint',
    group: 'webhooks',
    method: 'POST',
    path: '/v1/webhooks/endpoints',
    auth: 'apikey',
    body: 'required',
  },
  {
    id: 'listWebhookEndpoints',
    group: 'webhooks',
    method: 'GET',
    path: '/v1/webhooks/endpoints',
    auth: 'apikey',
  },
  {
    id: 'updateWebhookEndpoint',
    group: 'webhooks',
    method: 'PATCH',
    path: '/v1/webhooks/endpoints/{id}',
    auth: 'apikey',
    body: 'required',
  },
  {
    id: 'rotateWebhookSecret',
    group: 'webhooks',
    method: 'POST',
    path: '/v1/webhooks/endpoints/{id}/rotate-secret',
    auth: 'apikey',
  },
  {
    id: 'deleteWebhookEndpoint',
    group: 'webhooks',
    method: 'DELETE',
    path: '/v1/webhooks/endpoints/{id}',
    auth: 'apikey',
  },
  {
    id: 'getEventCatalog',
    group: 'webhooks',
    method: 'GET',
    path: '/v1/webhooks/event-catalog',
    auth: 'none',
  },
  {
    id: 'listWebhookDeliveries',
    group: 'webhooks',
    method: 'GET',
    path: '/v1/webhooks/deliveries',
    auth: 'apikey',
    query: true,
  },
  { id: 'getWebhookStats', group: 'webhooks', method: 'GET', path: '/v1/webhooks/stats', auth: 'apikey' },
  {
    id: 'rotateWebhookOverrideSecret',
    group: 'webhooks',
    method: 'POST',
    path: '/v1/webhooks/override-secret/rotate',
    auth: 'apikey',
  },

  // MED (Pix dispute) cases; `/v1/infractions` serves the same routes (Part 2), as distinct ids.
  { id: 'listMedCases', group: 'med', method: 'GET', path: '/v1/med/cases', auth: 'apikey', query: true },
  { id: 'getMedCase', group: 'med', method: 'GET', path: '/v1/med/cases/{id}', auth: 'apikey' },
  {
    id: 'appealMedCase',
    group: 'med',
    method: 'POST',
    path: '/v1/med/cases/{id}/appeal',
    auth: 'apikey',
    body: 'required',
  },
  { id: 'acceptMedCase', group: 'med', method: 'POST', path: '/v1/med/cases/{id}/accept', auth: 'apikey' },
  { id: 'listMedEvidence', group: 'med', method: 'GET', path: '/v1/med/cases/{id}/evidence', auth: 'apikey' },
  {
    id: 'createEvidenceUpload',
    group: 'med',
    method: 'POST',
    path: '/v1/med/cases/{id}/evidence',
    auth: 'apikey',
    body: 'required',
  },
  {
    id: 'completeEvidenceUpload',
    group: 'med',
    method: 'POST',
    path: '/v1/med/cases/{id}/evidence/{evidence_id}/complete',
    auth: 'apikey',
  },
  {
    id: 'listInfractions',
    group: 'med',
    method: 'GET',
    path: '/v1/infractions',
    auth: 'apikey',
    query: true,
  },
  { id: 'getInfraction', group: 'med', method: 'GET', path: '/v1/infractions/{id}', auth: 'apikey' },
  {
    id: 'appealInfraction',
    group: 'med',
    method: 'POST',
    path: '/v1/infractions/{id}/appeal',
    auth: 'apikey',
    body: 'required',
  },
  {
    id: 'acceptInfraction',
    group: 'med',
    method: 'POST',
    path: '/v1/infractions/{id}/accept',
    auth: 'apikey',
  },
  {
    id: 'listInfractionEvidence',
    group: 'med',
    method: 'GET',
    path: '/v1/infractions/{id}/evidence',
    auth: 'apikey',
  },
  {
    id: 'createInfractionEvidence',
    group: 'med',
    method: 'POST',
    path: '/v1/infractions/{id}/evidence',
    auth: 'apikey',
    body: 'required',
  },
  {
    id: 'completeInfractionEvidence',
    group: 'med',
    method: 'POST',
    path: '/v1/infractions/{id}/evidence/{evidence_id}/complete',
    auth: 'apikey',
  },

  // Public pages and documents a payer's phone or bank fetches: capability URLs, no auth.
  { id: 'getCheckoutPage', group: 'checkout', method: 'GET', path: '/checkout/{id}', auth: 'none' },
  { id: 'getCheckoutStatus', group: 'checkout', method: 'GET', path: '/checkout/{id}/status', auth: 'none' },
  { id: 'getChargeQrCode', group: 'checkout', method: 'GET', path: '/checkout/{id}/qr.png', auth: 'none' },
  { id: 'getPixPayload', group: 'checkout', method: 'GET', path: '/pix/{id}', auth: 'none' },
  { id: 'getPixSigningKeys', group: 'checkout', method: 'GET', path: '/.well-known/jwks.json', auth: 'none' },

  // A live acquirer's API Pix callback (`{webhookUrl}/pix`): the unguessable token is the credential.
  {
    id: 'receiveProviderCallback',
    group: 'provider-callbacks',
    method: 'POST',
    path: '/v1/provider-callbacks/{token}/pix',
    auth: 'none',
    body: 'required',
  },

  // Test mode only (live keys get 404): drive a charge through the real pipeline.
  {
    id: 'simulatePayment',
    group: 'sandbox',
    method: 'POST',
    path: '/v1/sandbox/charges/{id}/pay',
    auth: 'apikey',
    body: 'optional',
  },
  {
    id: 'simulateExpiry',
    group: 'sandbox',
    method: 'POST',
    path: '/v1/sandbox/charges/{id}/expire',
    auth: 'apikey',
  },
  {
    id: 'setSandboxAcquirer',
    group: 'sandbox',
    method: 'POST',
    path: '/v1/sandbox/acquirer',
    auth: 'apikey',
    body: 'required',
  },
  {
    id: 'simulateRefundFailure',
    group: 'sandbox',
    method: 'POST',
    path: '/v1/sandbox/refunds/{refund_id}/fail',
    auth: 'apikey',
  },
  {
    id: 'simulateRefundConfirmation',
    group: 'sandbox',
    method: 'POST',
    path: '/v1/sandbox/refunds/{refund_id}/confirm',
    auth: 'apikey',
  },
  {
    id: 'simulateMedOpening',
    group: 'sandbox',
    method: 'POST',
    path: '/v1/sandbox/charges/{id}/med',
    auth: 'apikey',
    body: 'optional',
  },
  {
    id: 'simulateMedEvidenceRequest',
    group: 'sandbox',
    method: 'POST',
    path: '/v1/sandbox/med/cases/{id}/request-evidence',
    auth: 'apikey',
  },
  {
    id: 'simulateMedDecision',
    group: 'sandbox',
    method: 'POST',
    path: '/v1/sandbox/med/cases/{id}/decide',
    auth: 'apikey',
    body: 'required',
  },

  // The API's own description: the OpenAPI document and its reference page (no auth).
  { id: 'getOpenApiDocument', group: 'docs', method: 'GET', path: '/v1/openapi.json', auth: 'none' },
  { id: 'getApiReference', group: 'docs', method: 'GET', path: '/docs', auth: 'none' },
  {
    id: 'getApiReferenceScript',
    group: 'docs',
    method: 'GET',
    path: '/docs/api-reference.js',
    auth: 'none',
  },
] as const satisfies readonly RouteDefinition[];

type Route = (typeof routes)[number];
export type RouteId = Route['id'];
export type RoutesOf<G extends Group> = Extract<Route, { group: G }>;
export type RouteIdOf<G extends Group> = RoutesOf<G>['id'];

/** `/v1/infractions` is an alias of `/v1/med/cases` (Part 2): each alias route and the route it serves as. */
export const INFRACTION_ALIASES = {
  listInfractions: 'listMedCases',
  getInfraction: 'getMedCase',
  appealInfraction: 'appealMedCase',
  acceptInfraction: 'acceptMedCase',
  listInfractionEvidence: 'listMedEvidence',
  createInfractionEvidence: 'createEvidenceUpload',
  completeInfractionEvidence: 'completeEvidenceUpload',
} as const satisfies Partial<Record<RouteIdOf<'med'>, RouteIdOf<'med'>>>;

type MedCaseRouteId = Exclude<RouteIdOf<'med'>, keyof typeof INFRACTION_ALIASES>;

/** A table of the MED case routes, completed with the same entries under the infraction aliases. */
export function withInfractionAliases<T>(byRoute: Record<MedCaseRouteId, T>): Record<RouteIdOf<'med'>, T> {
  const aliases = Object.entries(INFRACTION_ALIASES).map(([alias, of]) => [alias, byRoute[of]]);
  return { ...byRoute, ...Object.fromEntries(aliases) } as Record<RouteIdOf<'med'>, T>;
}

/**
 * The group whose Lambda answers API Gateway's `$default` route (and the local server's unmatched
 * requests): unknown paths get the 404 envelope. `docs`, the group with no table and no secret:
 * any group's dispatcher answers the same 404 before touching either, so the one anonymous caller
 * can reach with any path gets the least privileged Lambda.
 */
export const fallbackGroup: Group = 'docs';

/** `POST /v1/api-keys/{id}/rotate`: the same string API Gateway puts in `event.routeKey`. */
export const routeKey = (route: RouteDefinition): string => `${route.method} ${route.path}`;

export const groups: readonly Group[] = [...new Set(routes.map((r) => r.group))];

export const routesOfGroup = (group: Group): readonly RouteDefinition[] =>
  routes.filter((r) => r.group === group);

const byRouteKey = new Map<string, RouteDefinition>(routes.map((r) => [routeKey(r), r]));

export const findRouteByKey = (key: string): RouteDefinition | undefined => byRouteKey.get(key);

/** A path segment decoded; `undefined` for a malformed escape (`%ZZ`), which names no resource. */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Matches a concrete request path against the manifest, as API Gateway does: literal segments
 * win over parameters (`/v1/api-keys/audit-log` before `/v1/api-keys/{id}`).
 */
export function matchRoute(
  method: string,
  path: string,
): { route: RouteDefinition; pathParameters: Record<string, string> } | undefined {
  const segments = path.split('/').filter(Boolean);
  let best: { route: RouteDefinition; pathParameters: Record<string, string>; literals: number } | undefined;
  for (const route of routes) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== segments.length) continue;
    const pathParameters: Record<string, string> = {};
    let literals = 0;
    const matches = pattern.every((part, i) => {
      const actual = segments[i] ?? '';
      if (part.startsWith('{') && part.endsWith('}')) {
        const value = decodedSegment(actual);
        if (value === undefined) return false;
        pathParameters[part.slice(1, -1)] = value;
        return actual.length > 0;
      }
      literals++;
      return part === actual;
    });
    if (matches && (!best || literals > best.literals)) best = { route, pathParameters, literals };
  }
  return best && { route: best.route, pathParameters: best.pathParameters };
}
