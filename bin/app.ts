import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PixServiceStack } from '#infra/stack.ts';

const app = new App();
new PixServiceStack(app, 'PixService', {
  // `-c publicBaseUrl=https://pay.example.com` (or cdk.json) when the API has a custom domain.
  publicBaseUrl: app.node.tryGetContext('publicBaseUrl'),
});
// Unacknowledged AWS Solutions findings fail the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
