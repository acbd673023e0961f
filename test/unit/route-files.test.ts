import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INFRACTION_ALIASES, routes } from '../../shared/routes.ts';

const kebab = (id: string) => id.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Routes a sibling's file serves beside it (the same handler shape), by the file's route. */
const SERVED_BESIDE: Record<string, string> = {
  createPixCharge: 'createCharge',
  simulateRefundFailure: 'simulateRefundOutcome',
  simulateRefundConfirmation: 'simulateRefundOutcome',
  simulateMedOpening: 'simulateMed',
  simulateMedEvidenceRequest: 'simulateMed',
  simulateMedDecision: 'simulateMed',
};

describe('every route’s handler is found from its id (docs/architecture.md)', () => {
  it.each(routes.map((route) => [route.id, route] as const))('%s', (id, route) => {
    const alias = (INFRACTION_ALIASES as Record<string, string>)[id];
    const file = `functions/${route.group}/${kebab(SERVED_BESIDE[id] ?? alias ?? id)}.ts`;
    const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    // An alias is served by the handler of the route it stands for.
    expect(source, file).toMatch(new RegExp(`export const ${alias ?? id}\\b`));
  });
});
