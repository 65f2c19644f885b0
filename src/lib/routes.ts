// The route table of SPEC §2.1 and the guard of SPEC §2.2: one source for the middleware,
// the navigation bar and the tests.
import { fr } from '#lib/i18n/fr.ts';
import type { Role } from './roles.ts';

const A: Role = 'app_admin';
const D: Role = 'diagnostician';
const C: Role = 'commercial';
const M: Role = 'mechanic';

export type Access = 'signed-out' | 'signed-in' | readonly Role[];

export type RouteDef = {
  /** SPEC notation: `{name}` a segment, `{name?}` an optional last segment. */
  path: string;
  access: Access;
  nav: boolean;
};

export const routes: readonly RouteDef[] = [
  { path: '/sign-in', access: 'signed-out', nav: false },
  // Signing in without a password (decision 030); each page answers 404 while its method is off.
  { path: '/sign-in/email-link', access: 'signed-out', nav: false },
  { path: '/sign-in/email-code', access: 'signed-out', nav: false },
  { path: '/sign-in/sms', access: 'signed-out', nav: false },
  { path: '/jump', access: 'signed-in', nav: false },
  { path: '/set-password', access: 'signed-in', nav: false },
  { path: '/repair-orders', access: [A, C, D, M], nav: true },
  { path: '/repair-order', access: [A, D], nav: true },
  { path: '/repair-order/{uuid}', access: [A, C, D, M], nav: true },
  { path: '/repair-order/{uuid}/diagnostic', access: [A, D], nav: true },
  // SPEC §2.7 intervention report: a printable page and its PDF, both guarded like any screen.
  { path: '/repair-order/{uuid}/report', access: [A, C, D, M], nav: false },
  { path: '/repair-order/{uuid}/report.pdf', access: [A, C, D, M], nav: false },
  { path: '/repair-order/{or_uuid}/code-conditions/{code_uuid?}', access: [A, D], nav: true },
  { path: '/repair-order/{or_uuid}/symptom-conditions/{symptom_uuid?}', access: [A, D], nav: true },
  { path: '/repair-order/{repair_order_uuid}/measure/{uuid}', access: [A, C, D, M], nav: true },
  // Decision 034: the activity of an order, a dossier, a user (admins), and each as a CSV.
  { path: '/repair-order/{uuid}/activity', access: [A, C, D, M], nav: true },
  { path: '/repair-order/{uuid}/activity.csv', access: [A, C, D, M], nav: false },
  // Issue 32, decision 090: the customer's outage sheet, a printable page and its PDF.
  { path: '/repair-order/{uuid}/outage-sheet', access: [A, C, D], nav: false },
  { path: '/repair-order/{uuid}/outage-sheet.pdf', access: [A, C, D], nav: false },
  { path: '/gearboxes', access: [A, C, D, M], nav: true },
  { path: '/gearbox', access: [A, D], nav: true },
  { path: '/gearbox/{uuid}', access: [A, C, D, M], nav: true },
  // Without its id, the creation form: only those who write the dossier (first match wins).
  { path: '/gearbox/{gearbox_uuid}/measure', access: [A, D], nav: true },
  { path: '/gearbox/{gearbox_uuid}/measure/{uuid?}', access: [A, C, D, M], nav: true },
  { path: '/gearbox/{gearboxUuid}/outage', access: [A, D], nav: true },
  { path: '/gearbox/{gearboxUuid}/outage/{outageUuid?}', access: [A, C, D, M], nav: true },
  { path: '/gearbox/{uuid}/activity', access: [A, C, D, M], nav: true },
  { path: '/gearbox/{uuid}/activity.csv', access: [A, C, D, M], nav: false },
  { path: '/users', access: [A], nav: true },
  { path: '/users/{uuid}/activity', access: [A], nav: true },
  // Decision 049: the mail and SMS waiting or failed, and «Renvoyer».
  { path: '/users/messages', access: [A], nav: true },
  { path: '/users/{uuid}/activity.csv', access: [A], nav: false },
  { path: '/symptoms-conditions-base', access: [A, D], nav: true },
  { path: '/stock', access: [A, D, C], nav: true },
  { path: '/add-stock', access: [A, D, C], nav: true },
  // The profile menu's name and e-mail form, where its pencil leads (decisions 019, 023).
  { path: '/profile', access: 'signed-in', nav: true },
  // Issue 18: the second factor, security keys and personal access tokens of the signed-in user.
  { path: '/profile/security', access: 'signed-in', nav: true },
  { path: '/profile/tokens', access: 'signed-in', nav: true },
  { path: '/profile/phone', access: 'signed-in', nav: true },
  // Step-up without JavaScript: the second factor again, then back to the refused screen.
  { path: '/profile/confirm', access: 'signed-in', nav: true },
  // Issue 32: the workshop at a glance (decision 089).
  { path: '/overview', access: [A, D], nav: true },
  // Decision 095: a stored file as a page links it, signed when tapped; whoever is signed in, as the storage API.
  { path: '/files/{uuid}', access: 'signed-in', nav: false },
];

/** Form and JSON endpoints of the shell: not screens, guarded by their own checks. */
export const endpoints: readonly string[] = [
  '/sign-out',
  '/api/session/password',
  '/api/session/token',
  // Step-up from an island (issue 18, item 7).
  '/api/session/elevate',
  // Security keys (decision 028): the sign-in island's end, the security page's key changes.
  '/sign-in/security-key',
  '/profile/security/keys',
  // A link's landing confirmed (decision 052).
  '/sign-in/continue',
];

export const HOME = '/repair-orders';
export const SIGN_IN = '/sign-in';

type Compiled = { route: RouteDef; regex: RegExp; names: string[] };

const compiled: Compiled[] = routes.map((route) => {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .slice(1)
    .map((segment) => {
      const param = segment.match(/^\{(\w+)(\?)?\}$/);
      if (!param) return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
      names.push(param[1]!);
      return param[2] ? '(?:/([^/]+))?' : '/([^/]+)';
    })
    .join('');
  return { route, names, regex: new RegExp(`^${source}/?$`) };
});

export type RouteMatch = { route: RouteDef; params: Record<string, string | undefined> };

export function matchRoute(pathname: string): RouteMatch | null {
  for (const { route, regex, names } of compiled) {
    const m = regex.exec(pathname);
    if (!m) continue;
    let params: Record<string, string | undefined>;
    try {
      params = Object.fromEntries(names.map((n, i) => [n, m[i + 1] === undefined ? undefined : decodeURIComponent(m[i + 1]!)]));
    } catch {
      return null;
    }
    return { route, params };
  }
  return null;
}

export function isAllowed(access: Access, role: Role | null): boolean {
  if (access === 'signed-out') return role === null;
  if (access === 'signed-in') return role !== null;
  return role !== null && access.includes(role);
}

/** SPEC §2.2: where to send a request, or null to let it through. */
export function guardRedirect(pathname: string, role: Role | null): string | null {
  const match = matchRoute(pathname);
  if (!match) return role ? HOME : SIGN_IN;
  const { access } = match.route;
  if (access === 'signed-out') return role ? HOME : null;
  if (!role) return SIGN_IN;
  return isAllowed(access, role) ? null : HOME;
}

/** SPEC §2.4: the tabs of the navigation bar, in order. */
export const navTabs: readonly { href: string; label: string; roles: readonly Role[] }[] = [
  { href: '/repair-orders', label: fr.nav.repairOrders, roles: [A, D, C, M] },
  { href: '/stock', label: fr.nav.stock, roles: [A, D, C] },
  { href: '/gearboxes', label: fr.nav.gearboxes, roles: [A, D, C, M] },
  { href: '/symptoms-conditions-base', label: fr.nav.symptoms, roles: [A, D] },
  { href: '/users', label: fr.nav.users, roles: [A] },
  { href: '/overview', label: fr.nav.overview, roles: [A, D] },
];

/**
 * The tab a path belongs to, or null for the pages of no tab (the account's: /profile…,
 * /set-password): the bar then marks none and the tablet's «Menu» names no section.
 */
export function selectedTab(pathname: string): string | null {
  if (pathname.startsWith('/stock') || pathname === '/add-stock') return '/stock';
  if (pathname.startsWith('/gearbox')) return '/gearboxes';
  if (pathname.startsWith('/symptoms-conditions-base')) return '/symptoms-conditions-base';
  if (pathname.startsWith('/users')) return '/users';
  if (pathname === '/overview') return '/overview';
  if (pathname.startsWith('/repair-order') || pathname === '/jump' || pathname === '/') return '/repair-orders';
  return null;
}
