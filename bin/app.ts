import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PixServiceStack } from '#infra/stack.ts';

const app = new App();
// `-c stage=staging` deploys `PixService-staging` beside `PixService` in the same account and
// region: nothing has a physical name, and the acquirer secrets are per stack.
const stage: unknown = app.node.tryGetContext('stage');
if (stage !== undefined && (typeof stage !== 'string' || !/^[A-Za-z][A-Za-z0-9-]{0,30}$/.test(stage)))
  throw new Error(`-c stage must be letters, digits and dashes, starting with a letter: ${String(stage)}`);
new PixServiceStack(app, stage === undefined ? 'PixService' : `PixService-${stage}`, {
  // `-c publicBaseUrl=https://pay.example.com` (or cdk.json) when the API has a custom domain.
  publicBaseUrl: app.node.tryGetContext('publicBaseUrl'),
  // `-c emailFrom='Pix <no-reply@pay.example.com>'` (a verified SES identity; `-c emailIdentity=…`
  // when the identity is the address rather than its domain).
  emailFrom: app.node.tryGetContext('emailFrom'),
  emailIdentity: app.node.tryGetContext('emailIdentity'),
  emailReplyTo: app.node.tryGetContext('emailReplyTo'),
});
// Unacknowledged AWS Solutions findings fail the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
