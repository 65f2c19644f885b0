export * from './auth.ts';
export * from './storage.ts';
