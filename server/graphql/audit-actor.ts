// Every mutation runs as its viewer for the audit trail: services record without being handed
// a user (decision 034). Subscriptions and queries write nothing.
import type { GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './builder.ts';
import { runAs } from '#server/audit/record.ts';

export function withAuditActor(schema: GraphQLSchema): GraphQLSchema {
  const mutation = schema.getMutationType();
  for (const field of Object.values(mutation?.getFields() ?? {})) {
    const resolve = field.resolve;
    if (!resolve) continue;
    field.resolve = (source, args, context: GraphQLContext, info) =>
      runAs(context.viewer ? { id: context.viewer.id } : null, () => resolve(source, args, context, info));
  }
  return schema;
}
