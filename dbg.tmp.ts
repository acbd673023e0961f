import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceFunction } from '#infra/constructs/service-function.ts';
for (const tracing of [true, false]) {
  const app = new App();
  const stack = new Stack(app, 'T');
  new ServiceFunction(stack, 'Fn', { entry: join(import.meta.dirname, 'functions/wallets/index.ts'), tracing });
  const r = new AwsSolutionsChecks(app).validateScope(app);
  console.log(tracing, r.violations.map((v) => v.ruleName));
}
