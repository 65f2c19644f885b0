// The schema: one module per domain registers its types and fields on the builder.
import { builder } from './builder.ts';
import { withTimeBudget } from './budget.ts';
import { withServiceErrors } from './inputs.ts';
import { withAuditActor } from './audit-actor.ts';
import './users.ts';
import './base.ts';
import './gearboxes.ts';
import './procedures.ts';
import './measures.ts';
import './documents.ts';
import './stock.ts';
import './repair-orders/index.ts';
import './repair-orders/curves.ts';
import './repair-orders/measures.ts';
import './repair-orders/symptoms.ts';
import './repair-orders/diagnostic.ts';
import './repair-orders/procedure.ts';
import './audit.ts';

// Service refusals are translated around each resolver; the time budget checks before it runs.
export const schema = withTimeBudget(withServiceErrors(withAuditActor(builder.toSchema({ sortSchema: false }))));
