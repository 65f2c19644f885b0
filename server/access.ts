// Services own their permissions (issue 31, decision 061). Each domain service is a set of
// functions that take the viewer first, and a table beside it gives each function what its caller
// must be allowed, read from the one role table (src/lib/permissions.ts). The edges (GraphQL,
// pages, file routes, scripts) never check a capability themselves: they reach the functions
// through `bindViewer`, which refuses a function to a viewer the table does not allow.
import { can, type Capability } from '#lib/permissions.ts';
import { t } from '#lib/i18n.ts';
import type { Viewer } from '#server/auth/viewer.ts';
import { refuse } from '#server/errors.ts';
import { runAs } from '#server/audit/record.ts';

/** What a caller must be to run a service function: signed in, or holding a capability. */
export type Permission = 'signedIn' | Capability;

/** A service: functions whose first parameter is the viewer. */
// biome-ignore lint/suspicious/noExplicitAny: the arguments of each function are its own.
type ServiceShape = Record<string, (viewer: Viewer, ...args: any[]) => unknown>;

/** One row per function of the service: a function without a row fails the type check. */
export type PermissionTable<S extends ServiceShape> = { readonly [K in keyof S]: Permission };

/** The service as an edge sees it: the viewer already given. */
export type Bound<S extends ServiceShape> = {
  readonly [K in keyof S]: S[K] extends (viewer: Viewer, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/** Refuses a viewer `permission` does not allow: not signed in, or without the capability. */
export function requirePermission(viewer: Viewer | null, permission: Permission): Viewer {
  if (!viewer) throw refuse('unauthenticated', t('refusals.forbidden'));
  if (permission !== 'signedIn' && !can(viewer.role, permission)) throw refuse('forbidden', t('refusals.forbidden'));
  return viewer;
}

/**
 * The service's functions for `viewer`. The permission is checked when a function is taken, before
 * its arguments are read (`services.x.insert(parse(input))` refuses a mechanic before parsing).
 */
export function bindViewer<S extends ServiceShape>(service: S, table: PermissionTable<S>, viewer: Viewer | null): Bound<S> {
  return new Proxy({} as Bound<S>, {
    get(_target, name) {
      if (typeof name !== 'string' || !Object.hasOwn(table, name)) return undefined;
      const allowed = requirePermission(viewer, table[name as keyof S]);
      const fn = service[name as keyof S]!;
      // The viewer is also who acted, for the audit trail (decision 034), whichever edge called.
      return (...args: unknown[]) => runAs({ id: allowed.id }, () => fn(allowed, ...args));
    },
    has: (_target, name) => typeof name === 'string' && Object.hasOwn(table, name),
    ownKeys: () => Object.keys(table),
    getOwnPropertyDescriptor: (_target, name) =>
      typeof name === 'string' && Object.hasOwn(table, name) ? { enumerable: true, configurable: true } : undefined,
  });
}
