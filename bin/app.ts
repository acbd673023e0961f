import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PixServiceStack } from '#infra/stack.ts';

const app = new App();
new PixServiceStack(app, 'PixService');
// Unacknowledged AWS Solutions findings fail the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
