/**
 * The layer rules of docs/architecture.md, checked by `npm test` (`npm run layers`). A forbidden
 * import fails the suite with the rule's name and comment.
 *
 *   functions/  (handlers: parse, call one use case, serialize)
 *      ↓
 *   shared/http/ (the edge)   shared/services/ (one use case per file)
 *                                ↓                 ↓
 *                  shared/store/ (keys, items, reads, commits)   shared/providers/, shared/webhooks/, shared/documents/, shared/storage/, shared/email/ (outbound adapters)
 *                                ↓
 *                           shared/domain/ (pure rules)
 */

/**
 * What pure domain code may import besides itself: schemas, hashing and the reporting calendar's
 * data (the time-zone rules and Brazil's holidays), nothing with I/O.
 */
const DOMAIN_MAY_USE =
  '^(shared/domain/|node_modules/(valibot|date-holidays|@date-fns/tz|ipaddr\\.js)/|crypto$|node:crypto$|net$|node:net$)';

module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment:
        'shared/domain/ is pure: no AWS SDK, store, http, services, config, log or clock/randomness sources; ' +
        'it may import itself, valibot, the calendar data of date-holidays and @date-fns/tz, node:crypto hashing, and node:net / ipaddr.js address parsing only.',
      severity: 'error',
      from: { path: '^shared/domain/' },
      to: { pathNot: DOMAIN_MAY_USE },
    },
    {
      name: 'store-decides-nothing',
      comment:
        'shared/store/ builds keys and items, reads and commits: it may use domain types and predicates, ' +
        'never a use case, the edge or an outbound adapter.',
      severity: 'error',
      from: { path: '^shared/store/' },
      to: {
        path: '^(shared/(services|http|providers|webhooks|auth|documents|storage|email)/|functions/|infra/)',
      },
    },
    {
      name: 'services-below-the-edge',
      comment: 'A use case knows nothing of HTTP or of the handlers that call it.',
      severity: 'error',
      from: { path: '^shared/services/' },
      to: { path: '^(shared/http/|functions/|infra/)' },
    },
    {
      name: 'services-below-the-edge-by-any-path',
      comment:
        'Not through another module either (the test fault hook of shared/testing/ once threw the edge’s HttpError): ' +
        'nothing a use case imports, directly or not, is the edge or a handler.',
      severity: 'error',
      from: { path: '^shared/services/' },
      to: { path: '^(shared/http/|functions/|infra/)', reachable: true },
    },
    {
      name: 'adapters-are-leaves',
      comment:
        'Outbound adapters (acquirer, webhook HTTP/queue, crypto helpers, document renderers such as the ' +
        'pdf-lib receipt, the evidence bucket, the SES mailer) call no use case, no handler and no edge.',
      severity: 'error',
      from: { path: '^shared/(providers|webhooks|auth|documents|storage|email)/' },
      to: { path: '^(shared/(services|http)/|functions/|infra/)' },
    },
    {
      name: 'adapters-keep-no-state',
      comment:
        'The acquirer, crypto, document, evidence-storage and e-mail adapters read and write no table: what ' +
        "they need (the sandbox's view of a charge, an object key) is handed to them by the use case.",
      severity: 'error',
      from: { path: '^shared/(providers|auth|documents|storage|email)/' },
      to: { path: '^shared/store/' },
    },
    {
      name: 'edge-calls-down',
      comment: 'shared/http/ is the edge: it may call use cases and the store, never a handler.',
      severity: 'error',
      from: { path: '^shared/http/' },
      to: { path: '^(functions/|infra/)' },
    },
    {
      name: 'handlers-use-no-sdk',
      comment:
        'Handlers reach DynamoDB, SQS and S3 only through shared/store and the adapters (a stream record may be unmarshalled).',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^node_modules/@aws-sdk/(client-|lib-dynamodb)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'one-handler-per-group',
      comment: 'A Lambda group never imports another group: shared code lives in shared/.',
      severity: 'error',
      from: { path: '^functions/([^/]+)/' },
      to: { path: '^functions/', pathNot: '^functions/$1/' },
    },
    {
      name: 'synth-loads-no-runtime-code',
      comment:
        'The CDK stack reads only the route manifest and the resource definitions, so `cdk synth` never loads runtime code.',
      severity: 'error',
      from: { path: '^(infra/(?!local/)|bin/app\\.ts)' },
      to: { path: '^(shared/|functions/)', pathNot: '^shared/(routes|resources)\\.ts$' },
    },
    {
      name: 'shared-never-imports-up',
      comment: 'shared/ is imported by handlers and infra, never the other way round.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(functions/|infra/|bin/|test/)' },
    },
    {
      name: 'sdk-stands-alone',
      comment:
        'sdk/ is a separate package merchants install: it may import only itself and Node built-ins, ' +
        'never the service code nor a package it does not declare (it has no runtime dependencies).',
      severity: 'error',
      from: { path: '^sdk/' },
      to: { pathNot: '^(sdk/|node:|crypto$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // TypeScript 7 has no JS API yet: swc parses the sources (type-only imports included).
    parser: 'swc',
    combinedDependencies: true,
    // A checkout whose node_modules is a symlink (a worktree sharing another's) still resolves
    // packages under node_modules/, which the rules above name.
    preserveSymlinks: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
