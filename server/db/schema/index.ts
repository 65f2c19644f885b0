export * from './auth.ts';
export * from './storage.ts';
export * from './base.ts';
export * from './gearboxes.ts';
export * from './stock.ts';
export * from './repair-orders.ts';
export * from './audit.ts';
