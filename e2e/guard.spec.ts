// SPEC §2.2 for every route of SPEC §2.1: signed out and each of the four roles. The expectations
// are written here, from the SPEC, not read from src/lib/routes.ts (the table under test).
import { expect, test } from './support/test.ts';
import { matchRoute, routes } from '#lib/routes.ts';
import type { Role } from '#lib/roles.ts';
import { roleNames, storageState } from './support/fixtures.ts';

/**
 * What a user gets at an address (SPEC §2.2): the screen itself (`page`); the sign-in page, which
 * leads back after signing in (`sign-in`); the repair order list, for a role the route does not
 * allow and for the signed-out-only pages once signed in (`home`); or, for a sign-in method the
 * workshop has switched off (decision 030), the French page saying so, with a 404 (`off`).
 */
type Outcome = 'page' | 'sign-in' | 'home' | 'off';
type Row = readonly [path: string, app_admin: Outcome, diagnostician: Outcome, commercial: Outcome, mechanic: Outcome, signedOut: Outcome];
const columns = ['app_admin', 'diagnostician', 'commercial', 'mechanic', null] as const;

/** SPEC §2.1, row by row, in its order and with its paths: `{x}` an id, `{x?}` an id or none. */
// biome-ignore format: a table, read by its columns
const SPEC: readonly Row[] = [
  //                                                               A          D          C          M          signed out
  ['/sign-in',                                                     'home',    'home',    'home',    'home',    'page'],
  ['/jump',                                                        'page',    'page',    'page',    'page',    'sign-in'],
  ['/set-password',                                                'page',    'page',    'page',    'page',    'sign-in'],
  ['/repair-orders',                                               'page',    'page',    'page',    'page',    'sign-in'],
  ['/repair-order',                                                'page',    'page',    'home',    'home',    'sign-in'],
  ['/repair-order/{uuid}',                                         'page',    'page',    'page',    'page',    'sign-in'],
  ['/repair-order/{uuid}/diagnostic/',                             'page',    'page',    'home',    'home',    'sign-in'],
  ['/repair-order/{or_uuid}/code-conditions/{code_uuid?}',         'page',    'page',    'home',    'home',    'sign-in'],
  ['/repair-order/{or_uuid}/symptom-conditions/{symptom_uuid?}',   'page',    'page',    'home',    'home',    'sign-in'],
  ['/repair-order/{repair_order_uuid}/measure/{uuid}',             'page',    'page',    'page',    'page',    'sign-in'],
  ['/gearboxes',                                                   'page',    'page',    'page',    'page',    'sign-in'],
  ['/gearbox',                                                     'page',    'page',    'home',    'home',    'sign-in'],
  ['/gearbox/{uuid}',                                              'page',    'page',    'page',    'page',    'sign-in'],
  ['/gearbox/{gearbox_uuid}/measure/{uuid?}',                      'page',    'page',    'page',    'page',    'sign-in'],
  ['/gearbox/{gearboxUuid}/outage/{outageUuid?}',                  'page',    'page',    'page',    'page',    'sign-in'],
  ['/users',                                                       'page',    'home',    'home',    'home',    'sign-in'],
  ['/symptoms-conditions-base',                                    'page',    'page',    'home',    'home',    'sign-in'],
  ['/stock',                                                       'page',    'page',    'page',    'home',    'sign-in'],
  ['/add-stock',                                                   'page',    'page',    'page',    'home',    'sign-in'],
];

/**
 * Where the product differs from SPEC §2.1 on purpose (decision 042): a dossier's creation forms,
 * the optional id left out, are for those who write the dossier (as `/gearbox` is).
 */
// biome-ignore format: a table, read by its columns
const DIFFERENCES: readonly Row[] = [
  ['/gearbox/{gearbox_uuid}/measure',                              'page',    'page',    'home',    'home',    'sign-in'],
  ['/gearbox/{gearboxUuid}/outage',                                'page',    'page',    'home',    'home',    'sign-in'],
];

/** Addresses SPEC §2.1 does not list, each with the decision that made it. */
// biome-ignore format: a table, read by its columns
const BEYOND_SPEC: readonly Row[] = [
  // Signing in without a password (decision 030); SMS is off by default.
  ['/sign-in/email-link',                                          'home',    'home',    'home',    'home',    'page'],
  ['/sign-in/email-code',                                          'home',    'home',    'home',    'home',    'page'],
  ['/sign-in/sms',                                                 'home',    'home',    'home',    'home',    'off'],
  // SPEC §2.7's intervention report, as a page and a PDF (decision 041): whoever reads the order.
  ['/repair-order/{uuid}/report',                                  'page',    'page',    'page',    'page',    'sign-in'],
  ['/repair-order/{uuid}/report.pdf',                              'page',    'page',    'page',    'page',    'sign-in'],
  // The activity of an order and of a dossier, for every role that reads them, and of a user,
  // for admins; each as a CSV too (decision 034).
  ['/repair-order/{uuid}/activity',                                'page',    'page',    'page',    'page',    'sign-in'],
  ['/repair-order/{uuid}/activity.csv',                            'page',    'page',    'page',    'page',    'sign-in'],
  // Issue 32: the outage sheet handed to the customer, a page and a PDF (decision 090): not mechanics.
  ['/repair-order/{uuid}/outage-sheet',                            'page',    'page',    'page',    'home',    'sign-in'],
  ['/repair-order/{uuid}/outage-sheet.pdf',                        'page',    'page',    'page',    'home',    'sign-in'],
  // Issue 32: the workshop at a glance (decision 089): admins and diagnosticians.
  ['/overview',                                                    'page',    'page',    'home',    'home',    'sign-in'],
  // A stored file as a page links it, signed when tapped (decision 095): whoever is signed in.
  ['/files/{uuid}',                                                'page',    'page',    'page',    'page',    'sign-in'],
  ['/gearbox/{uuid}/activity',                                     'page',    'page',    'page',    'page',    'sign-in'],
  ['/gearbox/{uuid}/activity.csv',                                 'page',    'page',    'page',    'page',    'sign-in'],
  ['/users/{uuid}/activity',                                       'page',    'home',    'home',    'home',    'sign-in'],
  ['/users/{uuid}/activity.csv',                                   'page',    'home',    'home',    'home',    'sign-in'],
  // The mail and SMS waiting to leave (decision 049): admins.
  ['/users/messages',                                              'page',    'home',    'home',    'home',    'sign-in'],
  // The account of whoever is signed in: the profile menu as a page (decision 019), its security
  // (decisions 027, 028), tokens (026), phone (030: off while SMS is) and step-up (048).
  ['/profile',                                                     'page',    'page',    'page',    'page',    'sign-in'],
  ['/profile/security',                                            'page',    'page',    'page',    'page',    'sign-in'],
  ['/profile/tokens',                                              'page',    'page',    'page',    'page',    'sign-in'],
  ['/profile/phone',                                               'off',     'off',     'off',     'off',     'sign-in'],
  ['/profile/confirm',                                             'page',    'page',    'page',    'page',    'sign-in'],
];

const ID = '3f0c6a52-8c1e-4b7a-9d2e-5a6b7c8d9e0f';

/** The addresses of a path: each `{x}` an id; a last `{x?}` both left out and given. `/jump` is sent somewhere. */
function addresses(path: string): string[] {
  if (path === '/jump') return ['/jump?to=%2Fstock'];
  const withIds = (p: string) => p.replace(/\{\w+\??\}/g, ID);
  return /\/\{\w+\?\}$/.test(path) ? [withIds(path.replace(/\/\{\w+\?\}$/, '')), withIds(path)] : [withIds(path)];
}

type Check = { path: string; url: string; outcomes: readonly Outcome[] };

/** Every address visited, with what each column gets: the SPEC's, then its differences, then the rest. */
const checks = new Map<string, Check>();
for (const [path, ...outcomes] of SPEC) for (const url of addresses(path)) checks.set(url, { path, url, outcomes });
for (const [path, ...outcomes] of DIFFERENCES) {
  const [url] = addresses(path);
  if (!checks.has(url!)) throw new Error(`${path} differs from no address of SPEC §2.1`);
  checks.set(url!, { path, url: url!, outcomes });
}
for (const [path, ...outcomes] of BEYOND_SPEC) {
  const [url] = addresses(path);
  if (checks.has(url!)) throw new Error(`${path} is in SPEC §2.1 already`);
  checks.set(url!, { path, url: url!, outcomes });
}

type Expectation = { path: string; status?: number; heading?: string };

function expected({ path, url, outcomes }: Check, role: Role | null): Expectation {
  const outcome = outcomes[columns.indexOf(role)]!;
  if (outcome === 'sign-in') return { path: '/sign-in' };
  if (outcome === 'home') return { path: '/repair-orders' };
  if (outcome === 'off') return { path: url, status: 404, heading: 'Connexion par SMS non proposée' };
  // No record exists behind the test's id: the French 404 at the same address. An order's own
  // pages say it in the SPEC's words (§8); a stored file, that it is a file; a record's page (an
  // order's code, symptom or measure, anything of a dossier or a user), the generic title.
  if (url.includes(ID)) {
    const heading = /^\/repair-order\/\{uuid\}/.test(path)
      ? "Impossible de récupérer l'ordre de réparation"
      : path === '/files/{uuid}'
        ? 'Fichier introuvable'
        : 'Page introuvable';
    return { path: url, status: 404, heading };
  }
  return { path: url, status: 200 };
}

test('the table names every route the guard knows, and only those', () => {
  const known = new Set([...checks.keys()].map((url) => matchRoute(url.split('?')[0]!)?.route.path));
  expect(
    routes.map((route) => route.path).filter((path) => !known.has(path)),
    'routes of src/lib/routes.ts that no row visits',
  ).toEqual([]);
  expect(
    [...checks.keys()].filter((url) => !matchRoute(url.split('?')[0]!)),
    'addresses the guard does not know',
  ).toEqual([]);
});

const states: (Role | null)[] = [null, ...roleNames];

for (const role of states) {
  test.describe(`guard, ${role ?? 'signed out'}`, () => {
    if (role) test.use({ storageState: storageState(role) });

    // One page walks every address (a context per address cost 0.3 s each, 200 times); each check
    // is soft and names its address and role, so one failure still shows every other verdict.
    test('every route', async ({ page }) => {
      for (const check of checks.values()) {
        const { path, url } = check;
        const want = expected(check, role);
        const what = `${role ?? 'signed out'} at ${path}${url === path ? '' : ` (${url})`} → ${want.path}${want.status ? ` (${want.status})` : ''}`;
        const response = await page.goto(url);
        expect.soft(new URL(page.url()).pathname, what).toBe(want.path.split('?')[0]);
        if (want.status) expect.soft(response?.status(), what).toBe(want.status);
        if (want.heading) await expect.soft(page.getByRole('heading', { name: want.heading }), what).toBeVisible();
        if (want.path === '/sign-in' && url !== '/sign-in') expect.soft(new URL(page.url()).searchParams.get('redirectTo'), what).toBe(url);
      }
    });

    test('an unknown path', async ({ page }) => {
      await page.goto('/pas/une/page');
      expect(new URL(page.url()).pathname).toBe(role ? '/repair-orders' : '/sign-in');
      await page.goto('/');
      expect(new URL(page.url()).pathname).toBe(role ? '/repair-orders' : '/sign-in');
    });
  });
}
