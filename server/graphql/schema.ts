// The schema: one module per domain registers its types and fields on the builder.
import { builder } from './builder.ts';
import './users.ts';
import './base.ts';
import './gearboxes.ts';
import './procedures.ts';
import './measures.ts';
import './documents.ts';
import './stock.ts';
import './repair-orders.ts';
import './order-curves.ts';
import './order-measures.ts';
import './order-symptoms.ts';
import './diagnostic-flow.ts';
import './order-procedure.ts';

export const schema = builder.toSchema({ sortSchema: false });
