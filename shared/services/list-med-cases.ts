/**
 * `GET /v1/med/cases` (and `/v1/infractions`): a scope's cases newest first. `starting_after`
 * must be one of the caller's own cases (another account's, or none: 400 `param: starting_after`).
 */

import { InvalidInput } from '../domain/errors.ts';
import { type MedCaseListQuery, type MedCaseObject, serializeMedCase } from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { getMedCase, queryMedCases } from '../store/med-cases.ts';

export interface MedCaseList {
  object: 'list';
  data: MedCaseObject[];
  has_more: boolean;
  next_cursor: string | null;
}

export async function listMedCases(scope: MerchantScope, query: MedCaseListQuery): Promise<MedCaseList> {
  if (query.startingAfter !== undefined && !(await getMedCase(scope, query.startingAfter)))
    throw new InvalidInput('starting_after must be the id of one of your MED cases.', {
      param: 'starting_after',
    });
  const { cases, hasMore } = await queryMedCases(scope, query);
  const last = cases.at(-1);
  return {
    object: 'list',
    data: cases.map(serializeMedCase),
    has_more: hasMore,
    next_cursor: hasMore && last ? last.id : null,
  };
}
