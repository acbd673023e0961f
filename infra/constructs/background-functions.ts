import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { schedulerPeriodSeconds } from '#shared/resources.ts';
import { ServiceFunction, serviceEnvironment } from './service-function.ts';
import type { SingleTable } from './table.ts';

const functionsDir = join(import.meta.dirname, '..', '..', 'functions');

export interface BackgroundFunctionsProps {
  readonly table: SingleTable;
}

/**
 * The Lambdas no route reaches: today the scheduler; later the outbox stream consumer and the
 * webhook dispatcher. Same house Lambda as the API, same base environment.
 */
export class BackgroundFunctions extends Construct {
  /** Drains the due-work queues (GSI2: charges to expire, balances to release) every period. */
  readonly scheduler: ServiceFunction;
  /** The EventBridge rule that invokes the scheduler. */
  readonly schedulerRule: Rule;

  constructor(scope: Construct, id: string, props: BackgroundFunctionsProps) {
    super(scope, id);

    // EventBridge rates are whole minutes (rate(n minutes)); fail the synth rather than round.
    if (!Number.isInteger(schedulerPeriodSeconds / 60) || schedulerPeriodSeconds < 60) {
      throw new Error(
        `schedulerPeriodSeconds must be a whole number of minutes, got ${schedulerPeriodSeconds}`,
      );
    }

    this.scheduler = new ServiceFunction(this, 'Scheduler', {
      entry: join(functionsDir, 'scheduler', 'index.ts'),
      description: 'Pix background: the scheduler (expires due charges, releases balances)',
      timeout: Duration.seconds(60),
      environment: serviceEnvironment,
    });
    this.scheduler.bindTable(props.table, { access: 'readWrite' });

    this.schedulerRule = new Rule(this, 'SchedulerRule', {
      description: `Runs the Pix scheduler every ${schedulerPeriodSeconds} s`,
      schedule: Schedule.rate(Duration.minutes(schedulerPeriodSeconds / 60)),
      // No retries and no DLQ: a failed run's work is still due, and the next run picks it up.
      targets: [new LambdaFunction(this.scheduler.function, { retryAttempts: 0 })],
    });
  }
}
