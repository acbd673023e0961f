import { Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi as ApiGatewayHttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  type HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { apiThrottle } from '#shared/resources.ts';
import { type Group, routes } from '#shared/routes.ts';

export interface HttpApiProps {
  /** The Lambda serving each API group. */
  readonly functions: Readonly<Record<Group, { readonly function: IFunction }>>;
  /** Serves `$default` (unknown paths): its dispatcher answers the spec's 404 envelope. */
  readonly fallbackGroup: Group;
}

/** One JSON line per request; the fields ops need to trace a request id to a route and an outcome. */
const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    routeKey: '$context.routeKey',
    status: '$context.status',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

/**
 * The public API: an API Gateway HTTP API (payload format 2.0) with one route per entry of the
 * route manifest, each integrated with its group's Lambda, and a throttled, access-logged
 * `$default` stage. Authentication (API key or dashboard JWT) happens in the Lambdas.
 */
export class HttpApi extends Construct {
  readonly api: ApiGatewayHttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: HttpApiProps) {
    super(scope, id);

    // One integration per group, shared by all of the group's routes.
    const integrations = new Map<Group, HttpLambdaIntegration>();
    const integrationOf = (group: Group): HttpLambdaIntegration => {
      let integration = integrations.get(group);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${group}-integration`, props.functions[group].function, {
          payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        });
        integrations.set(group, integration);
      }
      return integration;
    };

    this.api = new ApiGatewayHttpApi(this, 'Api', {
      description: 'Pix payment service public API',
      // Our own stage below, because the default one takes no access log settings.
      createDefaultStage: false,
      defaultIntegration: integrationOf(props.fallbackGroup),
    });

    // Method and path exactly as in the manifest, so `event.routeKey` is what the dispatchers expect.
    for (const route of routes) {
      new HttpRoute(this, route.id, {
        httpApi: this.api,
        routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration: integrationOf(route.group),
      });
    }

    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      // Protects the Lambdas and the table from floods; the per-key limit is enforced in code.
      throttle: { rateLimit: apiThrottle.rateLimit, burstLimit: apiThrottle.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: accessLogFormat,
      },
    });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Routes authenticate in the Lambdas: merchant API keys (apikey header, hashed lookup) and ' +
        'dashboard JWTs. Neither is an API Gateway authorizer; public routes (login) need none.',
    });
  }

  /** The invoke URL of the `$default` stage. */
  get url(): string {
    return this.stage.url;
  }
}
