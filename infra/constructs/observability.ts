import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IAlarm,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { type MetricName, observability } from '#shared/resources.ts';

export interface ObservabilityProps {
  readonly alarmTopic: ITopic;
  readonly api: IHttpApi;
  /** The outbox: its stream mapping's IteratorAge is how far behind the table the webhooks are. */
  readonly outbox: IFunction;
  /**
   * The scheduler: neither its EventBridge target nor Lambda retries a run, and there is no DLQ, so its `Errors` metric is the
   * only trace of a failed run.
   */
  readonly scheduler: IFunction;
  /** The queues' own alarms (a dead-letter queue or `OutboxFailures` not empty), shown beside these. */
  readonly queueAlarms: readonly IAlarm[];
}

/**
 * Each alarm: a rate (`threshold` in percent), the outbox's age (in ms) or the scheduler's failed
 * runs (a count) over `periodMinutes`, alarming after `periods` consecutive breaching periods.
 * README, Operations, says what to do.
 */
export const alarmRules = {
  api5xxRate: { threshold: 1, periodMinutes: 5, periods: 2 },
  acquirerErrorRate: { threshold: 10, periodMinutes: 5, periods: 2 },
  deliveryFailureRate: { threshold: 20, periodMinutes: 15, periods: 2 },
  outboxAge: { threshold: 60_000, periodMinutes: 1, periods: 5 },
  /** A failed run every minute for 3 minutes: one failed run alone is drained by the next. */
  schedulerErrors: { threshold: 1, periodMinutes: 1, periods: 3 },
  /** A refund's money the books and the acquirer disagree on (returned after FAILED, a return refused): one is one too many. */
  refundMoney: { threshold: 1, periodMinutes: 5, periods: 1 },
} as const;

type AlarmRule = (typeof alarmRules)[keyof typeof alarmRules];

/** A service metric (EMF, `shared/metrics.ts`) of live mode. */
const liveMetric = (name: MetricName, statistic = 'Sum', period = Duration.minutes(5)): Metric =>
  new Metric({
    namespace: observability.metricNamespace,
    metricName: name,
    dimensionsMap: { service: observability.serviceName, mode: 'live' },
    statistic,
    period,
  });

/** `100 × part / whole`, 0 when nothing happened (an idle hour is not an outage). */
const percent = (label: string, part: IMetric, whole: IMetric, minutes: number) =>
  new MathExpression({
    expression: 'IF(whole > 0, 100 * FILL(part, 0) / whole, 0)',
    usingMetrics: { part, whole },
    label,
    period: Duration.minutes(minutes),
  });

/**
 * The CloudWatch dashboard of the service and its six alarms (5xx rate, acquirer error rate,
 * delivery failure rate, outbox age, scheduler errors, refund money to reconcile), which notify the ops topic beside the
 * queue alarms.
 */
export class Observability extends Construct {
  readonly dashboard: Dashboard;
  readonly api5xxRateAlarm: Alarm;
  readonly acquirerErrorRateAlarm: Alarm;
  readonly deliveryFailureRateAlarm: Alarm;
  readonly outboxAgeAlarm: Alarm;
  readonly schedulerErrorsAlarm: Alarm;
  readonly refundMoneyAlarm: Alarm;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const { metrics } = observability;
    const action = new SnsAction(props.alarmTopic);
    const alarm = (alarmId: string, metric: IMetric, rule: AlarmRule, description: string): Alarm => {
      const created = new Alarm(this, alarmId, {
        alarmDescription: `${description} See README, Operations.`,
        metric,
        threshold: rule.threshold,
        evaluationPeriods: rule.periods,
        datapointsToAlarm: rule.periods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
      return created;
    };

    const rules = alarmRules;
    const api5xxRate = percent(
      'API 5xx %',
      props.api.metricServerError({ period: Duration.minutes(rules.api5xxRate.periodMinutes) }),
      props.api.metricCount({ period: Duration.minutes(rules.api5xxRate.periodMinutes) }),
      rules.api5xxRate.periodMinutes,
    );
    const api5xx = 'API answers 5xx (internal_error, service_unavailable) to too many requests.';
    this.api5xxRateAlarm = alarm('Api5xxRateAlarm', api5xxRate, rules.api5xxRate, api5xx);

    /** A live EMF rate: `part` of `whole` over the rule's period. */
    const liveRate = (label: string, part: MetricName, whole: MetricName, rule: AlarmRule) => {
      const period = Duration.minutes(rule.periodMinutes);
      return percent(
        label,
        liveMetric(part, 'Sum', period),
        liveMetric(whole, 'Sum', period),
        rule.periodMinutes,
      );
    };
    const { acquirerErrors, acquirerCalls, webhookAttemptFailures, webhookAttempts } = metrics;
    const acquirerErrorRate = liveRate(
      'Acquirer errors %',
      acquirerErrors,
      acquirerCalls,
      rules.acquirerErrorRate,
    );
    const acquirer = 'Live acquirer (API Pix) calls fail: no answer, 5xx or credentials refused.';
    this.acquirerErrorRateAlarm = alarm(
      'AcquirerErrorRateAlarm',
      acquirerErrorRate,
      rules.acquirerErrorRate,
      acquirer,
    );
    const deliveryFailureRate = liveRate(
      'Webhook attempt failures %',
      webhookAttemptFailures,
      webhookAttempts,
      rules.deliveryFailureRate,
    );
    const delivery = 'Too many live webhook attempts get no 2xx from the merchants.';
    this.deliveryFailureRateAlarm = alarm(
      'DeliveryFailureRateAlarm',
      deliveryFailureRate,
      rules.deliveryFailureRate,
      delivery,
    );

    const outboxAge = props.outbox.metric('IteratorAge', {
      statistic: 'Maximum',
      period: Duration.minutes(rules.outboxAge.periodMinutes),
    });
    const late = 'The outbox reads the table stream late: webhooks, counters and MED e-mails are delayed.';
    this.outboxAgeAlarm = alarm('OutboxAgeAlarm', outboxAge, rules.outboxAge, late);

    // Neither the scheduler's rule nor Lambda retries a failed run, nor dead-letters it: the Lambda's own errors
    // (a throw, a timeout) are what says the due work is not being drained.
    const schedulerErrors = props.scheduler.metricErrors({
      statistic: 'Sum',
      period: Duration.minutes(rules.schedulerErrors.periodMinutes),
    });
    const scheduler =
      'The scheduler keeps failing: expiries, releases, refund advances and reconciliation are not running.';
    this.schedulerErrorsAlarm = alarm(
      'SchedulerErrorsAlarm',
      schedulerErrors,
      rules.schedulerErrors,
      scheduler,
    );

    // Money a refund's record gets wrong: a refund recorded FAILED that the acquirer returned
    // anyway, or a Pix the service could not give back to its payer; or money a refund holds
    // that the acquirer has not resolved for an hour. Each needs ops.
    const period = Duration.minutes(rules.refundMoney.periodMinutes);
    const refundMoney = new MathExpression({
      expression: 'FILL(returned, 0) + FILL(unreturned, 0) + FILL(overdue, 0)',
      usingMetrics: {
        returned: liveMetric(metrics.refundsReturnedAfterFailure, 'Sum', period),
        unreturned: liveMetric(metrics.automaticReturnsFailed, 'Sum', period),
        overdue: liveMetric(metrics.refundsOverdue, 'Sum', period),
      },
      label: 'Refund money to reconcile',
      period,
    });
    this.refundMoneyAlarm = alarm(
      'RefundMoneyAlarm',
      refundMoney,
      rules.refundMoney,
      'A refund recorded FAILED was returned by the acquirer after all, or a Pix the service returned by itself (payer lock, after a cancel) could not be: the books and the money disagree; or a refund is still unresolved an hour after it was made. Find the refund in the error log and reconcile.',
    );

    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width: 12, height: 6 });
    const live = (...names: MetricName[]) => names.map((name) => liveMetric(name));
    this.dashboard = new Dashboard(this, 'Dashboard', {
      widgets: [
        [
          new AlarmStatusWidget({
            title: 'Alarms',
            alarms: [
              this.api5xxRateAlarm,
              this.acquirerErrorRateAlarm,
              this.deliveryFailureRateAlarm,
              this.outboxAgeAlarm,
              this.schedulerErrorsAlarm,
              this.refundMoneyAlarm,
              ...props.queueAlarms,
            ],
            width: 24,
            height: 3,
          }),
        ],
        [
          graph('Charges (live)', live(metrics.chargesCreated, metrics.chargesPaid, metrics.chargesExpired)),
          graph(
            'Refunds by status (live)',
            live(
              metrics.refundsPending,
              metrics.refundsInProgress,
              metrics.refundsRefunded,
              metrics.refundsFailed,
              metrics.refundsReturnedAfterFailure,
              metrics.automaticReturnsFailed,
              metrics.refundsOverdue,
            ),
          ),
        ],
        [
          graph('MED cases (live)', live(metrics.medCasesOpened, metrics.medCasesResolved)),
          graph('API', [props.api.metricCount(), props.api.metricServerError()], [api5xxRate]),
        ],
        [
          graph(
            'Webhook deliveries (live)',
            live(
              metrics.webhookAttempts,
              metrics.webhookAttemptFailures,
              metrics.webhookDelivered,
              metrics.webhookFailed,
              metrics.webhookCancelled,
            ),
            [deliveryFailureRate],
          ),
          graph('Webhook delivery latency (live, ms)', [
            liveMetric(metrics.webhookLatency, 'p50'),
            liveMetric(metrics.webhookLatency, 'p99'),
          ]),
        ],
        [
          graph('Acquirer (live)', live(metrics.acquirerCalls, metrics.acquirerErrors), [acquirerErrorRate]),
          graph('Outbox iterator age (ms)', [outboxAge]),
        ],
        [graph('Scheduler errors', [schedulerErrors])],
      ],
    });
  }
}
