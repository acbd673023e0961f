/**
 * `GET /v1/med/cases` (and `/v1/infractions`): a scope's cases newest first. `starting_after`
 * must be one of the caller's own cases (another account's, or none: 400 `param: starting_after`).
 */

import { InvalidInput } from '../domain/errors.ts';
import { type CursorList, cursorList } from '../domain/lists.ts';
import { type MedCaseListQuery, type MedCaseObject, serializeMedCase } from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { getMedCase, queryMedCases } from '../store/med-cases.ts';

type MedCaseList = CursorList<MedCaseObject>;

export async function listMedCases(scope: MerchantScope, query: MedCaseListQuery): Promise<MedCaseList> {
  if (query.startingAfter !== undefined && !(await getMedCase(scope, query.startingAfter)))
    throw new InvalidInput('starting_after must be the id of one of your MED cases.', {
      param: 'starting_after',
    });
  const { cases, hasMore } = await queryMedCases(scope, query);
  return cursorList(cases, hasMore, serializeMedCase, (last) => last.id);
}
