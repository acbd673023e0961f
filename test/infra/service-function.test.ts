import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { ServiceFunction } from '#infra/constructs/service-function.ts';

const entry = join(import.meta.dirname, '..', '..', 'functions', 'wallets', 'index.ts');

/** A stack holding one ServiceFunction, its template and its unacknowledged cdk-nag findings. */
function synthesize(tracing: boolean): { template: Template; findings: string[] } {
  const app = new App();
  const stack = new Stack(app, 'Fn');
  new ServiceFunction(stack, 'Fn', { entry, tracing });
  const report = new AwsSolutionsChecks(app).validateScope(app);
  return {
    template: Template.fromStack(stack),
    findings: report.violations.map((violation) => violation.ruleName),
  };
}

describe('ServiceFunction', () => {
  it('is untraced by default', () => {
    const { template } = synthesize(false);
    template.hasResourceProperties('AWS::Lambda::Function', { TracingConfig: Match.absent() });
  });

  it('can be traced with X-Ray and still passes the AWS Solutions checks', () => {
    const { template, findings } = synthesize(true);
    template.hasResourceProperties('AWS::Lambda::Function', { TracingConfig: { Mode: 'Active' } });
    expect(findings).toEqual([]);
  });
});
