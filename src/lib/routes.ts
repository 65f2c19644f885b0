// The route table of SPEC §2.1 and the guard of SPEC §2.2: one source for the middleware,
// the navigation bar and the tests.
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
  title: string;
};

export const routes: readonly RouteDef[] = [
  { path: '/sign-in', access: 'signed-out', nav: false, title: 'Connexion' },
  { path: '/jump', access: 'signed-in', nav: false, title: 'Redirection' },
  { path: '/set-password', access: 'signed-in', nav: false, title: 'Choix du mot de passe' },
  { path: '/repair-orders', access: [A, C, D, M], nav: true, title: 'Ordres de réparation' },
  { path: '/repair-order', access: [A, D], nav: true, title: 'Nouvel ordre de réparation' },
  { path: '/repair-order/{uuid}', access: [A, C, D, M], nav: true, title: 'Ordre de réparation' },
  { path: '/repair-order/{uuid}/diagnostic', access: [A, D], nav: true, title: 'Diagnostic' },
  // SPEC §2.7 intervention report: a printable page and its PDF, both guarded like any screen.
  { path: '/repair-order/{uuid}/report', access: [A, C, D, M], nav: false, title: "Rapport d'intervention" },
  { path: '/repair-order/{uuid}/report.pdf', access: [A, C, D, M], nav: false, title: "Rapport d'intervention" },
  { path: '/repair-order/{or_uuid}/code-conditions/{code_uuid?}', access: [A, D], nav: true, title: "Conditions d'apparition du code défaut" },
  { path: '/repair-order/{or_uuid}/symptom-conditions/{symptom_uuid?}', access: [A, D], nav: true, title: 'Conditions du symptôme' },
  { path: '/repair-order/{repair_order_uuid}/measure/{uuid}', access: [A, C, D, M], nav: true, title: 'Mesure' },
  { path: '/gearboxes', access: [A, C, D, M], nav: true, title: 'Informations techniques' },
  { path: '/gearbox', access: [A, D], nav: true, title: 'Nouveau modèle de boîte' },
  { path: '/gearbox/{uuid}', access: [A, C, D, M], nav: true, title: 'Modèle de boîte' },
  // Without its id, the creation form: only those who write the dossier (first match wins).
  { path: '/gearbox/{gearbox_uuid}/measure', access: [A, D], nav: true, title: 'Nouvelle mesure du modèle' },
  { path: '/gearbox/{gearbox_uuid}/measure/{uuid?}', access: [A, C, D, M], nav: true, title: 'Mesure du modèle' },
  { path: '/gearbox/{gearboxUuid}/outage', access: [A, D], nav: true, title: 'Nouvelle panne du modèle' },
  { path: '/gearbox/{gearboxUuid}/outage/{outageUuid?}', access: [A, C, D, M], nav: true, title: 'Panne du modèle' },
  { path: '/users', access: [A], nav: true, title: 'Utilisateurs' },
  { path: '/symptoms-conditions-base', access: [A, D], nav: true, title: 'Base symptômes et conditions' },
  { path: '/stock', access: [A, D, C], nav: true, title: 'Stock' },
  { path: '/add-stock', access: [A, D, C], nav: true, title: 'Ajout au stock' },
  // The profile menu's form, for a browser without JavaScript (decision 019).
  { path: '/profile', access: 'signed-in', nav: true, title: 'Mon profil' },
];

/** Form and JSON endpoints of the shell: not screens, guarded by their own checks. */
export const endpoints: readonly string[] = ['/sign-out', '/api/session/password', '/api/session/token'];

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
  { href: '/repair-orders', label: 'Ordres de réparation', roles: [A, D, C, M] },
  { href: '/stock', label: 'Stock', roles: [A, D, C] },
  { href: '/gearboxes', label: 'Informations techniques', roles: [A, D, C, M] },
  { href: '/symptoms-conditions-base', label: 'Base symptômes et conditions', roles: [A, D] },
  { href: '/users', label: 'Utilisateurs', roles: [A] },
];

/** The tab a path belongs to; repair orders by default. */
export function selectedTab(pathname: string): string {
  if (pathname.startsWith('/stock') || pathname === '/add-stock') return '/stock';
  if (pathname.startsWith('/gearbox')) return '/gearboxes';
  if (pathname.startsWith('/symptoms-conditions-base')) return '/symptoms-conditions-base';
  if (pathname.startsWith('/users')) return '/users';
  return '/repair-orders';
}
