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

export const schema = builder.toSchema({ sortSchema: false });
