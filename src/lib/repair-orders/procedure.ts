// The repair procedure on the shop floor (SPEC §2.7, §4): the checkpoints of the validated
// procedures answered one by one, then the order closed with an optional comment.
import { z } from 'zod';
import { checkResults } from './check-results.ts';
import { t } from '#lib/i18n.ts';
import { measuredValue } from './measures.ts';
import { optionalText } from '#lib/validation.ts';

/** One schema for the checkpoint row (island), its no-JavaScript form and the API. */
export const checkpointAnswerSchema = z.object({
  // None while only a value or a comment was typed (saved as the field is left, decision 039):
  // the result chosen, if any, stays.
  checkResult: z.enum(checkResults, { error: t('orderProcedure.resultRequired') }).nullish(),
  measuredValue: measuredValue(),
  comment: optionalText(1000),
});
export type CheckpointAnswer = z.infer<typeof checkpointAnswerSchema>;

export const closeOrderSchema = z.object({
  comment: optionalText(2000),
});

/** What an order's history records (SPEC §4): its closings and reopenings. */
export const orderEventKinds = ['closed', 'reopened'] as const;
export type OrderEventKind = (typeof orderEventKinds)[number];
