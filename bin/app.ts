import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PixServiceStack } from '#infra/stack.ts';

const app = new App();
new PixServiceStack(app, 'PixService', {
  // `-c publicBaseUrl=https://pay.example.com` (or cdk.json) when the API has a custom domain.
  publicBaseUrl: app.node.tryGetContext('publicBaseUrl'),
  // `-c emailFrom='Pix <no-reply@pay.example.com>'` (a verified SES identity; `-c emailIdentity=…`
  // when the identity is the address rather than its domain).
  emailFrom: app.node.tryGetContext('emailFrom'),
  emailIdentity: app.node.tryGetContext('emailIdentity'),
});
// Unacknowledged AWS Solutions findings fail the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
