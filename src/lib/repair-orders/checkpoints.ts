// A checkpoint of a validated procedure as the shop floor answers it. Its own module: the
// procedure island imports it, and takes nothing else with it (no catalogue, no zod).
import { graphql, type ResultOf } from '#lib/graphql.ts';
import type { CheckResult } from './check-results.ts';

export const CheckpointFields = graphql(`
  fragment CheckpointFields on order_checkpoints { id orderProcedureId position name description checkResult measuredValue comment answeredByName answeredAt version }
`);
export type OrderCheckpoint = ResultOf<typeof CheckpointFields>;

/** A checkpoint's answer as typed in its row (the island) or posted by its form without JavaScript. */
export type Draft = { checkResult: CheckResult | null; measuredValue: string; comment: string };

/** Closes the order once every checkpoint is answered (the island, and the form without JavaScript). */
export const CLOSE_ORDER = graphql(`mutation($id: uuid!, $c: String) { closeRepairOrder(id: $id, comment: $c) }`);
